/**
 * The literal matcher `redactSecrets` uses for many secrets, against the `indexOf` loop it stands
 * in for (the oracle): the same occurrences, for generated patterns and texts over small alphabets
 * (where patterns overlap, nest and repeat) and beyond the Basic Multilingual Plane.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LiteralMatcher, type Occurrence } from "../../src/filters/literal-matcher.js";

/** What an `indexOf` loop per pattern finds (leftmost, going on after each occurrence). */
function byIndexOf(patterns: readonly string[], text: string): Occurrence[] {
	const found: Occurrence[] = [];
	const seen = new Set<string>();
	patterns.forEach((pattern, p) => {
		if (pattern.length === 0 || seen.has(pattern)) return;
		seen.add(pattern);
		for (let at = text.indexOf(pattern); at >= 0; at = text.indexOf(pattern, at + pattern.length))
			found.push([at, at + pattern.length, p]);
	});
	return found;
}

const sorted = (list: Occurrence[]): Occurrence[] =>
	[...list].sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2]);

describe("LiteralMatcher", () => {
	it("should find what an indexOf loop per pattern finds, for any patterns and text", () => {
		const unit = fc.constantFrom("a", "b", "c", "é", "\u0301", "😀");
		const word = fc.array(unit, { minLength: 0, maxLength: 6 }).map((units) => units.join(""));
		let occurrences = 0;
		fc.assert(
			fc.property(
				fc.array(word, { minLength: 1, maxLength: 12 }),
				fc.array(unit, { maxLength: 80 }),
				(patterns, units) => {
					const text = units.join("");
					const expected = sorted(byIndexOf(patterns, text));
					occurrences += expected.length;
					expect(sorted(new LiteralMatcher(patterns).occurrences(text))).toEqual(expected);
				},
			),
			{ numRuns: 2000 },
		);
		expect(occurrences).toBeGreaterThan(1000);
	});

	it("should find thousands of secrets in one pass, each where it is", () => {
		const secrets = Array.from({ length: 5000 }, (_, i) => `ghp_${String(i).padStart(36, "x")}`);
		const text = secrets.map((secret, i) => `line ${i}: token ${secret}`).join("\n");
		const found = new LiteralMatcher(secrets).occurrences(text);
		expect(found).toHaveLength(5000);
		for (const [start, end, p] of found) expect(text.slice(start, end)).toBe(secrets[p]);
	});

	it("should find a pattern followed by a combining mark, as indexOf does", () => {
		expect(new LiteralMatcher(["abc"]).occurrences("xabc\u0301")).toEqual([[1, 4, 0]]);
	});
});
