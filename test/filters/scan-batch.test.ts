/**
 * `scanTexts`: the findings of each text are those of the text scanned alone, whatever texts are
 * scanned with it, and no scanner call is given more than `SCAN_CHUNK` characters.
 */
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { SCAN_CHUNK, SEPARATOR, scanTexts, WINDOW, WINDOW_OVERLAP } from "../../src/filters/scan-batch.js";
import { loadSecretlint, type SecretScanner } from "../../src/filters/secret-detector.js";
import { fragmentText } from "../support/secret-fragments.js";

let secretlint: SecretScanner;
beforeAll(async () => {
	secretlint = await loadSecretlint();
});

describe("scanTexts", () => {
	it("should find in each text what it finds in the text scanned alone, whatever is scanned with it", async () => {
		await fc.assert(
			fc.asyncProperty(fc.array(fragmentText, { minLength: 1, maxLength: 8 }), async (texts) => {
				const together = await scanTexts(texts, secretlint);
				for (const text of texts) {
					const alone = await scanTexts([text], secretlint);
					expect(together.get(text) ?? []).toEqual(alone.get(text) ?? []);
				}
			}),
			{ numRuns: 150 },
		);
	}, 300_000);

	it("should scan a text alone again when a scanner's match reaches into the next one", async () => {
		// A scanner whose pattern crosses separators: what it finds across two texts is not theirs.
		const crossing: SecretScanner = async (text) =>
			[...text.matchAll(/KEY=[\s\S]{0,8}?(\w{6})/g)].map((m) => {
				const at = m.index ?? 0;
				return {
					ruleId: "crossing",
					start: at + m[0].length - 6,
					end: at + m[0].length,
					range: [at, at + m[0].length] as const,
				};
			});
		const found = await scanTexts(["x KEY=", "abcdef and KEY=ghijkl"], crossing);
		expect(found.get("x KEY=")).toBeUndefined();
		const second = "abcdef and KEY=ghijkl";
		expect(found.get(second)?.map(([s, e]) => second.slice(s, e))).toEqual(["ghijkl"]);
	});

	it("should give no call more than SCAN_CHUNK characters, and scan a long text in windows that overlap", async () => {
		const calls: string[] = [];
		const record: SecretScanner = async (text) => {
			calls.push(text);
			return [];
		};
		const long = "y".repeat(3 * WINDOW);
		await scanTexts(["short", "x".repeat(SCAN_CHUNK / 2), long], record);
		expect(Math.max(...calls.map((c) => c.length))).toBeLessThanOrEqual(SCAN_CHUNK);
		const windows = calls.filter((c) => c.includes("y"));
		const step = WINDOW - WINDOW_OVERLAP;
		expect(windows).toHaveLength(Math.ceil((long.length - WINDOW) / step) + 1);
		expect(windows.every((w) => w.startsWith(SEPARATOR))).toBe(true);
	});
});
