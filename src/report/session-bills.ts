/**
 * What a session recorded of its bills, for the view's footer and the HTML report (the CLI's and
 * `/llm-context --html`'s): the request ledger of a session already read (no second read), and the
 * calibrated count of the request shown.
 */
import type { Message } from "@earendil-works/pi-ai";
import { calibratedCounter } from "../filters/calibrated-counter.js";
import { piModelTable, type RequestLedger, requestLedger } from "../ledger/index.js";
import type { Registry } from "../registry/types.js";
import type { ParsedSession } from "../session/index.js";
import { errorText } from "../values.js";
import { type RequestTokenFigures, tokenFigures } from "../view/token-figures.js";

/**
 * The most requests the view and the report compute the ledger for. The ledger converts every request
 * the session recorded and compares each with the one before, so its cost grows with all that was
 * sent over the session, not with the file: on the bench's 100,000-entry session (30,054 requests) it
 * made `--html` take 29.7 s and 1.19 GB instead of 5.3 s and 245 MB. Past this, the view says so and
 * the report draws no ledger chart; `--requests` has no limit.
 */
export const LEDGER_REQUESTS_SHOWN = 5_000;

/** Who shows the figures: the terminal view calibrates on the ledger, the report charts it too. */
export type BillsReader = "view" | "report";

/** The figures of the request, and the ledger they came from (`undefined` when the input has none). */
export interface BillsOfRequest {
	figures: RequestTokenFigures;
	ledger: RequestLedger | undefined;
	/** Why there is no ledger, when there is none. */
	why: string | undefined;
}

/** The session whose bills are read, or why there is none; `file` names it in the ledger's problems. */
export type BillsSource = { session: ParsedSession; file: string } | { why: string };

/**
 * The ledger of the session (as sent, or with `configuration` for what it would have cost) and
 * the figures of `output`, the request shown: pi's estimate `estimate`, the count of
 * `calibratedCounter()` taught on every bill of the session, and the last bill. Never throws: a
 * ledger that cannot be made is said in the figures' note.
 */
export async function billsOfRequest(
	source: BillsSource,
	output: readonly Message[],
	estimate: number,
	configuration: { name: string; registry: Registry } | undefined,
	reader: BillsReader,
	limit = LEDGER_REQUESTS_SHOWN,
): Promise<BillsOfRequest> {
	if ("why" in source)
		return { figures: tokenFigures(estimate, undefined, source.why), ledger: undefined, why: source.why };
	const { session, file } = source;
	const requests = assistantEntries(session.entries);
	if (requests > limit) {
		const shown = reader === "view" ? "the view calibrates on" : "the report charts";
		const why = `the session records ${requests.toLocaleString("en-US")} requests, more than ${shown} (${limit.toLocaleString("en-US")}); convert-to-llm --requests gives each one's calibrated and billed tokens`;
		return { figures: tokenFigures(estimate, undefined, why), ledger: undefined, why };
	}
	const counter = calibratedCounter();
	let ledger: RequestLedger;
	try {
		ledger = await requestLedger({ session, file }, { counter, models: piModelTable(), configuration });
	} catch (error) {
		const why = `its bills could not be read: ${errorText(error)}`;
		return { figures: tokenFigures(estimate, undefined, why), ledger: undefined, why };
	}
	const last = ledger.rows[ledger.rows.length - 1];
	const count = counter.count(output, last?.model == null ? undefined : { model: last.model });
	const figures = tokenFigures(estimate, { ledger, count });
	const why = ledger.totals.billed === 0 ? "the session recorded no billed usage" : undefined;
	return { figures, ledger, why };
}

/** How many requests the session recorded (its assistant message entries, on every branch). */
function assistantEntries(entries: readonly unknown[]): number {
	let count = 0;
	for (const entry of entries) {
		const message = (entry as { type?: unknown; message?: { role?: unknown } }).message;
		if ((entry as { type?: unknown }).type === "message" && message?.role === "assistant") count++;
	}
	return count;
}
