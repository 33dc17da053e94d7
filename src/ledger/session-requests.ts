/**
 * The one place the ledger reads a session: every request the session recorded (each assistant
 * entry, on every branch) and the history that request sent, the conversion input of the path up to
 * its parent. Nothing else in src/ledger/ imports the session reader, and both entrances here
 * ({@link readRequests}, {@link readLeaves}) read it through {@link parsed}, so that a new session
 * entrance changes this file only.
 *
 * A history is never built per request (that would be quadratic in a long session): requests whose
 * paths agree, with no compaction or context edit after the earlier one, share one context built at
 * the later one's leaf, and each takes the prefix of it up to its own leaf (request-tree.ts).
 */
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import {
	buildSessionContext,
	type ParsedSession,
	type ReadSessionOptions,
	readSession,
	readSessionFile,
	readSessionStream,
	type SessionEntry,
	type SessionProblem,
} from "../session/index.js";
import { isRecord } from "../values.js";
import { EntryKind, NO_CHANGE, type RequestChange, RequestTree } from "./request-tree.js";

/**
 * Where the ledger reads a session from: its text, a file by path, chunks as they arrive (standard
 * input), or a session the session reader already read with `tree: true` (the view and the report,
 * which read the file once for themselves: its `tree.session`).
 *
 * Contract: the session is read once, by the session reader's entrance, never written; `file` only
 * names it in problems; `maxBytes` refuses a longer file or stream (default: no limit).
 *
 * @example
 * const ledger = await requestLedger({ path: "session.jsonl" });
 */
export type LedgerSource =
	| { readonly text: string; readonly file?: string }
	| { readonly path: string; readonly file?: string; readonly maxBytes?: number }
	| {
			readonly chunks: AsyncIterable<unknown> | Iterable<unknown>;
			readonly file?: string;
			readonly maxBytes?: number;
	  }
	| { readonly session: ParsedSession; readonly file?: string };

/** One request the session recorded: its assistant entry, and where its history is. */
export interface RecordedRequest {
	/** Its place among the requests, in file order. */
	index: number;
	/** The assistant entry the request produced. */
	entryId: string;
	/** The entry the request was sent from (the assistant entry's parent); `null` for none. */
	leafId: string | null;
	/** The line of the assistant entry in the file (1-based). */
	line: number;
	/** The assistant message as recorded. */
	message: Record<string, unknown>;
	/** `provider/model` of the assistant message, when both are strings. */
	model: string | undefined;
	/** When the request was sent (the assistant message's `timestamp`, else the entry's), in ms; `undefined` when neither is a time. */
	sentAt: number | undefined;
	/** The thinking level in force on its path (`"off"` unless changed). */
	thinkingLevel: string;
	/** The shared history it is a prefix of (an index of {@link SessionRequests.histories}), or -1 for none (no leaf). */
	history: number;
	/** How many messages of that history it sent. */
	length: number;
	/** What lies between the previous request's leaf and this one's (nothing for the first). */
	since: RequestChange;
	/** Why its history could not be rebuilt, when it could not (an unknown parent). */
	problem: string | undefined;
}

/** A context several requests share: each sent a prefix of it. */
export interface RequestHistory {
	messages: readonly AgentMessage[];
	/** The entry each message came from. */
	entryIds: readonly string[];
}

/** A model call that is no request of the conversation (pi 1.x `usage` entries: cache warming). */
export interface RecordedCall {
	kind: string;
	at: number | undefined;
	usage: unknown;
	line: number;
}

/** What the ledger reads of a session. */
export interface SessionRequests {
	file: string | undefined;
	requests: RecordedRequest[];
	histories: RequestHistory[];
	/** pi 1.x `usage` entries, in file order. */
	calls: RecordedCall[];
	/** The entries of the file. */
	entries: number;
	/** What the reader found wrong (skipped lines, broken links), one line each, each once. */
	problems: string[];
}

/** The messages request `request` sent (a new array). */
export function historyOf(session: SessionRequests, request: RecordedRequest): AgentMessage[] {
	const history = session.histories[request.history];
	return history === undefined ? [] : history.messages.slice(0, request.length);
}

/**
 * Reads a session and its recorded requests.
 *
 * Contract: one read of the session (the session reader's, lenient: its problems are listed, not
 * thrown), then one context per stretch of the tree the requests share; `requests` holds every
 * assistant message entry in file order, whatever its usage says.
 *
 * @throws {InvalidSessionError} when the text is not a pi session at all.
 */
export async function readRequests(source: LedgerSource): Promise<SessionRequests> {
	return requestsOf(await parsed(source), source.file);
}

/** The history sent from one leaf of a session, and whether the session has that leaf. */
export interface LeafHistory extends RequestHistory {
	/** The leaf asked for, or the session's last entry when none was. */
	leafId: string | null;
	/** Whether the session has an entry with that id (else the history is empty). */
	found: boolean;
}

/** The histories of some leaves of a session, and what lies between the first two. */
export interface SessionLeaves {
	leaves: LeafHistory[];
	/** What lies between the first leaf and the second on the second's path. */
	between: RequestChange;
	/** The id of the session's last entry (pi's default leaf). */
	lastEntryId: string | null;
	problems: string[];
}

/**
 * Reads a session and the history sent from each of `leafIds` (`undefined`: the session's last
 * entry, where pi resumes).
 *
 * Contract: one read of the session, one context per leaf; a leaf the session does not have gives an
 * empty history and `found: false` (never another leaf's history).
 *
 * @throws {InvalidSessionError} when the text is not a pi session at all.
 */
export async function readLeaves(
	source: LedgerSource,
	leafIds: readonly (string | undefined)[],
): Promise<SessionLeaves> {
	const session = await parsed(source);
	const count = session.entries.length;
	const { ids, tree } = treeOf(session.entries);
	const problems = new Problems();
	for (const problem of session.problems) problems.add(problem);
	const lastEntryId = count === 0 ? null : String(ids[count - 1]);
	const at: number[] = [];
	const leaves = leafIds.map((asked): LeafHistory => {
		const leafId = asked ?? lastEntryId;
		const index = tree.indexOf(leafId);
		at.push(index);
		if (index < 0) return { leafId, found: false, messages: [], entryIds: [] };
		const context = buildSessionContext(session, { leafId: ids[index] as string, file: source.file });
		for (const problem of context.problems) problems.add(problem);
		return { leafId, found: true, messages: context.messages, entryIds: context.entryIds };
	});
	const between = at.length < 2 ? NO_CHANGE : tree.between(at[0] as number, at[1] as number);
	return { leaves, between, lastEntryId, problems: problems.lines };
}

/** The one read of the session (its leaf context is not wanted: `leafId: null` builds none). */
async function parsed(source: LedgerSource): Promise<ParsedSession> {
	if ("session" in source) return source.session;
	// Every branch of the tree, whole: each request's path is built from it.
	const options: ReadSessionOptions = { leafId: null, file: source.file, tree: true };
	if ("maxBytes" in source && source.maxBytes !== undefined) options.maxBytes = source.maxBytes;
	const read =
		"text" in source
			? readSession(source.text, options)
			: "path" in source
				? readSessionFile(source.path, options)
				: await readSessionStream(textOrBytes(source.chunks), options);
	if (read.tree === undefined) throw new Error("the session reader gave no tree");
	return read.tree.session;
}

function requestsOf(session: ParsedSession, file: string | undefined): SessionRequests {
	const { entries, lines } = session;
	const count = entries.length;
	const { ids, tree } = treeOf(entries);
	const thinking = thinkingLevels(entries, tree);
	const problems = new Problems();
	for (const problem of session.problems) problems.add(problem);

	const requests: RecordedRequest[] = [];
	const leaves: number[] = [];
	const calls: RecordedCall[] = [];
	for (let i = 0; i < count; i++) {
		const entry = entries[i] as SessionEntry;
		if (entry.type === "usage") {
			calls.push({
				kind: String(entry.kind),
				at: timeOf(undefined, entry.timestamp),
				usage: entry.usage,
				line: lines[i] as number,
			});
			continue;
		}
		const message: unknown = entry.type === "message" ? entry.message : undefined;
		if (!isRecord(message) || message.role !== "assistant") continue;
		const leafId = typeof entry.parentId === "string" && entry.parentId !== "" ? entry.parentId : null;
		const leaf = tree.indexOf(leafId);
		const unknownLeaf = leafId !== null && leaf < 0;
		requests.push({
			index: requests.length,
			entryId: String(entry.id),
			leafId,
			line: lines[i] as number,
			message,
			model:
				typeof message.provider === "string" && typeof message.model === "string"
					? `${message.provider}/${message.model}`
					: undefined,
			sentAt: timeOf(message.timestamp, entry.timestamp),
			thinkingLevel: leaf < 0 ? "off" : (thinking[leaf] as string),
			history: -1,
			length: 0,
			since: NO_CHANGE,
			problem: unknownLeaf
				? `its parent ${JSON.stringify(leafId)} is not in the file, so the history it sent cannot be rebuilt (counted as empty)`
				: undefined,
		});
		leaves.push(leaf);
	}

	const { group, groupLeaf } = tree.shareContexts(leaves);
	const histories: RequestHistory[] = [];
	const depthsOf: Int32Array[] = [];
	for (const leaf of groupLeaf) {
		const context = buildSessionContext(session, { leafId: ids[leaf] as string, file });
		for (const problem of context.problems) problems.add(problem);
		histories.push({ messages: context.messages, entryIds: context.entryIds });
		depthsOf.push(tree.runningDepths(context.entryIds));
	}
	for (let k = 0; k < requests.length; k++) {
		const request = requests[k] as RecordedRequest;
		const at = group[k] as number;
		if (at >= 0) {
			request.history = at;
			const leaf = leaves[k] as number;
			request.length = tree.loop
				? (histories[at] as RequestHistory).messages.length
				: RequestTree.prefixUpTo(depthsOf[at] as Int32Array, tree.depth[leaf] as number);
		}
		if (k > 0) request.since = tree.between(leaves[k - 1] as number, leaves[k] as number);
	}
	return { file, requests, histories, calls, entries: count, problems: problems.lines };
}

/** The entries' ids (read once: entries have many shapes, so each read of them is a slow one) and their tree. */
function treeOf(entries: readonly SessionEntry[]): { ids: unknown[]; tree: RequestTree } {
	const count = entries.length;
	const ids: unknown[] = new Array(count);
	const parentIds: unknown[] = new Array(count);
	const kinds = new Uint8Array(count);
	for (let i = 0; i < count; i++) {
		const entry = entries[i] as SessionEntry;
		ids[i] = entry.id;
		parentIds[i] = entry.parentId;
		kinds[i] = kindOf(entry);
	}
	return { ids, tree: new RequestTree(ids, parentIds, kinds) };
}

/** Problems, each line once, in the order met. */
class Problems {
	readonly lines: string[] = [];
	private readonly seen = new Set<string>();

	add(problem: SessionProblem): void {
		if (this.seen.has(problem.message)) return;
		this.seen.add(problem.message);
		this.lines.push(problem.message);
	}
}

function kindOf(entry: SessionEntry): number {
	if (entry.type === "compaction") return EntryKind.compaction;
	if (entry.type === "context_edit") return EntryKind.contextEdit;
	const message: unknown = entry.type === "message" ? entry.message : undefined;
	if (isRecord(message) && message.role === "system") return EntryKind.system;
	return EntryKind.other;
}

/** The thinking level in force at each entry: its own change, else its parent's ("off" at a root). */
function thinkingLevels(entries: readonly SessionEntry[], tree: RequestTree): string[] {
	const count = entries.length;
	const levels: string[] = new Array(count);
	// Parents before children: by depth.
	for (const at of tree.byDepth()) {
		const entry = entries[at] as SessionEntry;
		const parent = tree.parent[at] as number;
		const inherited = parent >= 0 && levels[parent] !== undefined ? (levels[parent] as string) : "off";
		levels[at] =
			entry.type === "thinking_level_change" && typeof entry.thinkingLevel === "string"
				? entry.thinkingLevel
				: inherited;
	}
	return levels;
}

/** A time in ms: the message's own number, else the entry's ISO timestamp; `undefined` when neither is one. */
function timeOf(messageTime: unknown, entryTime: unknown): number | undefined {
	if (typeof messageTime === "number" && Number.isFinite(messageTime)) return messageTime;
	if (typeof entryTime === "string") {
		const parsed = Date.parse(entryTime);
		if (Number.isFinite(parsed)) return parsed;
	}
	return undefined;
}

/** A stream's chunks as the session reader takes them: text and bytes as they are, anything else as its `String`. */
async function* textOrBytes(chunks: AsyncIterable<unknown> | Iterable<unknown>): AsyncGenerator<string | Uint8Array> {
	for await (const chunk of chunks)
		yield typeof chunk === "string" || chunk instanceof Uint8Array ? chunk : String(chunk);
}
