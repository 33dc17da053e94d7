/**
 * The `--explain` view of `registry.explain()`: for each history message, the plugin that converted
 * it (or why it was dropped) and the outputs it became; then what each post-conversion tap changed.
 */
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { ConvertToLlmError } from "../errors.js";
import type { Explanation, MessageExplanation, TapExplanation } from "../registry/types.js";
import type { ContextEditEffect } from "../session/context-types.js";
import { isInstance, isRecord } from "../values.js";
import { type ClearedResult, clearedText } from "./cleared-view.js";
import { replacedBy, replacedText } from "./context-edit-view.js";
import { label, oneLine, type Style, shown } from "./style.js";
import type { RequestTokenFigures } from "./token-figures.js";

/**
 * The explanation as text; `entryIds[i]`, when given, is the session entry of input message `i`,
 * `edits` what the session's `context_edit` entries did (a hidden entry is listed where it would have
 * been, a replaced one says so), `problemText` a problem's text for this reader, and `cleared` the
 * tool results `clearToolResults` cleared (cleared-view.ts), each said on its history message's line.
 */
export function renderExplanation(
	explanation: Explanation,
	input: readonly AgentMessage[],
	entryIds: readonly string[] | undefined,
	style: Style,
	edits?: readonly ContextEditEffect[],
	problemText: (error: ConvertToLlmError) => string = (error) => error.message,
	cleared?: readonly (ClearedResult | undefined)[],
): string[] {
	const out: string[] = [style.bold("── Why: each history message, and what it became")];
	// A beforeConvert tap may have changed the history: then indices no longer match the entries.
	const ids = entryIds !== undefined && entryIds.length === explanation.messages.length ? entryIds : undefined;
	const labels = explanation.messages.map(roleText);
	// A loop, not Math.max(...labels): spreading 150,000 arguments overflows the stack.
	let width = 4;
	for (const label of labels) if (label.length > width) width = label.length;
	width = Math.min(24, width);
	const indexWidth = String(Math.max(0, explanation.messages.length - 1)).length;
	const replaced = ids === undefined ? undefined : replacedBy(edits, input.length, explanation);
	const hidden = ids === undefined ? [] : hiddenEdits(edits);
	let next = 0;
	const hiddenBefore = (at: number): void => {
		for (; next < hidden.length && (hidden[next] as ContextEditEffect).index <= at; next++) {
			const edit = hidden[next] as ContextEditEffect;
			const roles = (edit.roles.map(label).join(" + ") || "?").padEnd(width);
			const entry = style.dim(`entry ${label(edit.targetId)}`);
			const why = style.yellow(`hidden by context_edit ${label(edit.editId)}, not sent`);
			out.push(`   [${"-".padStart(indexWidth)}] ${roles}  ${entry}  ${why}`);
		}
	};
	for (const item of explanation.messages) {
		hiddenBefore(item.index);
		const index = `[${String(item.index).padStart(indexWidth)}]`;
		const entry = ids === undefined ? "" : `${style.dim(`entry ${label(ids[item.index] ?? "?")}`)}  `;
		const role = (labels[item.index] ?? "").padEnd(width);
		const edit = replaced?.[item.index];
		let note = edit === undefined ? "" : style.yellow(` · ${replacedText(edit)}`);
		for (const output of item.outputs) {
			const clearing = cleared?.[output];
			if (clearing !== undefined) note += style.yellow(` · #${output} ${clearedText(clearing)}`);
		}
		out.push(`   ${index} ${role}  ${entry}${fate(item, input[item.index], style, problemText)}${note}`);
		// The fate line already gives the last error as the reason for these drops; list the others.
		const listed = tellsWhy(item) ? item.errors.length - 1 : item.errors.length;
		for (let e = 0; e < listed; e++) {
			const error = item.errors[e] as ConvertToLlmError;
			out.push(`   ${" ".repeat(indexWidth + 2)} ${style.dim(`↳ ${oneLine(problemText(error))}`)}`);
		}
	}
	hiddenBefore(Number.POSITIVE_INFINITY);
	if (explanation.messages.length === 0) out.push(style.dim("   (no history messages)"));
	if (explanation.taps.length > 0) {
		out.push(style.bold("── Post-conversion hooks, in the order they ran"));
		for (const tap of explanation.taps) out.push(`   ${tapText(tap, style)}`);
	}
	const loose = unattached(explanation);
	if (loose.length > 0) {
		out.push(style.bold("── Other problems"));
		for (const error of loose) out.push(`   ${style.red(oneLine(problemText(error)))}`);
	}
	return out;
}

/** The edits that hid an entry, in history order. */
function hiddenEdits(edits: readonly ContextEditEffect[] | undefined): ContextEditEffect[] {
	const hidden: ContextEditEffect[] = [];
	if (edits !== undefined) for (const edit of edits) if (edit.effect === "hidden") hidden.push(edit);
	return hidden;
}

/** A history message's role as a label: `custom:ci-status` for a custom message, both parts cut. */
export function roleText(item: MessageExplanation): string {
	if (item.role === undefined) return "(no role)";
	return item.customType === undefined ? label(item.role) : `${label(item.role)}:${label(item.customType)}`;
}

/** Whether {@link fate} prints the message's last error as the reason it was dropped. */
const tellsWhy = (item: MessageExplanation): boolean =>
	item.errors.length > 0 &&
	(item.dropped === "unknown-role" || item.dropped === "invalid-message" || item.dropped === "converter-failed");

/** What became of one message, in words. */
function fate(
	item: MessageExplanation,
	message: AgentMessage | undefined,
	style: Style,
	problemText: (error: ConvertToLlmError) => string,
): string {
	const by = item.plugin === undefined ? "" : ` ${style.dim("by")} ${shown(item.plugin)}`;
	if (item.dropped === undefined) {
		const outputs = item.outputs.map((i) => `#${i}`).join(", ");
		return `${style.green("→")} ${outputs}${by}`;
	}
	const why = tellsWhy(item) ? `: ${oneLine(problemText(item.errors.at(-1) as ConvertToLlmError))}` : "";
	switch (item.dropped) {
		case "converter": {
			const excluded = isExcluded(message);
			if (excluded !== undefined) return `${style.yellow("dropped")}, ${excluded}${by}`;
			return `${style.yellow("dropped")}${by} (its converter returned null)`;
		}
		case "excluded":
			return `${style.yellow("dropped")}, ${excludedText(message)}${by}`;
		case "unknown-role":
			return `${style.red("dropped")}${why === "" ? ", no converter for its role" : why}`;
		case "invalid-message":
			return `${style.red("dropped")}, not an AgentMessage${why}`;
		case "converter-failed":
			return `${style.red("dropped")}, its converter failed${why}`;
		case "filtered":
			return `${style.yellow("dropped")}, removed after conversion by ${shown(item.droppedBy ?? "a post-conversion hook")}`;
		default:
			return `${style.yellow("dropped")} (${label(item.dropped)})${by}`;
	}
}

/** Why an excluded message was dropped, read from the history message; never throws (a getter may). */
function isExcluded(message: AgentMessage | undefined): string | undefined {
	try {
		if (!isRecord(message)) return undefined;
		if (!(message as { excludeFromContext?: unknown }).excludeFromContext) return undefined;
		return excludedText(message);
	} catch {
		return undefined;
	}
}

function excludedText(message: AgentMessage | undefined): string {
	try {
		return message?.role === "bashExecution" ? "excluded from context (a !! command)" : "excluded from context";
	} catch {
		return "excluded from context";
	}
}

function tapText(tap: TapExplanation, style: Style): string {
	const changes: string[] = [];
	if (tap.changed.length > 0) changes.push(`replaced ${tap.changed.map((i) => `#${i}`).join(", ")}`);
	if (tap.removed > 0) changes.push(`removed ${tap.removed}`);
	if (tap.added > 0) changes.push(`added ${tap.added}`);
	const what = changes.length === 0 ? style.dim("changed nothing") : changes.join(", ");
	return `${label(tap.hook)} ${shown(tap.plugin)}: ${what}`;
}

/** Problems not tied to one message (a failing post-conversion tap, say). */
function unattached(explanation: Explanation): ConvertToLlmError[] {
	const attached = new Set<ConvertToLlmError>();
	for (const item of explanation.messages) for (const error of item.errors) attached.add(error);
	return explanation.errors.filter((error) => !attached.has(error));
}

/**
 * The explanation as JSON: errors become plain objects with their name, code, message and fields;
 * `tokens`, when given, is added as the request's token figures, each with its `kind` and `label`.
 */
export function explanationToJson(explanation: Explanation, tokens?: RequestTokenFigures): string {
	return JSON.stringify(
		tokens === undefined ? explanation : { ...explanation, tokens },
		(_key, value: unknown) => (isInstance(value, Error) ? errorToJson(value) : value),
		2,
	);
}

function errorToJson(error: Error): Record<string, unknown> {
	const { code, role, customType, index, plugin } = error as Partial<ConvertToLlmError>;
	return { name: error.name, code, message: error.message, role, customType, index, plugin };
}
