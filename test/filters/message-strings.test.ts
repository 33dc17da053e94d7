/**
 * What text of a message the secret filter reads: `eachString` (the scan) visits exactly the strings
 * `mapStrings` (the rewrite) maps, in the same order, on any plain value (and more, never less, on
 * a record whose prototype has enumerable properties); metadata is skipped in messages
 * and blocks but not inside tool arguments, where every key and string is text.
 */
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { eachString, mapStrings, stringWalker } from "../../src/filters/message-strings.js";

const visited = (value: unknown): string[] => {
	const strings: string[] = [];
	eachString(value, (text) => strings.push(text));
	return strings;
};
const mapped = (value: unknown): string[] => {
	const strings: string[] = [];
	mapStrings(value, (text) => {
		strings.push(text);
		return text;
	});
	return strings;
};

const FIELD_NAMES = ["role", "type", "content", "text", "id", "name", "arguments", "data", "image", "sections", "x"];
const arbValue = fc.letrec((tie) => ({
	value: fc.oneof(
		{ depthSize: "small" },
		fc.string(),
		fc.constantFrom(...FIELD_NAMES),
		fc.integer(),
		fc.constant(null),
		fc.array(tie("value"), { maxLength: 4 }),
		fc.dictionary(fc.constantFrom(...FIELD_NAMES), tie("value"), { maxKeys: 5 }),
		fc
			.dictionary(fc.constantFrom(...FIELD_NAMES), tie("value"), { maxKeys: 3 })
			.map((fields) => Object.assign(Object.create(null) as object, fields)),
		fc.record({ type: fc.constant("image"), data: fc.string(), mimeType: fc.string() }),
	),
})).value;

describe("eachString", () => {
	afterEach(() => {
		delete (Object.prototype as Record<string, unknown>).polluted;
	});

	it("should visit exactly the strings mapStrings maps, in the same order", () => {
		fc.assert(
			fc.property(arbValue, (value) => {
				expect(visited(value)).toEqual(mapped(value));
				expect(visited({ role: "user", content: value })).toEqual(mapped({ role: "user", content: value }));
				const walked: string[] = [];
				stringWalker((text) => walked.push(text))(value);
				expect(walked).toEqual(visited(value));
			}),
			{ numRuns: 500 },
		);
	});

	it("should read own keys only, also when Object.prototype has an enumerable property", () => {
		(Object.prototype as Record<string, unknown>).polluted = "AKIA-not-own";
		const message = { role: "user", content: [{ type: "text", text: "hello" }] };
		const walked: string[] = [];
		stringWalker((text) => walked.push(text))(message);
		expect(walked).toEqual(["hello"]);
		expect(visited(message)).toEqual(["hello"]);
		expect(visited(message)).toEqual(mapped(message));
	});

	it("should read a class instance's own keys as mapStrings does, and its prototype's enumerable ones after them", () => {
		class Block {
			type = "text";
			text = "own";
		}
		expect(visited({ role: "user", content: [new Block()] })).toEqual(
			mapped({ role: "user", content: [new Block()] }),
		);
		Object.defineProperty(Block.prototype, "inherited", { value: "AKIA-inherited", enumerable: true });
		expect(visited({ role: "user", content: [new Block()] })).toEqual(["own", "inherited", "AKIA-inherited"]);
		expect(mapped({ role: "user", content: [new Block()] })).toEqual(["own"]);
	});

	it("should skip metadata in messages and blocks, but read every key and string of tool arguments", () => {
		const message = {
			role: "assistant",
			content: [
				{ type: "text", text: "calling", textSignature: "sig" },
				{ type: "toolCall", id: "c1", name: "deploy", arguments: { id: "a1", type: "t1", token: { model: "m1" } } },
				{ type: "image", data: "iVBORw0KGgo", mimeType: "image/png" },
			],
			model: "faux-1",
			usage: { input: 1 },
		};
		expect(visited(message)).toEqual(["calling", "deploy", "id", "a1", "type", "t1", "token", "model", "m1"]);
	});

	it("should throw on a cycle and on a getter that throws, as mapStrings does", () => {
		const cyclic: Record<string, unknown> = { role: "user" };
		cyclic.content = [cyclic];
		expect(() => visited(cyclic)).toThrow(/deeper than/);
		const hostile = {
			role: "assistant",
			get model(): string {
				throw new Error("no");
			},
		};
		expect(() => visited(hostile)).toThrow("no");
		expect(() => mapped(hostile)).toThrow("no");
	});
});
