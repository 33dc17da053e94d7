/**
 * The data of an HTML report: everything the page shows, as plain JSON, every string from the
 * history already made safe to show as text. Built from the explanation the CLI's view uses, with the
 * view's own counts (`totals()`), so the chart and the footer agree with `convert-to-llm`'s.
 */
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { Message } from "@earendil-works/pi-ai";
import type { ConvertToLlmError } from "../errors.js";
import type { Explanation, MessageExplanation } from "../registry/types.js";
import type { ContextEditEffect } from "../session/context-types.js";
import { editNotes, hiddenText } from "../view/context-edit-view.js";
import { roleText } from "../view/explain-view.js";
import { renderFooter, totals } from "../view/render.js";
import { createStyle, oneLine } from "../view/style.js";
import { isSystemMessage, systemMeta } from "../view/system-view.js";
import { type HistoryRow, historyRows, type SessionTree } from "./history-rows.js";
import { messageParts, partsText, type ReportPart } from "./message-parts.js";
import { pageLabel, pageText } from "./page-text.js";
import { type TapSnapshots, tapChanges, withoutSnapshots } from "./tap-snapshots.js";

/**
 * What a report is made of.
 *
 * Contract: `explanation` is `registry.explain(messages)` / `explainAsync(messages)` of the registry
 * the report describes; `entryIds`, `contextEdits` and `tree` come from the same session read
 * (`readSession`); `snapshots` from `observeTaps` on that registry before it explained. Every string
 * is treated as untrusted.
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
	/** Its body; left out when it reads exactly as its one output (`sameAs`), which the page then shows. */
	parts?: ReportPart[];
	sameAs?: number;
}

/** A post-conversion tap as the page shows it. */
export interface TapItem {
	hook: string;
	plugin: string;
	summary: string;
	/** The change to each message; absent when the report could not observe the taps. */
	changes?: { change: string; index: number; role: string; diff: [string, string][] }[];
}

/** The report's data, as the page reads it. */
export interface ReportData {
	title: string;
	facts: string[];
	/** The CLI's footer, as plain text. */
	footer: string[];
	totals: { messages: number; history: number; tokens: number; chars: number; images: number };
	roles: { role: string; messages: number; tokens: number }[];
	output: OutputItem[];
	history: HistoryItem[];
	rows: HistoryRow[];
	hidden: string[];
	taps: TapItem[];
	problems: string[];
}

const PLAIN = createStyle(false);

/** The data of the report of one conversion. */
export function reportData(input: ReportInput): ReportData {
	const { explanation, messages } = input;
	const output = explanation.output;
	const counts = totals(output);
	const items = outputItems(input, output, counts.charsOf);
	const roles = new Map<string, { role: string; messages: number; tokens: number }>();
	for (const item of items) {
		const role = roles.get(item.role) ?? { role: item.role, messages: 0, tokens: 0 };
		role.messages++;
		role.tokens += item.tokens;
		roles.set(item.role, role);
	}
	const edits = input.contextEdits;
	const problems: string[] = [];
	for (const problem of input.problems ?? []) problems.push(pageText(oneLine(problem)));
	const problemText = input.problemText ?? ((error: ConvertToLlmError) => error.message);
	for (const error of explanation.errors) problems.push(pageText(oneLine(problemText(error))));
	return {
		title: pageLabel(input.title, 1000),
		facts: input.facts.map((fact) => pageText(fact)),
		footer: renderFooter(counts, messages.length, PLAIN).map((line) => pageText(line)),
		totals: {
			messages: counts.messages,
			history: messages.length,
			tokens: counts.tokens,
			chars: counts.chars,
			images: counts.images,
		},
		roles: [...roles.values()],
		output: items,
		history: explanation.messages.map((item) =>
			historyItem(item, messages[item.index], input.entryIds, messages.length, items, problemText),
		),
		rows: historyRows(messages.length, input.entryIds, input.tree, edits),
		hidden: (edits ?? []).filter((edit) => edit.effect === "hidden").map((edit) => pageText(hiddenText(edit))),
		taps: tapItems(input),
		problems,
	};
}

function outputItems(input: ReportInput, output: readonly Message[], charsOf: readonly number[]): OutputItem[] {
	const { explanation } = input;
	const sources = new Array<number>(output.length).fill(-1);
	for (const item of explanation.messages) for (const o of item.outputs) sources[o] = item.index;
	const notes = editNotes(input.contextEdits, input.messages.length, explanation);
	const items: OutputItem[] = [];
	for (let i = 0; i < output.length; i++) {
		const message = output[i] as Message;
		const role = message.role === undefined ? "?" : pageLabel(message.role, 40);
		const item: OutputItem = {
			role,
			meta: metaOf(message, i),
			chars: charsOf[i] ?? 0,
			// The view's own estimate, message by message: the sum is its footer's total.
			tokens: totals([message]).tokens,
			source: sources[i] as number,
			parts: messageParts(message, message.role === "user" || message.role === "toolResult"),
		};
		const note = notes?.[i];
		if (note !== undefined) item.note = pageText(note);
		items.push(item);
	}
	return items;
}

function metaOf(message: Message, index: number): string {
	if (isSystemMessage(message)) return pageText(systemMeta(message, index === 0).join(" · "));
	if (message.role === "assistant") {
		return `${pageLabel(message.provider, 40)}/${pageLabel(message.model, 60)} · ${pageLabel(message.stopReason, 40)}`;
	}
	if (message.role === "toolResult") return `${pageLabel(message.toolName, 40)}${message.isError ? " · error" : ""}`;
	return "";
}

function historyItem(
	item: MessageExplanation,
	message: AgentMessage | undefined,
	entryIds: readonly string[] | undefined,
	count: number,
	outputs: readonly OutputItem[],
	problemText: (error: ConvertToLlmError) => string,
): HistoryItem {
	const entry = entryIds?.length === count ? entryIds[item.index] : undefined;
	const result: HistoryItem = {
		role: pageText(roleText(item)),
		fate: fateOf(item),
		outputs: item.outputs,
		errors: item.errors.map((error: ConvertToLlmError) => pageText(oneLine(problemText(error)))),
	};
	const parts = messageParts(message, false);
	const only = item.outputs.length === 1 ? outputs[item.outputs[0] as number] : undefined;
	// Most messages are sent as they are: their text is in the report once, with the output.
	if (only !== undefined && partsText(only.parts) === partsText(parts)) result.sameAs = item.outputs[0] as number;
	else result.parts = parts;
	if (entry !== undefined) result.entry = pageLabel(entry, 40);
	if (item.dropped !== undefined) result.dropped = item.dropped;
	return result;
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

function tapItems(input: ReportInput): TapItem[] {
	const taps = withoutSnapshots(input.explanation.taps);
	const changes = input.snapshots === undefined ? undefined : tapChanges(input.snapshots);
	let next = 0;
	return taps.map((tap) => {
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
		return item;
	});
}
