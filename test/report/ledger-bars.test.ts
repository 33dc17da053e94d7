import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { requestLedger } from "../../src/ledger/index.js";
import { ledgerBars, ledgerSummary } from "../../src/report/ledger-bars.js";
import { DEMO, fixture, root } from "../fixtures/sessions/run-cli.js";

const ledgerOf = async (file: string) => requestLedger({ text: readFileSync(`${root}/${file}`, "utf8") });

describe("ledgerBars", () => {
	it("should make one bar per request of the ledger: cached, written and uncached tokens, recorded and modeled, and each break's cause", async () => {
		const ledger = await ledgerOf(DEMO);
		const bars = [...ledgerBars(ledger)];
		expect(bars).toHaveLength(ledger.rows.length);
		for (const [i, bar] of bars.entries()) {
			const row = ledger.rows[i];
			expect(bar.entry).toBe(row?.entryId);
			expect(bar.recorded).toEqual(
				row?.recorded && [row.recorded.cacheRead, row.recorded.cacheWrite, row.recorded.input],
			);
			// As sent, the model is the bill.
			expect(bar.modeled).toEqual(bar.recorded);
			expect(bar.breakAt).toBe(row?.prefix.breakAt);
			expect(bar.cause).toBe(row?.prefix.cause);
		}
		expect(bars.filter((bar) => bar.cause !== null).map((bar) => bar.cause)).toEqual(["compaction", "branch"]);
	});

	it("should make no bar, and say why, for a session without usage, a ledger not given or a reason given", async () => {
		const plain = await ledgerOf(fixture("pi1-system-and-edits.jsonl"));
		expect([...ledgerBars(plain)]).toEqual([]);
		expect(ledgerSummary(plain).why).toMatch(/^no request of the session \(1 in all\) recorded billed usage/);
		expect(ledgerSummary(undefined).why).toBe("the report was not given the session's request ledger");
		expect(ledgerSummary({ why: "the input is not a pi session" })).toEqual({ why: "the input is not a pi session" });
		expect([...ledgerBars({ why: "x" })]).toEqual([]);
	});

	it("should sum the summary as the ledger's totals", async () => {
		const ledger = await ledgerOf(DEMO);
		const summary = ledgerSummary(ledger);
		expect(summary).toMatchObject({
			asSent: true,
			requests: ledger.totals.requests,
			billed: ledger.totals.billed,
			breaks: ledger.totals.breaks,
			unexplained: ledger.totals.unexplained,
		});
		expect(summary.why).toBeUndefined();
	});
});
