/**
 * What one entry of the context sends: pi 1.6.0's `sessionEntryToContextMessages` and
 * `projectContextEntry`, with every case pi would fail on (or silently turn into `NaN`) reported.
 */
import { createBranchSummaryMessage, createCompactionSummaryMessage, createCustomMessage } from "../messages.js";
import { describeValue, isRecord } from "../values.js";
import type { SessionProblemKind } from "./problems.js";
import type { ContextEditEntry, HistoryMessage, SessionEntry } from "./types.js";

/**
 * How a rule reports a problem of `kind` about entry `at` (its message is made only when the problem
 * is kept), and names that entry in the message.
 */
export interface EntryReporter {
	report(kind: SessionProblemKind, at: number, message: () => string): void;
	where(at: number): string;
}

/** The entry types pi 0.73.1 and 1.6.0 write. Any other type on the path is reported. */
export const KNOWN_ENTRY_TYPES: ReadonlySet<unknown> = new Set([
	"message",
	"thinking_level_change",
	"model_change",
	"usage",
	"compaction",
	"branch_summary",
	"custom",
	"custom_message",
	"context_edit",
	"label",
	"session_info",
]);

/** Roles whose content a `context_edit` replaces; pi leaves any other message as it is. */
const EDITABLE = new Set<unknown>(["user", "assistant", "toolResult", "custom"]);
/** Roles that need `content` to be an array: pi turns a string replacement into one text block. */
const BLOCKS_ONLY = new Set<unknown>(["assistant", "toolResult"]);
/** Roles whose `null` or missing content pi 1.x turns into `[]`. */
const CONTENT_ARRAY = new Set<unknown>(["user", "assistant", "toolResult"]);

type Loose = Record<string, unknown>;

/** The messages entry `at` contributes without edits, as pi 1.6.0's `sessionEntryToContextMessages`. */
export function entryMessages(entry: SessionEntry, at: number, reporter: EntryReporter): HistoryMessage[] {
	if (entry.type === "message") {
		const message = entry.message as unknown as Loose | null | undefined;
		if (message === undefined || message === null) {
			reporter.report(
				"no-message",
				at,
				() =>
					`${reporter.where(at)} is a message entry without a message; it was skipped (pi fails on it). Add its "message" in the file, or pick a leaf before it with leafId.`,
			);
			return [];
		}
		// Old versions, forks and hand-edited files can hold a message without content.
		if (message.content === undefined || message.content === null) {
			if (message.role === "system") return [{ ...message, content: "" } as unknown as HistoryMessage];
			if (CONTENT_ARRAY.has(message.role)) return [{ ...message, content: [] } as unknown as HistoryMessage];
		}
		return [entry.message as HistoryMessage];
	}
	if (entry.type === "custom_message") {
		const { customType, display, details, timestamp } = entry;
		const content = entry.content ?? [];
		const ms = epochOf(timestamp, at, reporter);
		if (Number.isNaN(ms)) return [{ role: "custom", customType, content, display, details, timestamp: ms }];
		return [createCustomMessage(customType, content, display, details, ms)];
	}
	if (entry.type === "branch_summary" && entry.summary) {
		const { summary, fromId, timestamp } = entry;
		const ms = epochOf(timestamp, at, reporter);
		if (Number.isNaN(ms)) return [{ role: "branchSummary", summary, fromId, timestamp: ms }];
		return [createBranchSummaryMessage(summary, fromId, ms)];
	}
	if (entry.type === "compaction") {
		const { summary, tokensBefore, timestamp, systemMessage } = entry;
		const ms = epochOf(timestamp, at, reporter);
		const message: HistoryMessage = Number.isNaN(ms)
			? { role: "compactionSummary", summary, tokensBefore, timestamp: ms }
			: createCompactionSummaryMessage(summary, tokensBefore, ms);
		// pi 1.x: the prompt and tools at the compaction lead the compacted context, as the same object.
		return systemMessage ? [systemMessage as unknown as HistoryMessage, message] : [message];
	}
	return [];
}

/** A `message` entry of a `system` message (pi 1.x's prompt and tools), which a compaction's kept range leaves out. */
export const isSystemEntry = (entry: SessionEntry): boolean =>
	entry.type === "message" && entry.message?.role === "system";

/** What an edit made of an entry's messages. */
export type Edited =
	| { effect: "hidden" }
	| { effect: "replaced"; messages: HistoryMessage[]; first: number }
	| { effect: "none" };

/**
 * pi 1.6.0's `projectContextEntry` for one edit: `replacement: null` hides the entry; otherwise each
 * editable message becomes a copy (role, metadata and key order kept) with the replacement content.
 */
export function applyEdit(
	messages: readonly HistoryMessage[],
	edit: ContextEditEntry,
	editAt: number,
	at: number,
	reporter: EntryReporter,
): Edited {
	const replacement = edit.replacement as unknown;
	if (replacement === null) return messages.length === 0 ? { effect: "none" } : { effect: "hidden" };
	const content = isRecord(replacement) ? replacement.content : undefined;
	if (typeof content !== "string" && !Array.isArray(content)) {
		// pi throws on a missing replacement and sends `content: undefined` for a bad one: leave the target out.
		reporter.report(
			"bad-edit",
			editAt,
			() =>
				`${reporter.where(editAt)} is a context_edit whose "replacement" is neither null nor { "content": string or array }; its target ${reporter.where(at)} was left out of the context (pi fails on this file). Fix the edit's "replacement".`,
		);
		return messages.length === 0 ? { effect: "none" } : { effect: "hidden" };
	}
	let first = -1;
	const edited: HistoryMessage[] = new Array(messages.length);
	for (let i = 0; i < messages.length; i++) {
		const message = messages[i] as unknown as Loose;
		if (!EDITABLE.has(message?.role)) {
			edited[i] = message as unknown as HistoryMessage;
			continue;
		}
		if (first === -1) first = i;
		const next =
			BLOCKS_ONLY.has(message.role) && typeof content === "string" ? [{ type: "text", text: content }] : content;
		edited[i] = { ...message, content: next } as unknown as HistoryMessage;
	}
	if (first !== -1) return { effect: "replaced", messages: edited, first };
	if (messages.length > 0) {
		reporter.report("uneditable", editAt, () => {
			const roles = rolesOf(messages).map(capped);
			const whose =
				roles.length === 1 ? `message (role ${roles[0]}) has` : `messages (roles ${roles.join(", ")}) have`;
			return `${reporter.where(editAt)} is a context_edit of ${reporter.where(at)}, whose ${whose} no content a context_edit can replace; it is sent unchanged, as pi sends it. Target a user, assistant, toolResult or custom_message entry.`;
		});
	}
	return { effect: "none" };
}

/** The roles of `messages`, as text (a message without a string role shows as `?`). */
export function rolesOf(messages: readonly HistoryMessage[]): string[] {
	const roles: string[] = new Array(messages.length);
	for (let i = 0; i < messages.length; i++) {
		const role = (messages[i] as unknown as Loose | null)?.role;
		roles[i] = typeof role === "string" ? role : "?";
	}
	return roles;
}

/**
 * Epoch milliseconds of an entry's timestamp, as pi computes them (`new Date(t).getTime()`), or `NaN`
 * (reported) when it is not a date. A JSON object such as `{"valueOf":0,"toString":0}` has no
 * primitive value: `new Date()` throws on it, and pi with it.
 */
function epochOf(timestamp: unknown, at: number, reporter: EntryReporter): number {
	let ms: number;
	try {
		ms = new Date(timestamp as string).getTime();
	} catch {
		reporter.report(
			"bad-timestamp",
			at,
			() =>
				`${reporter.where(at)} has a timestamp that is not a date (pi fails on it); its message gets timestamp NaN (null in JSON). Fix the entry's "timestamp" (ISO 8601).`,
		);
		return Number.NaN;
	}
	if (Number.isNaN(ms)) {
		reporter.report(
			"bad-timestamp",
			at,
			() =>
				`${reporter.where(at)} has an invalid timestamp; its message gets timestamp NaN (null in JSON), as pi gives it. Fix the entry's "timestamp" (ISO 8601).`,
		);
	}
	return ms;
}

/**
 * A value as JSON, cut at 60 characters: a message quotes it, it does not reproduce it. Never throws:
 * a value too deeply nested to stringify (a hostile file's id) is {@link describeValue described}.
 */
export function capped(value: unknown): string {
	let text: string;
	try {
		text = JSON.stringify(value) ?? String(value);
	} catch {
		text = describeValue(value);
	}
	return text.length <= 60 ? text : `${text.slice(0, 59)}…`;
}
