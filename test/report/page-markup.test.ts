/**
 * The page's marks of invisible characters: found as the terminal view writes them, and found in
 * time linear in the text, whatever it holds.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { markup } from "../../src/report/page/markup.js";
import { pageText } from "../../src/report/page-text.js";

const spans = (text: string): string[] => {
	const at = markup().marks(text);
	const found: string[] = [];
	for (let i = 0; i < at.length; i += 2) found.push(text.slice(at[i], at[i + 1]));
	return found;
};

/** The shortest time of `runs` calls of `work`, in milliseconds (the least disturbed by other work). */
function fastest(work: () => unknown, runs = 7): number {
	let best = Number.POSITIVE_INFINITY;
	for (let i = 0; i < runs; i++) {
		const start = performance.now();
		work();
		best = Math.min(best, performance.now() - start);
	}
	return best;
}

describe("markup().marks", () => {
	it.each([
		["x\u202ey", ["⟨U+202E⟩"]],
		["a\u200b\u200cb", ["⟨U+200B⟩", "⟨U+200C⟩"]],
		["tag\u{E0041}", ["⟨U+E0041⟩"]],
		[`run${"\uFE0F".repeat(12)}`, ["⟨U+FE0F ×12⟩"]],
		[
			`tags${String.fromCodePoint(0xe0168)}${"\u{E0041}".repeat(38)}${String.fromCodePoint(0xe0165)}`,
			["⟨U+E0168…U+E0165 ×40⟩"],
		],
		["plain text", []],
	])("should mark what the view writes for %j", (raw, expected) => {
		expect(spans(pageText(raw))).toEqual(expected);
	});

	it("should find well-formed marks in order, one at least wherever the view marked a character (property)", () => {
		const invisible = fc.constantFrom("\u202e", "\u200b", "\u2066", "\u{E0041}", "\u2028");
		const piece = fc.oneof(fc.string({ maxLength: 8 }), invisible, fc.constant("⟨U+"), fc.constant("⟩"));
		fc.assert(
			fc.property(fc.array(piece, { maxLength: 30 }), (pieces) => {
				const raw = pieces.join("");
				const text = pageText(raw);
				const at = markup().marks(text);
				for (let i = 0; i < at.length; i += 2) {
					expect(at[i]).toBeLessThan(at[i + 1] as number);
					if (i > 0) expect(at[i]).toBeGreaterThanOrEqual(at[i - 1] as number);
					expect(text.slice(at[i], at[i + 1])).toMatch(/^⟨U\+[0-9A-F]{4,6}(…U\+[0-9A-F]{4,6})?( ×[\d,]+)?⟩$/u);
				}
				if (/[\u202e\u200b\u2066\u2028]|\u{E0041}/u.test(raw)) expect(at.length).toBeGreaterThan(0);
			}),
		);
	});

	it("should take time linear in the text: many ⟨U+ and one late ⟩, n against 4n", () => {
		const crafted = (n: number): string => `${"⟨U+".repeat(n)}${"x".repeat(10)}⟩`;
		const m = markup();
		const small = crafted(100_000);
		const large = crafted(400_000);
		m.marks(small);
		const ratio =
			fastest(() => m.marks(large)) /
			Math.max(
				0.1,
				fastest(() => m.marks(small)),
			);
		// Linear: about 4; the quadratic scan it replaces: about 16.
		expect(ratio).toBeLessThan(10);
		expect(m.marks(large)).toEqual([]);
	});
});
