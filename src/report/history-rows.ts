/**
 * The history column of the report: the entries on the session's path from its root to the leaf, in
 * order, each with the history messages it contributed; an entry where the tree branches, a
 * compaction and what it summarized, and an entry a `context_edit` hid are marked. Without a session
 * (a JSON history) each history message is a row of its own.
 */
import type { ContextEditEffect, SessionEntry, SessionTree } from "../session/index.js";
import { messageParts, partsText } from "./message-parts.js";
import { pageLabel } from "./page-text.js";
import type { HistoryRow, TextPass } from "./report-types.js";

export type { HistoryRow } from "./report-types.js";

/** The session's entries (every branch, as read) and the leaf the report was made for: the session reader's `tree`. */
export type { SessionTree };

/** The rows, one at a time: the path's entries when `tree` is given and matches `entryIds`, else one per message. */
export function* historyRows(
	count: number,
	entryIds: readonly string[] | undefined,
	tree: SessionTree | undefined,
	edits: readonly ContextEditEffect[] | undefined,
	pass: TextPass,
): Generator<HistoryRow> {
	if (tree === undefined || entryIds === undefined || entryIds.length !== count) {
		for (let i = 0; i < count; i++) {
			const entry = entryIds?.length === count ? entryIds[i] : undefined;
			yield entry === undefined ? { history: [i] } : { entry: pageLabel(entry, 40), history: [i] };
		}
		return;
	}
	const byEntry = new Map<string, number[]>();
	for (let i = 0; i < entryIds.length; i++) {
		const id = entryIds[i] as string;
		const list = byEntry.get(id);
		if (list === undefined) byEntry.set(id, [i]);
		else list.push(i);
	}
	const hidden = new Map<string, string>();
	const replaced = new Map<string, string>();
	for (const edit of edits ?? []) (edit.effect === "hidden" ? hidden : replaced).set(edit.targetId, edit.editId);
	const path = pathOf(tree);
	const children = childCounts(tree.session.entries);
	let compactionAt = -1;
	for (let p = 0; p < path.length; p++) if ((path[p] as SessionEntry).type === "compaction") compactionAt = p;
	const covered = new Set<number>();
	for (let p = 0; p < path.length; p++) {
		const entry = path[p] as SessionEntry;
		const history = byEntry.get(entry.id) ?? [];
		for (const i of history) covered.add(i);
		const row: HistoryRow = { entry: pageLabel(entry.id, 40), type: pageLabel(entry.type, 40), history };
		const text = describeEntry(entry, pass);
		if (text !== undefined) row.text = text;
		const branches = children.get(entry.id) ?? 0;
		if (branches > 1) row.branches = branches;
		if (entry.type === "compaction") row.mark = "compaction";
		if (entry.type === "branch_summary") row.mark = "branch summary";
		if (history.length === 0 && isMessageEntry(entry)) {
			row.state = stateOf(entry, hidden, p < compactionAt);
			row.text = preview(entry, pass);
		}
		const edit = replaced.get(entry.id);
		if (edit !== undefined)
			row.text = `as stored (context_edit ${pageLabel(edit, 40)} replaced it) ${preview(entry, pass)}`;
		yield row;
	}
	// Every history message has a row, whatever the tree says.
	for (let i = 0; i < count; i++) if (!covered.has(i)) yield { entry: pageLabel(entryIds[i], 40), history: [i] };
}

/** The entries from the root to the leaf; a cycle or a missing parent ends the walk. */
function pathOf(tree: SessionTree): SessionEntry[] {
	if (tree.leafId === null) return [];
	const byId = new Map<string, SessionEntry>();
	for (const entry of tree.session.entries) byId.set(entry.id, entry);
	const path: SessionEntry[] = [];
	const seen = new Set<string>();
	for (let entry = byId.get(tree.leafId); entry !== undefined && !seen.has(entry.id); ) {
		seen.add(entry.id);
		path.push(entry);
		entry = entry.parentId === null ? undefined : byId.get(entry.parentId);
	}
	return path.reverse();
}

function childCounts(entries: readonly SessionEntry[]): Map<string, number> {
	const counts = new Map<string, number>();
	for (const entry of entries) {
		if (entry.parentId !== null) counts.set(entry.parentId, (counts.get(entry.parentId) ?? 0) + 1);
	}
	return counts;
}

const isMessageEntry = (entry: SessionEntry): boolean => entry.type === "message" || entry.type === "custom_message";

function stateOf(entry: SessionEntry, hidden: ReadonlyMap<string, string>, beforeCompaction: boolean): string {
	const edit = hidden.get(entry.id);
	if (edit !== undefined) return `hidden by context_edit ${pageLabel(edit, 40)}, not sent`;
	if (beforeCompaction) return "summarized by the compaction below, not sent";
	return "not in the context";
}

/** A line for an entry that is not a message (its main field), or `undefined` for a message. */
function describeEntry(entry: SessionEntry, pass: TextPass): string | undefined {
	const fields = entry as unknown as Record<string, unknown>;
	switch (entry.type) {
		case "message":
		case "custom_message":
			return undefined;
		case "model_change":
			return `model ${pageLabel(fields.provider, 40)}/${pageLabel(fields.modelId, 60)}`;
		case "thinking_level_change":
			return `thinking ${pageLabel(fields.thinkingLevel, 40)}`;
		case "compaction":
			return `compaction: ${num(fields.tokensBefore)} tokens summarized, kept from entry ${pageLabel(fields.firstKeptEntryId, 40)}`;
		case "branch_summary":
			return `summary of a branch left at entry ${pageLabel(fields.fromId, 40)}`;
		case "context_edit":
			return `context_edit of entry ${pageLabel(fields.targetId, 40)}: ${fields.replacement === null ? "hide it" : "replace its content"}`;
		case "label":
			// A label is the user's own text: whole through `pass` before it is cut.
			return `label ${pageLabel(typeof fields.label === "string" ? pass(fields.label) : fields.label, 60)} on entry ${pageLabel(fields.targetId, 40)}`;
		case "custom":
			return `custom ${pageLabel(fields.customType, 40)} (never sent)`;
		default:
			return pageLabel(entry.type, 40);
	}
}

/** The role and the first characters of a message entry that sent nothing, so the row says what it held. */
function preview(entry: SessionEntry, pass: TextPass): string {
	const fields = entry as unknown as Record<string, unknown>;
	const message = entry.type === "message" ? fields.message : fields;
	const role = entry.type === "message" ? (message as { role?: unknown } | null)?.role : fields.customType;
	// An entry the reader held slim (before the compaction's kept entry) has no text to show.
	if (!hasText(message)) return pageLabel(role, 40);
	const text = pass(partsText(messageParts(message, false)));
	const cut = text.length > PREVIEW ? `${text.slice(0, PREVIEW)}…` : text;
	return `${pageLabel(role, 40)}: ${cut.replaceAll("\n", " ⏎ ")}`;
}

/** Whether a message has a field the report shows as its text (a slim entry's has none). */
function hasText(message: unknown): boolean {
	if (message === null || typeof message !== "object") return false;
	for (const field of ["content", "output", "summary", "command", "errorMessage"]) if (field in message) return true;
	return false;
}

/** Characters of a message shown in the row of an entry that sent nothing. */
const PREVIEW = 160;

const num = (value: unknown): string => (typeof value === "number" ? value.toLocaleString("en-US") : "?");
