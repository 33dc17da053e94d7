/**
 * `escapeSummaries` in linear time. Before, `<` followed by a whitespace run
 * backtracked O(n²) (`\s*\/?\s*` tries every split of the run): a 100 KB summary cost 12.7 s on every
 * conversion. Each adversarial summary here is 1 MB and must escape within a generous multiple of a
 * plain 1 MB summary that the same pattern scans, measured as a ratio of the best of several runs,
 * never against the wall clock. A quadratic pattern is caught at 32 KB first, where it costs about
 * half a second, so that a regression fails instead of hanging the run for minutes.
 */
import { describe, expect, it } from "vitest";
import { type EscapedTags, escapeSummaryText } from "../../src/hooks/index.js";

const MB = 1 << 20;

/** The best of `runs` timings of `fn`, in milliseconds (the least disturbed by the shared machine). */
function best(fn: () => void, runs = 7): number {
	let fastest = Number.POSITIVE_INFINITY;
	for (let i = 0; i < runs; i++) {
		const start = performance.now();
		fn();
		fastest = Math.min(fastest, performance.now() - start);
	}
	return Math.max(fastest, 0.01);
}

/** `unit` repeated to `size` characters. */
const fill = (unit: string, size: number): string => unit.repeat(Math.ceil(size / unit.length)).slice(0, size);

const adversarial: { kind: string; make: (size: number) => string }[] = [
	{ kind: "`<` and one whitespace run", make: (size) => `<${" ".repeat(size - 1)}` },
	{ kind: "`< /` and one whitespace run", make: (size) => `< /${" ".repeat(size - 3)}` },
	{ kind: "`<` and mixed whitespace (tabs, line breaks)", make: (size) => `<${fill(" \t\n\r", size - 1)}` },
	{ kind: "many `<` with 1,000 spaces each", make: (size) => fill(`<${" ".repeat(999)}`, size) },
	{ kind: "`<` and spaces before a near-miss name", make: (size) => `<${" ".repeat(size - 9)}summar y` },
];

/** A plain summary: prose with comparisons, generics and real tags, which the pattern does scan. */
const plain = (size: number): string => fill("Tried X; a < b holds, Map<string, number> </summary> then Y.\n", size);

const variants: { kind: string; tags: EscapedTags }[] = [
	{ kind: "summary only", tags: [] },
	{ kind: "named tags", tags: ["system", "instructions"] },
	{ kind: '"all"', tags: "all" },
];

describe.each(variants)("escapeSummaryText with tags $kind: linear time", ({ tags }) => {
	it.each(adversarial)("should escape $kind at 1 MB within 25x a plain 1 MB summary", ({ make }) => {
		// A quadratic pattern fails here, at 32 KB, in about a second rather than hanging at 1 MB.
		const small = make(32 * 1024);
		expect(best(() => escapeSummaryText(small, tags), 3)).toBeLessThan(250);
		const text = make(MB);
		const baseline = plain(MB);
		const ratio = best(() => escapeSummaryText(text, tags)) / best(() => escapeSummaryText(baseline, tags));
		expect(ratio).toBeLessThan(25);
	});

	it("should escape the adversarial text as before: only the spaced `summary` tag is touched", () => {
		expect(escapeSummaryText(`<${" ".repeat(10)}`, tags)).toBe(`<${" ".repeat(10)}`);
		expect(escapeSummaryText(`< \n /  summary >`, tags)).toBe("&lt; \n /  summary &gt;");
	});
});
