/**
 * The shapes of a pi session file (format version 3), as pi-coding-agent 0.73.1 writes them.
 *
 * Mirrors `SessionHeader`, `SessionEntry` and `SessionContext` of pi's `session-manager.ts` field for
 * field; declared here because pi-coding-agent is not a dependency of this package.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import type { ImageContent, TextContent } from "@mariozechner/pi-ai";
import type { InvalidSessionError } from "../errors.js";

/** The session format version pi 0.73.1 writes. Versions 1 and 2 are migrated in memory on read. */
export const CURRENT_SESSION_VERSION = 3;

/**
 * The first line of a session file: metadata, not part of the entry tree.
 *
 * Contract: `type` is `"session"` and `id` a string, or the file is not a session. A missing
 * `version` means version 1. After reading, `version` is {@link CURRENT_SESSION_VERSION}.
 */
export interface SessionHeader {
	type: "session";
	version?: number;
	id: string;
	timestamp: string;
	cwd: string;
	parentSession?: string;
}

/** What every entry has: its place in the tree and an ISO 8601 timestamp. */
export interface SessionEntryBase {
	type: string;
	/** 8 hex characters in pi's files; for a migrated version 1 file, the line number padded to 8 digits. */
	id: string;
	/** The parent entry, or `null` for a root. */
	parentId: string | null;
	timestamp: string;
}

/** A message of the conversation, sent as is. */
export interface SessionMessageEntry extends SessionEntryBase {
	type: "message";
	message: AgentMessage;
}

/** The user changed the thinking level. Contributes no message. */
export interface ThinkingLevelChangeEntry extends SessionEntryBase {
	type: "thinking_level_change";
	thinkingLevel: string;
}

/** The user switched models. Contributes no message. */
export interface ModelChangeEntry extends SessionEntryBase {
	type: "model_change";
	provider: string;
	modelId: string;
}

/** Compacted history: its summary comes first, then the entries from `firstKeptEntryId` on. */
export interface CompactionEntry<T = unknown> extends SessionEntryBase {
	type: "compaction";
	summary: string;
	firstKeptEntryId: string;
	tokensBefore: number;
	details?: T;
	fromHook?: boolean;
}

/** The summary of a branch the conversation came back from; sent when `summary` is not empty. */
export interface BranchSummaryEntry<T = unknown> extends SessionEntryBase {
	type: "branch_summary";
	fromId: string;
	summary: string;
	details?: T;
	fromHook?: boolean;
}

/** Extension state. Contributes no message. */
export interface CustomEntry<T = unknown> extends SessionEntryBase {
	type: "custom";
	customType: string;
	data?: T;
}

/** An extension message that takes part in the context, as a `custom` message. */
export interface CustomMessageEntry<T = unknown> extends SessionEntryBase {
	type: "custom_message";
	customType: string;
	content: string | (TextContent | ImageContent)[];
	details?: T;
	display: boolean;
}

/** A bookmark on another entry. Contributes no message. */
export interface LabelEntry extends SessionEntryBase {
	type: "label";
	targetId: string;
	label: string | undefined;
}

/** Session metadata such as its display name. Contributes no message. */
export interface SessionInfoEntry extends SessionEntryBase {
	type: "session_info";
	name?: string;
}

/** Any entry of the tree (every line after the header). */
export type SessionEntry =
	| SessionMessageEntry
	| ThinkingLevelChangeEntry
	| ModelChangeEntry
	| CompactionEntry
	| BranchSummaryEntry
	| CustomEntry
	| CustomMessageEntry
	| LabelEntry
	| SessionInfoEntry;

/**
 * A session file, parsed and migrated to version 3 in memory.
 *
 * Contract: `entries[i]` was read from line `lines[i]` (1-based) of the text; entries of a version 1
 * or 2 file are migrated copies (ids and parents added, `firstKeptEntryIndex` turned into
 * `firstKeptEntryId`, role `hookMessage` renamed `custom`); the text itself is never changed.
 * `problems` lists the lines that were skipped, each with its line number.
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
	/** Lines that were skipped (not JSON, not an object), as pi skips them. */
	problems: InvalidSessionError[];
}

/** Options of `parseSession`. */
export interface ParseSessionOptions {
	/** Throw the first problem instead of skipping the line and listing it. Default `false`. */
	strict?: boolean;
}

/** Options of `buildSessionContext` and `readSession`. */
export interface SessionContextOptions {
	/**
	 * The entry to build the context from: an entry id for an earlier point of the tree, `null` for
	 * "before the first entry" (no messages). Default: the last entry of the file, as pi resumes.
	 */
	leafId?: string | null;
	/** Throw the first problem instead of listing it. Default `false`. */
	strict?: boolean;
}

/**
 * What pi would send from a session: the history and the settings in force at the leaf.
 *
 * Contract: `messages` deep-equals pi 0.73.1's `buildSessionContext(...).messages` for the same file
 * and leaf (`message` entries give their message object as parsed; `custom_message`, non-empty
 * `branch_summary` and the latest `compaction` on the path become `custom`, `branchSummary` and
 * `compactionSummary` messages). `entryIds[i]` is the id of the entry `messages[i]` came from.
 *
 * @example
 * const { messages } = readSession(text);
 * const model = convertToLlm(messages);
 */
export interface SessionContext {
	messages: AgentMessage[];
	/** The id of the entry each message came from (the compaction's id for its summary). */
	entryIds: string[];
	/** The thinking level in force at the leaf (`"off"` unless changed on the path). */
	thinkingLevel: string;
	/** The model in force at the leaf: the last `model_change` or assistant message on the path. */
	model: { provider: string; modelId: string } | null;
	/** The entry the context was built from (`null` when there is none). */
	leafId: string | null;
	/** How many entries lie on the path from the root to the leaf. */
	pathLength: number;
	/** Problems met on the path (a broken parent link, an entry pi could not convert, an invalid date). */
	problems: InvalidSessionError[];
}
