/**
 * What the view and `--explain` say about `context_edit` entries (pi 1.x): which stored entry an edit
 * hid, and which message it sends with replaced content, so a user sees why a stored message is not
 * sent as stored.
 */
import type { Explanation } from "../registry/types.js";
import type { ContextEditEffect } from "../session/context-types.js";
import { label, type Style } from "./style.js";

/** `entry 1a2b3c4d (user) hidden by context_edit 5e6f7a8b`. */
export const hiddenText = (edit: ContextEditEffect): string =>
	`entry ${label(edit.targetId)} (${edit.roles.map(label).join(" + ")}) hidden by context_edit ${label(edit.editId)}`;

/** `content replaced by context_edit 5e6f7a8b`. */
export const replacedText = (edit: ContextEditEffect): string =>
	`content replaced by context_edit ${label(edit.editId)}`;

/**
 * Per history message, the edit that replaced its content. `undefined` when there is none, or when the
 * history given to `explain` no longer lines up with the session's (a `beforeConvert` tap changed it).
 */
export function replacedBy(
	edits: readonly ContextEditEffect[] | undefined,
	historyLength: number,
	explanation: Explanation,
): (ContextEditEffect | undefined)[] | undefined {
	if (edits === undefined || edits.length === 0 || explanation.messages.length !== historyLength) return undefined;
	const byIndex: (ContextEditEffect | undefined)[] = new Array(historyLength);
	for (const edit of edits) if (edit.effect === "replaced") byIndex[edit.index] = edit;
	return byIndex;
}

/** Per model message, the note for the view's header: its history message's content was replaced. */
export function editNotes(
	edits: readonly ContextEditEffect[] | undefined,
	historyLength: number,
	explanation: Explanation,
): (string | undefined)[] | undefined {
	const replaced = replacedBy(edits, historyLength, explanation);
	if (replaced === undefined) return undefined;
	const notes: (string | undefined)[] = new Array(explanation.output.length);
	for (const item of explanation.messages) {
		const edit = replaced[item.index];
		if (edit === undefined) continue;
		for (const output of item.outputs) notes[output] = replacedText(edit);
	}
	return notes;
}

/** The view's list of stored entries a `context_edit` hid: none are sent, so no block shows them. */
export function renderHidden(edits: readonly ContextEditEffect[] | undefined, style: Style): string[] {
	const hidden = edits === undefined ? [] : edits.filter((edit) => edit.effect === "hidden");
	if (hidden.length === 0) return [];
	const entries = hidden.length === 1 ? "1 stored entry" : `${hidden.length} stored entries`;
	const lines = [style.bold(`── Not sent: ${entries} hidden by context_edit (the file keeps them)`)];
	for (const edit of hidden) lines.push(`   ${style.yellow(hiddenText(edit))}`);
	return lines;
}
