/**
 * The token figures of the request a view shows, each with the counter that made it: pi's chars/4
 * estimate, the count calibrated on the session's bills, and the last request the session was billed
 * for. One source for the CLI's footer, `--explain --json` and the HTML report's header.
 */
import type { TokenCount } from "../filters/calibrated-counter.js";
import type { RequestLedger } from "../ledger/ledger-types.js";
import { format } from "./render.js";
import { type Style, label as shownLabel } from "./style.js";

/**
 * One token figure and what made it.
 *
 * Contract: `kind` names the counter (`"estimate"` pi's chars/4, `"calibrated"` `calibratedCounter()`
 * taught on the session's bills, `"billed"` a bill the session recorded: `input + cacheRead +
 * cacheWrite`); `label` says it in words, to print beside `tokens`; `entryId` is the assistant entry
 * of a billed figure.
 *
 * @example
 * console.log(`~${figure.tokens} tokens (${figure.label})`);
 */
export interface TokenFigure {
	kind: "estimate" | "calibrated" | "billed";
	tokens: number;
	label: string;
	entryId?: string;
}

/**
 * The figures of one request.
 *
 * Contract: `estimate` is always there (the view's own count: chars/4 as pi estimates, 1,200 per
 * image, tool schemas as JSON); `calibrated` and `lastBilled` only when the session recorded bills;
 * `note` says how the estimate compares with a bill when there is none to calibrate on, or why the
 * calibrated count fell back.
 */
export interface RequestTokenFigures {
	estimate: TokenFigure;
	calibrated: TokenFigure | null;
	lastBilled: TokenFigure | null;
	note: string | null;
}

/** What the session's bills say, for {@link tokenFigures}: the ledger and the counter's count of the request. */
export interface SessionBills {
	ledger: RequestLedger;
	count: TokenCount;
}

/** The label of the view's own estimate. */
export const ESTIMATE_LABEL = "pi estimate: chars/4, 1,200 per image";

/** What the estimate is when nothing calibrates it (docs/filters.md, "estimateTokens", measured on two recorded sessions). */
export const NO_BILL_NOTE =
	"pi's chars/4 estimate only: typically 24–28% below what Claude bills (median on two recorded pi sessions, docs/filters.md)";

/**
 * The figures of a request whose view estimate is `estimate`; `bills` when the input was a session
 * (`undefined` for a history that is not one, or when its bills could not be read: `why` says so).
 */
export function tokenFigures(estimate: number, bills: SessionBills | undefined, why?: string): RequestTokenFigures {
	const figures: RequestTokenFigures = {
		estimate: { kind: "estimate", tokens: estimate, label: ESTIMATE_LABEL },
		calibrated: null,
		lastBilled: null,
		note: null,
	};
	const billed = bills === undefined ? 0 : bills.ledger.totals.billed;
	if (bills === undefined || billed === 0) {
		const reason =
			why ?? (bills === undefined ? "the input is not a pi session" : "the session recorded no billed usage");
		figures.note = `${NO_BILL_NOTE}; no bill to calibrate on (${reason})`;
		return figures;
	}
	const { count, ledger } = bills;
	if (count.kind === "calibrated")
		figures.calibrated = { kind: "calibrated", tokens: count.tokens, label: count.label };
	else figures.note = `${NO_BILL_NOTE}; not calibrated: ${count.fallback ?? "the counter gave pi's estimate"}`;
	for (let r = ledger.rows.length - 1; r >= 0; r--) {
		const row = ledger.rows[r];
		if (row === undefined || row.recorded === null) continue;
		const { input, cacheRead, cacheWrite } = row.recorded;
		figures.lastBilled = {
			kind: "billed",
			tokens: input + cacheRead + cacheWrite,
			label: `billed for the last recorded request (entry ${shownLabel(row.entryId)}: input + cache read + cache write)`,
			entryId: row.entryId,
		};
		break;
	}
	return figures;
}

/** The footer line of the calibrated and billed figures, or the note when there are none. */
export function figureLines(figures: RequestTokenFigures, style: Style): string[] {
	const parts: string[] = [];
	const { calibrated, lastBilled, note } = figures;
	if (calibrated !== null) parts.push(`~${format(calibrated.tokens)} tokens ${calibrated.label}`);
	if (lastBilled !== null) parts.push(`${format(lastBilled.tokens)} tokens ${lastBilled.label}`);
	const lines: string[] = [];
	if (parts.length > 0) lines.push(`   ${parts.join(" · ")}`);
	if (note !== null) lines.push(`   ${style.dim(note)}`);
	return lines;
}
