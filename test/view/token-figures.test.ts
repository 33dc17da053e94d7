import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { calibratedCounter } from "../../src/filters/calibrated-counter.js";
import { requestLedger } from "../../src/ledger/index.js";
import { createDefaultRegistry } from "../../src/preset.js";
import { readSession } from "../../src/session/index.js";
import { createStyle } from "../../src/view/style.js";
import { ESTIMATE_LABEL, figureLines, NO_BILL_NOTE, tokenFigures } from "../../src/view/token-figures.js";
import { DEMO, fixture, root } from "../fixtures/sessions/run-cli.js";

const style = createStyle(false);

/** The demo's ledger and the calibrated count of its request at the last entry. */
async function demoBills() {
	const text = readFileSync(`${root}/${DEMO}`, "utf8");
	const counter = calibratedCounter();
	const ledger = await requestLedger({ text }, { counter });
	const output = createDefaultRegistry().convert(readSession(text).messages);
	return { ledger, count: counter.count(output, { model: "anthropic/claude-sonnet-4-5" }) };
}

describe("tokenFigures", () => {
	it("should label each figure with its counter: pi's estimate, the calibrated count and the last bill", async () => {
		const bills = await demoBills();
		const figures = tokenFigures(1_443, bills);
		expect(figures.estimate).toEqual({ kind: "estimate", tokens: 1_443, label: ESTIMATE_LABEL });
		expect(figures.calibrated).toEqual({
			kind: "calibrated",
			tokens: bills.count.tokens,
			label: "calibrated on 5 billed requests",
		});
		// The demo's last assistant entry was billed 3,310 prompt tokens (input + cacheRead + cacheWrite).
		expect(figures.lastBilled).toMatchObject({ kind: "billed", tokens: 3_310, entryId: "a1000020" });
		expect(figures.lastBilled?.label).toContain("input + cache read + cache write");
		expect(figures.note).toBeNull();
		expect(figureLines(figures, style)).toEqual([
			`   ~${bills.count.tokens.toLocaleString("en-US")} tokens calibrated on 5 billed requests · 3,310 tokens billed for the last recorded request (entry a1000020: input + cache read + cache write)`,
		]);
	});

	it.each([
		["a history that is not a session", undefined, "the input is not a pi session"],
		["a session without usage", "pi1-system-and-edits.jsonl", "the session recorded no billed usage"],
	])(
		"should say, for %s, that the estimate is pi's chars/4 and how far below a bill it typically is",
		async (_, file, why) => {
			const bills =
				file === undefined
					? undefined
					: await (async () => {
							const text = readFileSync(`${root}/${fixture(file)}`, "utf8");
							const counter = calibratedCounter();
							const ledger = await requestLedger({ text }, { counter });
							return { ledger, count: counter.count([]) };
						})();
			const figures = tokenFigures(82, bills);
			expect(figures.calibrated).toBeNull();
			expect(figures.lastBilled).toBeNull();
			expect(figures.note).toBe(`${NO_BILL_NOTE}; no bill to calibrate on (${why})`);
			expect(figures.note).toContain("24–28% below what Claude bills");
			expect(figureLines(figures, style)).toEqual([`   ${figures.note}`]);
		},
	);
});
