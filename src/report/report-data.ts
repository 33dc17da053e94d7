/**
 * The data of an HTML report: everything the page shows, as plain JSON, every string from the
 * history already made safe to show as text. Built from the explanation the CLI's view uses, with the
 * view's own counts (`totals()`), so the chart and the footer agree with `convert-to-llm`'s. The long
 * lists are made one item at a time, as the writer asks for them, so the report is never held whole.
 */
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { Message } from "@earendil-works/pi-ai";
import type { ConvertToLlmError } from "../errors.js";
import type { Explanation, MessageExplanation } from "../registry/types.js";
import type { ContextEditEffect } from "../session/context-types.js";
import { clearedResults, clearedText } from "../view/cleared-view.js";
import { editNotes, hiddenText } from "../view/context-edit-view.js";
import { roleText } from "../view/explain-view.js";
import { renderFooter, totals } from "../view/render.js";
import { createStyle, oneLine } from "../view/style.js";
import { isSystemMessage, systemMeta } from "../view/system-view.js";
import { figureLines, type RequestTokenFigures, tokenFigures } from "../view/token-figures.js";
import { changeMarks } from "./change-marks.js";
import { historyRows, type SessionTree } from "./history-rows.js";
import { ledgerBars, ledgerSummary, type ReportLedger } from "./ledger-bars.js";
import { messageParts, partsText } from "./message-parts.js";
import { pageLabel, pageText } from "./page-text.js";
import type {
	ContextWindow,
	HistoryItem,
	HistoryRow,
	LedgerBar,
	OutputItem,
	ReportData,
	ReportHead,
	ReportPart,
	TapItem,
	TextPass,
	TokenFiguresItem,
} from "./report-types.js";
import { type TapSnapshots, tapChanges, withoutSnapshots } from "./tap-snapshots.js";

export type { HistoryItem, OutputItem, ReportData, TapItem } from "./report-types.js";

/**
 * What a report is made of.
 *
 * Contract: `explanation` is `registry.explain(messages)` / `explainAsync(messages)` of the registry
 * the report describes; `entryIds`, `contextEdits` and `tree` come from the same session read (any
 * reader: the report only reads these values); `snapshots` from `observeTaps` on that registry before
 * it explained. Every string is treated as untrusted.
 *
 * @example
 * const data = reportData({ title: "session.jsonl", facts: [], messages, explanation });
 */
export interface ReportInput {
	title: string;
	/** Lines under the title (the CLI's header: the session, the leaf, the plugins). */
	facts: readonly string[];
	messages: readonly AgentMessage[];
	explanation: Explanation;
	entryIds?: readonly string[] | undefined;
	contextEdits?: readonly ContextEditEffect[] | undefined;
	tree?: SessionTree | undefined;
	snapshots?: TapSnapshots | undefined;
	/** Problems met before converting (skipped lines): shown with the conversion's. */
	problems?: readonly string[] | undefined;
	/** A conversion problem's text for the page's reader (the CLI's names `--plugin`); its message by default. */
	problemText?: ((error: ConvertToLlmError) => string) | undefined;
	/** The model's context window for the chart's line (see context-window.ts); none said by default. */
	window?: ContextWindow | undefined;
	/**
	 * The request's token figures (the view's, src/view/token-figures.ts); by default pi's estimate
	 * alone, with the note that nothing calibrated it.
	 */
	tokens?: RequestTokenFigures | undefined;
	/** The session's request ledger for the ledger chart (`requestLedger`), or why there is none. */
	ledger?: ReportLedger | undefined;
}

/** A report's data as the writer reads it: the head, and each list made afresh, one item at a time, when asked. */
export interface ReportSource {
	head: ReportHead;
	output(): Iterable<OutputItem>;
	history(): Iterable<HistoryItem>;
	rows(): Iterable<HistoryRow>;
	taps(): Iterable<TapItem>;
	requests(): Iterable<LedgerBar>;
}

const PLAIN = createStyle(false);
const unchanged: TextPass = (text) => text;

/** The report of one conversion, ready to be written; `pass` sees whole texts before they are cut. */
export function reportSource(input: ReportInput, pass: TextPass = unchanged): ReportSource {
	const { explanation, messages } = input;
	const output = explanation.output;
	const counts = totals(output);
	const roles = new Map<string, { role: string; messages: number; tokens: number }>();
	const tokensOf = new Array<number>(output.length);
	for (let i = 0; i < output.length; i++) {
		const message = output[i] as Message;
		// The view's own estimate, message by message: the sum is its footer's total.
		const tokens = totals([message]).tokens;
		tokensOf[i] = tokens;
		const name = message.role === undefined ? "?" : pageLabel(message.role, 40);
		const role = roles.get(name) ?? { role: name, messages: 0, tokens: 0 };
		role.messages++;
		role.tokens += tokens;
		roles.set(name, role);
	}
	const figures =
		input.tokens ?? tokenFigures(counts.tokens, undefined, "the report was not given the session's bills");
	const problems: string[] = [];
	for (const problem of input.problems ?? []) problems.push(pageText(oneLine(problem)));
	const problemText = input.problemText ?? ((error: ConvertToLlmError) => error.message);
	for (const error of explanation.errors) problems.push(pageText(oneLine(problemText(error))));
	const head: ReportHead = {
		title: pageLabel(input.title, 1000),
		facts: input.facts.map((fact) => pageText(fact)),
		footer: [...renderFooter(counts, messages.length, PLAIN), ...figureLines(figures, PLAIN)].map((line) =>
			pageText(line),
		),
		totals: {
			messages: counts.messages,
			history: messages.length,
			tokens: counts.tokens,
			chars: counts.chars,
			images: counts.images,
		},
		roles: [...roles.values()],
		window: windowShown(input.window),
		tokens: figuresShown(figures),
		ledger: ledgerSummary(input.ledger),
		hidden: (input.contextEdits ?? [])
			.filter((edit) => edit.effect === "hidden")
			.map((edit) => pageText(hiddenText(edit))),
		problems,
	};
	const taps = withoutSnapshots(explanation.taps);
	const marks = changeMarks(explanation, taps, input.snapshots);
	return {
		head,
		output: () => outputItems(input, counts.charsOf, tokensOf, marks),
		history: () => historyItems(input, problemText),
		rows: () => historyRows(messages.length, input.entryIds, input.tree, input.contextEdits, pass),
		taps: () => tapItems(input, pass),
		requests: () => ledgerBars(input.ledger),
	};
}

/** The token figures with their labels made safe to show (an entry id comes from the history). */
function figuresShown(figures: RequestTokenFigures): TokenFiguresItem {
	const shown = (figure: RequestTokenFigures["estimate"] | null) =>
		figure === null ? null : { kind: figure.kind, tokens: figure.tokens, label: pageText(figure.label) };
	return {
		estimate: shown(figures.estimate) as TokenFiguresItem["estimate"],
		calibrated: shown(figures.calibrated),
		lastBilled: shown(figures.lastBilled),
		note: figures.note === null ? null : pageText(figures.note),
	};
}

/** The context window with its names made safe to show (a model's name comes from the history). */
function windowShown(window: ContextWindow | undefined): ContextWindow {
	if (window === undefined) return { why: "the report was not told the model's context window" };
	const shown: ContextWindow = {};
	if (window.tokens !== undefined) shown.tokens = window.tokens;
	if (window.model !== undefined) shown.model = pageLabel(window.model, 120);
	if (window.source !== undefined) shown.source = pageLabel(window.source, 120);
	if (window.why !== undefined) shown.why = pageText(oneLine(window.why));
	return shown;
}

/** The whole data at once (tests, small reports); the writer reads a {@link ReportSource} instead. */
export function reportData(input: ReportInput): ReportData {
	const source = reportSource(input);
	return {
		...source.head,
		output: [...source.output()],
		history: [...source.history()],
		rows: [...source.rows()],
		taps: [...source.taps()],
		requests: [...source.requests()],
	};
}

const sendsImages = (message: unknown): boolean => {
	const role = (message as { role?: unknown } | null)?.role;
	return role === "user" || role === "toolResult";
};

/** The parts a model message shows (a history message of a model role shows the same). */
const outputParts = (message: unknown): ReportPart[] => messageParts(message, sendsImages(message));

function* outputItems(
	input: ReportInput,
	charsOf: readonly number[],
	tokensOf: readonly number[],
	marks: readonly (string[] | undefined)[],
): Generator<OutputItem> {
	const { explanation } = input;
	const output = explanation.output;
	const sources = new Array<number>(output.length).fill(-1);
	for (const item of explanation.messages) for (const o of item.outputs) sources[o] = item.index;
	const notes = editNotes(input.contextEdits, input.messages.length, explanation);
	const cleared = clearedResults(explanation, input.messages);
	for (let i = 0; i < output.length; i++) {
		const message = output[i] as Message;
		const item: OutputItem = {
			role: message.role === undefined ? "?" : pageLabel(message.role, 40),
			meta: metaOf(message, i),
			chars: charsOf[i] ?? 0,
			tokens: tokensOf[i] ?? 0,
			source: sources[i] as number,
			parts: outputParts(message),
		};
		const note = notes?.[i];
		if (note !== undefined) item.note = pageText(note);
		const changedBy = marks[i];
		if (changedBy !== undefined) item.changedBy = changedBy.map((plugin) => pageLabel(plugin, 80));
		const clearing = cleared?.[i];
		if (clearing !== undefined) {
			item.cleared = pageText(clearedText(clearing));
			// Marked as changed by its plugin, whether or not the report observed the taps.
			if (item.changedBy === undefined) item.changedBy = [pageLabel(clearing.plugin, 80)];
			else if (!item.changedBy.includes(clearing.plugin)) item.changedBy.push(pageLabel(clearing.plugin, 80));
		}
		yield item;
	}
}

function metaOf(message: Message, index: number): string {
	if (isSystemMessage(message)) return pageText(systemMeta(message, index === 0).join(" · "));
	if (message.role === "assistant") {
		return `${pageLabel(message.provider, 40)}/${pageLabel(message.model, 60)} · ${pageLabel(message.stopReason, 40)}`;
	}
	if (message.role === "toolResult") return `${pageLabel(message.toolName, 40)}${message.isError ? " · error" : ""}`;
	return "";
}

function* historyItems(input: ReportInput, problemText: (error: ConvertToLlmError) => string): Generator<HistoryItem> {
	const { explanation, messages, entryIds } = input;
	const output = explanation.output;
	const count = messages.length;
	for (const item of explanation.messages) {
		const message = messages[item.index];
		const entry = entryIds?.length === count ? entryIds[item.index] : undefined;
		const result: HistoryItem = {
			role: pageText(roleText(item)),
			fate: fateOf(item),
			outputs: item.outputs,
			errors: item.errors.map((error: ConvertToLlmError) => pageText(oneLine(problemText(error)))),
		};
		if (entry !== undefined) result.entry = pageLabel(entry, 40);
		if (item.dropped !== undefined) result.dropped = item.dropped;
		const only = item.outputs.length === 1 ? (item.outputs[0] as number) : -1;
		// Most messages are sent as they are (the very object): their text is in the report once, with
		// the output; so is the text of one framed as it is sent (a bash run).
		if (only >= 0 && output[only] === message) result.sameAs = only;
		else {
			const parts = outputParts(message);
			const sent = only >= 0 ? partsText(outputParts(output[only])) : undefined;
			if (sent !== undefined && sent === partsText(parts)) result.sameAs = only;
			else if (sent !== undefined && parts.length > 0 && parts.every((part) => inText(part, sent))) {
				result.within = only;
			} else result.parts = parts;
		}
		yield result;
	}
}

/** Whether the text of `part` (a bash run's `$ command` without its `$ `) is in `text`; never an image. */
function inText(part: ReportPart, text: string): boolean {
	if (part.src !== undefined || part.kind === "image") return false;
	const own = part.kind === "tool" && part.text.startsWith("$ ") ? part.text.slice(2) : part.text;
	return own === "" || text.includes(own);
}

/** What became of a history message, in the words of the `--explain` view. */
function fateOf(item: MessageExplanation): string {
	const by = item.plugin === undefined ? "" : ` by ${pageLabel(item.plugin, 80)}`;
	switch (item.dropped) {
		case undefined:
			return `sent${by}`;
		case "converter":
			return `dropped${by} (its converter returned null)`;
		case "excluded":
			return `dropped, excluded from context${by}`;
		case "unknown-role":
			return "dropped, no converter for its role";
		case "invalid-message":
			return "dropped, not an AgentMessage";
		case "converter-failed":
			return `dropped, its converter failed${by}`;
		case "filtered":
			return `dropped, removed after conversion by ${pageLabel(item.droppedBy ?? "a post-conversion hook", 80)}`;
		default:
			return `dropped (${pageLabel(item.dropped, 40)})${by}`;
	}
}

function* tapItems(input: ReportInput, pass: TextPass): Generator<TapItem> {
	const taps = withoutSnapshots(input.explanation.taps);
	const changes = input.snapshots === undefined ? undefined : tapChanges(input.snapshots, pass);
	let next = 0;
	for (const tap of taps) {
		const what: string[] = [];
		if (tap.changed.length > 0) what.push(`replaced ${tap.changed.map((i) => `#${i}`).join(", ")}`);
		if (tap.removed > 0) what.push(`removed ${tap.removed}`);
		if (tap.added > 0) what.push(`added ${tap.added}`);
		const item: TapItem = {
			hook: tap.hook,
			plugin: pageLabel(tap.plugin, 80),
			summary: what.length === 0 ? "changed nothing" : what.join(", "),
		};
		// The output check is not a tap: the snapshots have no step for it.
		const observed = changes?.[next];
		if (observed !== undefined && observed.plugin === tap.plugin && observed.hook === tap.hook) {
			next++;
			item.changes = observed.changes.map((c) => ({
				change: c.change,
				index: c.index,
				role: pageLabel(c.role, 40),
				diff: c.diff.map((line): [string, string] => [line.op, line.text]),
			}));
		}
		yield item;
	}
}
