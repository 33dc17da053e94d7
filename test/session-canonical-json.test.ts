/**
 * The canonical JSON renderer (src/session/canonical-json.ts) against `JSON.parse` then
 * `JSON.stringify(…, null, 2)`, its oracle: whatever text it accepts, it renders as the two would;
 * it accepts what `JSON.stringify` writes; and it refuses every text the two would not give back.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CanonicalRenderer, type FieldSpans, NO_ROOM, REFUSED } from "../src/session/canonical-json.js";

/** The text the renderer gives for `text` at `depth`, or `REFUSED`/`NO_ROOM`. */
function render(text: string, depth = 0, room = 16 * text.length + 256): string | number {
	const src = Buffer.from(text);
	const out = Buffer.alloc(room);
	const renderer = new CanonicalRenderer();
	const at = renderer.render(src, 0, src.length, out, 0, depth);
	if (at < 0) return at;
	if (at !== src.length) return REFUSED;
	return out.toString("utf8", 0, renderer.end);
}

/** What `JSON.stringify(value, null, 2)` writes for the value of `text`, alone (depth 0) or as an array's element (1). */
function oracle(text: string, depth = 0): string {
	const value: unknown = JSON.parse(text);
	if (depth === 0) return JSON.stringify(value, null, 2);
	return JSON.stringify([value], null, 2).slice(4, -2);
}

/** Whether a value holds an object key `JSON.parse` would move (or the renderer refuses): one starting with a digit. */
function hasDigitKey(value: unknown): boolean {
	if (Array.isArray(value)) return value.some(hasDigitKey);
	if (value !== null && typeof value === "object") {
		return Object.entries(value).some(([key, inner]) => /^[0-9]/.test(key) || hasDigitKey(inner));
	}
	return false;
}

const strings = fc.oneof(fc.string(), fc.string({ unit: "binary" }), fc.string({ unit: "grapheme" }));
const values = fc.letrec((tie) => ({
	value: fc.oneof(
		{ depthSize: "small" },
		fc.constant(null),
		fc.boolean(),
		fc.double({ noNaN: true, noDefaultInfinity: true }),
		fc.integer(),
		strings,
		fc.array(tie("value"), { maxLength: 5 }),
		fc.dictionary(strings, tie("value"), { maxKeys: 6 }),
	),
})).value;

describe("CanonicalRenderer", () => {
	it("should render what JSON.stringify writes as JSON.stringify(value, null, 2) writes it", () => {
		fc.assert(
			fc.property(values, fc.integer({ min: 0, max: 1 }), (value, depth) => {
				const text = JSON.stringify(value);
				const rendered = render(text, depth);
				if (hasDigitKey(value)) return;
				expect(rendered).toBe(oracle(text, depth));
			}),
			{ numRuns: 3000 },
		);
	});

	it("should render any text it accepts exactly as JSON.parse then JSON.stringify would", () => {
		// Canonical text, then one change: whitespace, another escape, another number form, a byte.
		const edits = fc.oneof(
			fc.constantFrom(
				" ",
				"\t",
				"\n",
				"\\/",
				"\\u0041",
				"\\u000a",
				"\\u000A",
				"\\ud83d\\ude00",
				"\\ud800",
				"\\udc00",
			),
			fc.constantFrom("1.0", "-0", "1E5", "1e5", "01", "1e400", ".5", "1.", "+1", "-", "0.1", "1e+21", "1e21"),
			fc.constantFrom("true", "nul", "{}", "[]", "[", "}", ",", ":", '"', "\\", '"a":1', '"a"', "\u0001"),
			fc.string({ maxLength: 3 }),
		);
		let accepted = 0;
		fc.assert(
			fc.property(values, fc.nat(), edits, fc.boolean(), (value, where, edit, replace) => {
				const canonical = JSON.stringify(value);
				const at = canonical.length === 0 ? 0 : where % (canonical.length + 1);
				// As a file's bytes hold it: a surrogate the edit split becomes U+FFFD.
				const text = Buffer.from(canonical.slice(0, at) + edit + canonical.slice(replace ? at + 1 : at)).toString();
				const rendered = render(text, 1);
				if (typeof rendered !== "string") return;
				accepted++;
				expect(rendered).toBe(oracle(text, 1));
			}),
			{ numRuns: 20000 },
		);
		// The edits that keep the text canonical (a character for another in a string) are checked too.
		expect(accepted).toBeGreaterThan(2000);
	});

	it.each([
		['{"a":1,"b":{"c":[1,2,{}],"d":[]},"e":"x"}', 0],
		['{"__proto__":1,"toJSON":2,"constructor":{}}', 1],
		['"\\u001f\\ud800x\\udfff\\"\\\\\\b\\f\\n\\r\\t"', 1],
		["[1.5,-2,0,-0.5,1e+21,1e-7,123456789012345680,true,false,null]", 1],
		["[[[[[]]]]]", 0],
		['"héllo ✓ 日本語 🙂"', 0],
	])("should accept %s (JSON.stringify's own form)", (text, depth) => {
		expect(JSON.stringify(JSON.parse(text))).toBe(text);
		expect(render(text, depth)).toBe(oracle(text, depth));
	});

	it.each([
		["whitespace between tokens", '{"a": 1}'],
		["an escaped solidus", '"a\\/b"'],
		["a code point escaped that is written as itself", '"\\u0041"'],
		["uppercase hex", '"\\u001F"'],
		["a control character with a short escape written as \\u", '"\\u000a"'],
		["an escaped surrogate pair", '"\\ud83d\\ude00"'],
		["a raw control character", '"a\u0001b"'],
		["a number with a trailing zero", "1.0"],
		["negative zero", "-0"],
		["an exponent JSON.stringify would not write", "1e5"],
		["a number too large for a double", "1e400"],
		["a leading zero", "01"],
		["a repeated key", '{"a":1,"b":2,"a":3}'],
		["an index key, which JSON.parse moves first", '{"b":1,"0":2}'],
		["a key starting with a digit", '{"1a":1}'],
		["a literal misspelt", "nul"],
		["a missing value", '{"a":}'],
		["a trailing comma", "[1,]"],
		["an unterminated string", '"abc'],
		["an unclosed object", '{"a":1'],
		["a value nested deeper than 100", `${"[".repeat(102)}${"]".repeat(102)}`],
		[
			"an object with more than 64 keys",
			JSON.stringify(Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`k${i}`, i]))),
		],
	])("should refuse %s", (_what, text) => {
		expect(render(text, 0, 1 << 20)).toBe(REFUSED);
	});

	it("should say when the output has no room, and render again into a larger one", () => {
		const text = JSON.stringify({ content: [{ type: "text", text: "x".repeat(200) }] });
		expect(render(text, 1, 100)).toBe(NO_ROOM);
		expect(render(text, 1)).toBe(oracle(text, 1));
	});

	it("should find where the top-level values of the keys asked for lie", () => {
		const text = '{"role":"assistant","content":[{"type":"text","text":"hi"}],"model":"m","nested":{"role":"x"}}';
		const src = Buffer.from(text);
		const spans: FieldSpans = {
			keys: ['"role"', '"content"', '"provider"', '"model"'].map((key) => Buffer.from(key)),
			starts: [0, 0, 0, 0],
			ends: [0, 0, 0, 0],
		};
		const renderer = new CanonicalRenderer();
		renderer.render(src, 0, src.length, Buffer.alloc(1024), 0, 1, spans);
		const valueOf = (k: number) => (spans.starts[k] === -1 ? undefined : text.slice(spans.starts[k], spans.ends[k]));
		expect(valueOf(0)).toBe('"assistant"');
		expect(valueOf(1)).toBe('[{"type":"text","text":"hi"}]');
		expect(valueOf(2)).toBeUndefined();
		expect(valueOf(3)).toBe('"m"');
	});
});
