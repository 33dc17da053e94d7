/**
 * The body of the CLI's view of one conversion, under whatever header its caller puts above it:
 * the model messages (each with the history message it came from), the "why" section when asked,
 * the entries a `context_edit` hid, and the footer. The CLI and the pi extension's `/llm-context`
 * both print it, so they show a conversion the same way.
 */
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { ConvertToLlmError } from "../errors.js";
import type { Explanation } from "../registry/types.js";
import type { ContextEditEffect } from "../session/context-types.js";
import { type ClearedResult, clearedResults, clearedText } from "./cleared-view.js";
import type { Columns } from "./columns.js";
import { editNotes, renderHidden } from "./context-edit-view.js";
import { renderExplanation, roleText } from "./explain-view.js";
import { renderFooter, renderMessages, totals } from "./render.js";
import { label, type Style } from "./style.js";
import { figureLines, type RequestTokenFigures } from "./token-figures.js";

/** What {@link renderConversion} shows, and how. */
export interface ConversionView {
	explanation: Explanation;
	/** The history that was converted. */
	messages: readonly AgentMessage[];
	/** `entryIds[i]`: the session entry of history message `i`, when the history came from a session. */
	entryIds?: readonly string[];
	contextEdits?: readonly ContextEditEffect[];
	/** Whether to add the "why" section (`--explain`). */
	explain: boolean;
	style: Style;
	/** Columns available. */
	width: number;
	/** How lines are measured and cut: string-width's measure in the CLI, pi-tui's inside pi. */
	columns: Columns;
	/**
	 * A problem's text as the reader of this view reads it (the CLI names its `--plugin` option where
	 * the library's text names `registry.register`); the error's message by default.
	 */
	problemText?: (error: ConvertToLlmError) => string;
	/**
	 * The request's token figures with the counter of each (token-figures.ts): the footer adds the
	 * calibrated and billed ones, or says what the estimate is when there are none. Omitted: the
	 * footer gives pi's estimate only (as inside pi, which shows its own figures).
	 */
	tokens?: RequestTokenFigures;
}

/** The view's lines below its header. */
export function renderConversion(view: ConversionView): string[] {
	const { explanation, messages, entryIds, contextEdits: edits, style, width, columns } = view;
	const sources = sourcesOf(explanation, entryIds);
	const counts = totals(explanation.output);
	const cleared = clearedResults(explanation, messages);
	const notes = withCleared(editNotes(edits, messages.length, explanation), cleared);
	const lines = renderMessages(explanation.output, counts, { style, width, columns, sources, notes });
	if (view.explain) {
		lines.push("");
		const text = view.problemText;
		const why = renderExplanation(explanation, messages, entryIds, style, edits, text, cleared);
		for (const line of why) lines.push(line);
	}
	lines.push("");
	for (const line of renderHidden(edits, style)) lines.push(line);
	for (const line of renderFooter(counts, messages.length, style)) lines.push(line);
	if (view.tokens !== undefined) for (const line of figureLines(view.tokens, style)) lines.push(line);
	return lines;
}

/** The notes of each output with the clearing of each cleared tool result added. */
function withCleared(
	notes: (string | undefined)[] | undefined,
	cleared: readonly (ClearedResult | undefined)[] | undefined,
): (string | undefined)[] | undefined {
	if (cleared === undefined) return notes;
	const all: (string | undefined)[] = notes ?? new Array(cleared.length);
	for (let i = 0; i < cleared.length; i++) {
		const clearing = cleared[i];
		if (clearing === undefined) continue;
		const note = all[i];
		all[i] = note === undefined ? clearedText(clearing) : `${note} · ${clearedText(clearing)}`;
	}
	return all;
}

/** For each output, the role (and session entry) of the history message it came from. */
function sourcesOf(explanation: Explanation, ids: readonly string[] | undefined): (string | undefined)[] {
	const sources: (string | undefined)[] = [];
	const matches = ids !== undefined && ids.length === explanation.messages.length;
	for (const item of explanation.messages) {
		const role = roleText(item);
		const source = matches ? `${role} ${label(ids[item.index])}` : `${role} [${item.index}]`;
		for (const output of item.outputs) sources[output] = source;
	}
	return sources;
}
