/**
 * The shapes of a pi session file (format version 3), as pi-coding-agent 0.73.1 and 1.x write them.
 *
 * Mirrors `SessionHeader` and `SessionEntry` of pi's `session-manager.ts` field for field (1.6.0 adds
 * `usage` and `context_edit` entries and the compaction's `systemMessage`); declared here because
 * pi-coding-agent is not a dependency of this package.
 */
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type {
	AssistantMessage,
	ImageContent,
	TextContent,
	ToolResultMessage,
	Usage,
	UserMessage,
} from "@earendil-works/pi-ai";
import type { CustomMessage } from "../messages.js";
import type { SessionProblem, SessionProblemCount } from "./problems.js";

/**
 * A message of the history the reader builds: pi-agent-core's `AgentMessage`. The reader's internal
 * files name it through this alias, so that pi's types are imported in as few files as possible.
 */
export type HistoryMessage = AgentMessage;

/**
 * The session format version pi 0.73.1 writes. Versions 1 and 2 are migrated in memory on read.
 *
 * Contract: after reading, `ParsedSession.header.version` is this; `ParsedSession.version` keeps the
 * version the file was written in.
 *
 * @example
 * if (session.version < CURRENT_SESSION_VERSION) console.log("an older file, migrated in memory only");
 */
export const CURRENT_SESSION_VERSION = 3;

/**
 * The first line of a session file: metadata, not part of the entry tree.
 *
 * Contract: `type` is `"session"` and `id` a string, or the file is not a session. A missing
 * `version` means version 1. After reading, `version` is {@link CURRENT_SESSION_VERSION}.
 *
 * @example
 * const { header } = parseSession(text);
 * console.log(`session ${header.id}, started in ${header.cwd}`);
 */
export interface SessionHeader {
	type: "session";
	version?: number;
	id: string;
	timestamp: string;
	cwd: string;
	parentSession?: string;
}

/**
 * What every entry has: its place in the tree and an ISO 8601 timestamp.
 *
 * Contract: the context is the chain of `parentId` links from the leaf up to an entry whose
 * `parentId` is `null`; a `parentId` that names no entry of the file, or one already on the chain (a
 * loop), ends the chain there and is reported in `SessionContext.problems`.
 *
 * @example
 * const parentOf = new Map(session.entries.map((entry) => [entry.id, entry.parentId]));
 */
export interface SessionEntryBase {
	type: string;
	/** 8 hex characters in pi's files; for a migrated version 1 file, the line number padded to 8 digits. */
	id: string;
	/** The parent entry, or `null` for a root. */
	parentId: string | null;
	timestamp: string;
}

/**
 * A message of the conversation, sent as is.
 *
 * Contract: contributes `message`, the object as parsed (for a version 1 or 2 file, a copy whose role
 * `hookMessage` is renamed `custom`), except that, as pi 1.x does, a `user`, `assistant` or
 * `toolResult` message whose `content` is `null` or missing becomes a copy with `content: []`, and a
 * `system` message (pi 1.x's prompt and tool loadout) a copy with `content: ""`. An entry without a
 * message is skipped and reported; pi fails on it.
 *
 * @example
 * const roles = session.entries.flatMap((entry) => (entry.type === "message" ? [entry.message.role] : []));
 */
export interface SessionMessageEntry extends SessionEntryBase {
	type: "message";
	/** A history message; in a pi 1.x file also a `system` message, which 0.73.1's `AgentMessage` does not declare. */
	message: AgentMessage | SessionSystemMessage;
}

/**
 * The user changed the thinking level. Contributes no message.
 *
 * Contract: the last one on the path sets `SessionContext.thinkingLevel` (`"off"` when there is none).
 *
 * @example
 * const { thinkingLevel } = readSession(text); // "off", "low", "medium", "high", …
 */
export interface ThinkingLevelChangeEntry extends SessionEntryBase {
	type: "thinking_level_change";
	thinkingLevel: string;
}

/**
 * The user switched models. Contributes no message.
 *
 * Contract: the last `model_change` or assistant message on the path sets `SessionContext.model`.
 *
 * @example
 * const { model } = readSession(text); // { provider: "anthropic", modelId: "claude-sonnet-4-5" } or null
 */
export interface ModelChangeEntry extends SessionEntryBase {
	type: "model_change";
	provider: string;
	modelId: string;
}

/**
 * Compacted history: its checkpoint and summary come first, then the entries from `firstKeptEntryId` on.
 *
 * Contract: only the latest compaction on the path counts. It becomes its `systemMessage` (when set,
 * pi 1.x: the prompt and tools at that point, the same object) and a `compactionSummary` message
 * (both with its id in `entryIds`), followed by the entries on the path from `firstKeptEntryId` up
 * to it, then every entry after it; what came before `firstKeptEntryId` is not sent. Among the kept
 * entries, `system` messages and older compactions contribute nothing (the checkpoint replaces
 * them). A `firstKeptEntryId` equal to the compaction's own id keeps nothing before it. In a version
 * 1 file, `firstKeptEntryIndex` is turned into `firstKeptEntryId` on read.
 *
 * @example
 * const compactions = session.entries.filter((entry) => entry.type === "compaction");
 */
export interface CompactionEntry<T = unknown> extends SessionEntryBase {
	type: "compaction";
	summary: string;
	firstKeptEntryId: string;
	tokensBefore: number;
	details?: T;
	/** pi 1.x: what generating the summary cost. Never sent. */
	usage?: Usage;
	fromHook?: boolean;
	/** pi 1.x: the prompt sections and tool declarations in force at the compaction, replayed into one. */
	systemMessage?: SessionSystemMessage;
}

/**
 * pi-ai 1.x's `SystemMessage`, declared by shape (pi-ai 0.73.1 has none): the system prompt and the
 * tool loadout, or a later change to them.
 *
 * Contract: a session message entry whose role is `"system"`, or a compaction's checkpoint. The reader
 * passes it on as the same object (a copy with `content: ""` when `content` is `null` or missing); the
 * leading one is the system prompt, later ones patch `sections` by name (`null` removes one) and
 * add or remove tools.
 *
 * @example
 * const prompt: SessionSystemMessage = { role: "system", content: "You are pi.", toolsAdded: [{ name: "read", description: "Read a file", parameters: {} }], timestamp: 0 };
 */
export interface SessionSystemMessage {
	role: "system";
	content: string | TextContent[];
	sections?: Record<string, string | null>;
	toolsAdded?: { name: string; description: string; parameters: object }[];
	toolsRemoved?: { name: string }[];
	timestamp: number;
}

/**
 * The summary of a branch the conversation came back from; sent when `summary` is not empty.
 *
 * Contract: a non-empty `summary` becomes a `branchSummary` message with `fromId` and the entry's
 * timestamp in milliseconds (`NaN`, reported, when the timestamp is invalid); an empty one
 * contributes nothing.
 *
 * @example
 * const summaries = readSession(text).messages.filter((m) => m.role === "branchSummary");
 */
export interface BranchSummaryEntry<T = unknown> extends SessionEntryBase {
	type: "branch_summary";
	fromId: string;
	summary: string;
	details?: T;
	/** pi 1.x: what generating the summary cost. Never sent. */
	usage?: Usage;
	fromHook?: boolean;
}

/**
 * Extension state. Contributes no message.
 *
 * Contract: never sent to the model, whatever its `customType`; `data` is the extension's own.
 *
 * @example
 * const todos = session.entries.filter((entry) => entry.type === "custom" && entry.customType === "todo");
 */
export interface CustomEntry<T = unknown> extends SessionEntryBase {
	type: "custom";
	customType: string;
	data?: T;
}

/**
 * An extension message that takes part in the context, as a `custom` message.
 *
 * Contract: becomes `{ role: "custom", customType, content, display, details, timestamp }` with the
 * entry's timestamp in milliseconds (`NaN`, reported, when it is invalid) and `content ?? []` (pi
 * 1.x); converting it is then up to the registry's `custom` converters.
 *
 * @example
 * const custom = readSession(text).messages.filter((m) => m.role === "custom");
 */
export interface CustomMessageEntry<T = unknown> extends SessionEntryBase {
	type: "custom_message";
	customType: string;
	content: string | (TextContent | ImageContent)[];
	details?: T;
	display: boolean;
}

/**
 * A bookmark on another entry. Contributes no message.
 *
 * Contract: never sent to the model; `targetId` is not checked against the file.
 *
 * @example
 * const labels = session.entries.flatMap((entry) => (entry.type === "label" ? [[entry.targetId, entry.label]] : []));
 */
export interface LabelEntry extends SessionEntryBase {
	type: "label";
	targetId: string;
	label: string | undefined;
}

/**
 * Session metadata such as its display name. Contributes no message.
 *
 * Contract: never sent to the model.
 *
 * @example
 * let name: string | undefined;
 * for (const entry of session.entries) if (entry.type === "session_info") name = entry.name;
 */
export interface SessionInfoEntry extends SessionEntryBase {
	type: "session_info";
	name?: string;
}

/**
 * pi 1.x: what a model call that is not an assistant message cost (cache warming, say). Contributes
 * no message.
 *
 * Contract: never sent to the model, whatever its `kind`.
 *
 * @example
 * const warmed = session.entries.filter((entry) => entry.type === "usage" && entry.kind === "cache_warm");
 */
export interface UsageEntry extends SessionEntryBase {
	type: "usage";
	/** What the call was for, such as `"cache_warm"`; any string. */
	kind: string;
	provider: string;
	model: string;
	usage: Usage;
	note?: string;
}

/**
 * The content a `context_edit` may put in place of its target's (pi 1.x `ContextEditableContent`).
 *
 * Contract: a string or an array of content blocks, as the target's own role allows. The reader sends
 * a copy of the target with this content; a string given to an `assistant` or `toolResult` target
 * becomes one text block, as pi does. Anything else is reported and the target is left out.
 *
 * @example
 * const redact: ContextEditableContent = [{ type: "text", text: "[redacted]" }];
 */
export type ContextEditableContent =
	| UserMessage["content"]
	| AssistantMessage["content"]
	| ToolResultMessage["content"]
	| CustomMessage["content"];

/**
 * pi 1.x (0.87 on): an append-only edit of what an earlier entry sends to the model. Contributes no
 * message of its own.
 *
 * Contract: among the entries that make up the context, the latest edit for a `targetId` wins. With
 * `replacement: null` the target contributes nothing; otherwise a `user`, `assistant`, `toolResult`
 * or `custom` message of the target becomes a copy (role and metadata kept, key order kept) whose
 * `content` is the replacement's, a string becoming one text block for `assistant` and `toolResult`.
 * What each edit did is listed in `SessionContext.contextEdits`. An edit whose target is not in the
 * context (summarized by a compaction, on another branch) does nothing; a replacement that is neither
 * `null` nor `{ content: string | array }` is reported and its target left out (pi fails on it).
 *
 * @example
 * const redactions = session.entries.filter((entry) => entry.type === "context_edit" && entry.replacement === null);
 */
export interface ContextEditEntry extends SessionEntryBase {
	type: "context_edit";
	/** The entry whose contribution changes. */
	targetId: string;
	/** `null` leaves the target out of the context; a value replaces only its content. */
	replacement: { content: ContextEditableContent } | null;
}

/**
 * Any entry of the tree (every line after the header).
 *
 * Contract: discriminated by `type`. The entries pi 0.73.1 and 1.6 write are listed; an entry of
 * another type (a newer pi's) is kept in `ParsedSession.entries`, takes its place on the path,
 * contributes no message and, when on the path, is reported in `SessionContext.problems` (it may be
 * one that changes the context).
 *
 * @example
 * for (const entry of parseSession(text).entries) {
 * 	if (entry.type === "model_change") console.log(`switched to ${entry.provider}/${entry.modelId}`);
 * }
 */
export type SessionEntry =
	| SessionMessageEntry
	| ThinkingLevelChangeEntry
	| ModelChangeEntry
	| UsageEntry
	| CompactionEntry
	| BranchSummaryEntry
	| CustomEntry
	| CustomMessageEntry
	| ContextEditEntry
	| LabelEntry
	| SessionInfoEntry;

/**
 * A session file, parsed and migrated to version 3 in memory.
 *
 * Contract: `entries[i]` was read from line `lines[i]` (1-based) of the text; entries of a version 1
 * or 2 file are migrated copies (ids and parents added, `firstKeptEntryIndex` turned into
 * `firstKeptEntryId`, role `hookMessage` renamed `custom`); the text itself is never changed. Only
 * JSON objects are entries: a truthy line that is not one (`1`, `"x"`, `true`, `[]`), which pi keeps
 * as an entry that sends nothing and links to nothing, is left out and reported, and when it is the
 * last such line of the file `nonEntryLastLine` says where (pi's leaf is then no entry: it sends an
 * empty context). `problems` lists the first few lines of each kind that were skipped or left out,
 * `problemCounts` how many there were of each kind.
 *
 * @example
 * const session = parseSession(readFileSync(file, "utf8"));
 * console.log(`v${session.version}: ${session.entries.length} entries, ${session.problems.length} skipped lines`);
 */
export interface ParsedSession {
	/** The header, with `version` set to {@link CURRENT_SESSION_VERSION}. */
	header: SessionHeader;
	/** The version the file was written in (1 when the header has none). */
	version: number;
	/** Every entry after the header, in file order. */
	entries: SessionEntry[];
	/** The 1-based line number of each entry. */
	lines: number[];
	/**
	 * The line of the file's last value pi keeps, when it is JSON but not an object (version 2 and 3
	 * files): pi's default leaf, from which pi sends an empty context.
	 */
	nonEntryLastLine?: number;
	/** Lines that were skipped or left out (not JSON, `null`, not an object), as pi skips them: the first few of each kind. */
	problems: SessionProblem[];
	/** How many problems of each kind there were (`problems` keeps the first few of each). */
	problemCounts: SessionProblemCount[];
}

/**
 * Options of `parseSession`.
 *
 * Contract: lenient by default: a line that is not a JSON object is skipped, as pi skips it, and
 * listed in `problems`; with `strict: true` the first one throws an `InvalidSessionError`. A text
 * that is not a session throws either way.
 *
 * @example
 * const session = parseSession(text, { strict: true });
 */
export interface ParseSessionOptions {
	/** Throw the first problem instead of skipping the line and listing it. Default `false`. */
	strict?: boolean;
}
