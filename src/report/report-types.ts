/**
 * The shapes of a report's data: what the writer puts in the page's JSON blocks and what the page's
 * script reads back (src/report/page/ imports these types only). Plain JSON, no functions; every
 * string is already made safe to show as text.
 */

/** One part of a message's body. */
export interface ReportPart {
	kind: "text" | "thinking" | "tool" | "image" | "section" | "note" | "error";
	/** What to show, safe as text. */
	text: string;
	/** For an image the report can show: its `data:` URI (an allowed image type, base64 only). */
	src?: string;
}

/** A model message as the page shows it. */
export interface OutputItem {
	role: string;
	meta: string;
	chars: number;
	tokens: number;
	/** The history message it came from, or -1 (made by a post-conversion hook). */
	source: number;
	note?: string;
	/** The post-conversion hooks that changed it, by plugin name, in the order they ran. */
	changedBy?: string[];
	/** For a tool result `clearToolResults` cleared: by which plugin, and its size in the history. */
	cleared?: string;
	parts: ReportPart[];
}

/** A history message as the page shows it. */
export interface HistoryItem {
	role: string;
	entry?: string;
	/** What became of it, in words. */
	fate: string;
	outputs: number[];
	dropped?: string;
	errors: string[];
	/**
	 * Its body; left out when it reads exactly as its one output (`sameAs`), or when every part of
	 * it is in the text of its one output (`within`, a bash run framed as pi sends it): the page then
	 * points at that output, beside it.
	 */
	parts?: ReportPart[];
	sameAs?: number;
	within?: number;
}

/** One row of the history column: an entry of the session's path, or a history message. */
export interface HistoryRow {
	/** The entry's id and type (none for a history that is not a session). */
	entry?: string;
	type?: string;
	/** What the entry is, when it is not a message (`model_change anthropic/claude-sonnet-4-5`). */
	text?: string;
	/** How many children the entry has, when the tree branches there. */
	branches?: number;
	/** Why a message entry sent nothing (hidden by a `context_edit`, before the compaction's kept part). */
	state?: string;
	/** Set on a compaction or a branch summary. */
	mark?: string;
	/** The history messages it contributed, by index. */
	history: number[];
}

/** A post-conversion tap as the page shows it. */
export interface TapItem {
	hook: string;
	plugin: string;
	summary: string;
	/** The change to each message; absent when the report could not observe the taps. */
	changes?: { change: string; index: number; role: string; diff: [string, string][] }[];
}

/**
 * The context window the chart draws a line at: the model's, from pi-ai's model table (or pi's
 * current model in `/llm-context`), or why there is none.
 *
 * Contract: either `tokens` (> 0) and `source` (where the figure comes from) are set, or `why`.
 */
export interface ContextWindow {
	tokens?: number;
	/** `provider/model`. */
	model?: string;
	source?: string;
	why?: string;
}

/** A token figure of the request, with the counter that made it (the view's `TokenFigure`). */
export interface TokenFigureItem {
	kind: "estimate" | "calibrated" | "billed";
	tokens: number;
	label: string;
}

/**
 * The request's token figures: pi's estimate always, the calibrated count and the last bill when the
 * session recorded bills, else `note` says what the estimate is.
 */
export interface TokenFiguresItem {
	estimate: TokenFigureItem;
	calibrated: TokenFigureItem | null;
	lastBilled: TokenFigureItem | null;
	note: string | null;
}

/**
 * What the ledger chart says above its bars: the configuration, the counts and the costs; or, alone,
 * `why` there is no chart (no session, no billed usage).
 */
export interface LedgerSummary {
	why?: string;
	configuration?: string;
	/** Whether the rows convert as the session was sent (modeled then equals recorded). */
	asSent?: boolean;
	requests?: number;
	billed?: number;
	breaks?: number;
	expired?: number;
	unexplained?: number;
	/** USD, `null` when a cost is missing from a row. */
	recordedCost?: number | null;
	modeledCost?: number | null;
	counters?: { recorded: string; modeled: string };
}

/**
 * One request of the ledger as the chart draws it: `[cacheRead, cacheWrite, input]` tokens recorded
 * (the bill) and modeled (the configuration), `null` without a bill; the prefix break and its cause.
 */
export interface LedgerBar {
	entry: string;
	model: string;
	cache: string;
	recorded: [number, number, number] | null;
	modeled: [number, number, number] | null;
	breakAt: number | null;
	cause: string | null;
	unexplained?: boolean;
}

/** Everything of the report but its long lists: the page's first data block. */
export interface ReportHead {
	title: string;
	facts: string[];
	/** The CLI's footer, as plain text. */
	footer: string[];
	totals: { messages: number; history: number; tokens: number; chars: number; images: number };
	roles: { role: string; messages: number; tokens: number }[];
	window: ContextWindow;
	/** The request's token figures, each with its counter. */
	tokens: TokenFiguresItem;
	ledger: LedgerSummary;
	hidden: string[];
	problems: string[];
}

/** The report's data as the page holds it once every block is read. */
export interface ReportData extends ReportHead {
	output: OutputItem[];
	history: HistoryItem[];
	rows: HistoryRow[];
	taps: TapItem[];
	requests: LedgerBar[];
}

/** The lists of a report, each written in blocks after the head. */
export type ReportList = "output" | "history" | "rows" | "taps" | "requests";

/**
 * Passes a text on its way into the report; the redaction (report-redaction.ts) replaces secrets in
 * it. It sees every string the report holds (the writer gives it each one) and, before a text is cut
 * for a preview or split into a diff's lines, the whole text.
 */
export type TextPass = (text: string) => string;
