/**
 * The report's ledger chart data: the rows of the request ledger (`requestLedger`, the code behind
 * `--requests`) as one bar each (cached, written and uncached tokens, recorded and modeled; the
 * prefix break and its cause), and the summary above them, or why there is no chart.
 */
import type { LedgerRow, RequestLedger } from "../ledger/ledger-types.js";
import { pageLabel, pageText } from "./page-text.js";
import type { LedgerBar, LedgerSummary } from "./report-types.js";

/** The ledger as the report is given it: the ledger itself, or why there is none. */
export type ReportLedger = RequestLedger | { why: string };

/** The summary of the chart; `why` alone when there is nothing to draw. */
export function ledgerSummary(ledger: ReportLedger | undefined): LedgerSummary {
	if (ledger === undefined) return { why: "the report was not given the session's request ledger" };
	if ("why" in ledger) return { why: pageText(ledger.why) };
	const { totals } = ledger;
	if (ledger.rows.length === 0) return { why: "the session recorded no request (no assistant message)" };
	if (totals.billed === 0) {
		return {
			why: `no request of the session (${totals.requests} in all) recorded billed usage (an older session, or a provider that omits it), so there is nothing to chart; the token figures are pi's estimate`,
		};
	}
	return {
		configuration: pageText(ledger.configuration.name),
		asSent: ledger.configuration.asSent,
		requests: totals.requests,
		billed: totals.billed,
		breaks: totals.breaks,
		expired: totals.expired,
		unexplained: totals.unexplained,
		recordedCost: totals.recorded.costMissing > 0 ? null : totals.recorded.cost,
		modeledCost: totals.modeled.costMissing > 0 ? null : totals.modeled.cost,
		counters: { recorded: ledger.counters.recorded, modeled: ledger.counters.modeled },
	};
}

/** One bar per row of the ledger, in file order (none when the summary says why there is no chart). */
export function* ledgerBars(ledger: ReportLedger | undefined): Generator<LedgerBar> {
	if (ledger === undefined || "why" in ledger || ledger.totals.billed === 0) return;
	for (const row of ledger.rows) yield barOf(row);
}

function barOf(row: LedgerRow): LedgerBar {
	const bar: LedgerBar = {
		entry: pageLabel(row.entryId, 40),
		model: row.model === null ? "" : pageLabel(row.model, 80),
		cache: row.cache,
		recorded: row.recorded === null ? null : [row.recorded.cacheRead, row.recorded.cacheWrite, row.recorded.input],
		modeled: row.modeled === null ? null : [row.modeled.cacheRead, row.modeled.cacheWrite, row.modeled.input],
		breakAt: row.prefix.breakAt,
		cause: row.prefix.cause === null ? null : pageLabel(row.prefix.cause, 80),
	};
	if (row.unexplained) bar.unexplained = true;
	return bar;
}
