import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { InvalidMessageError, InvalidSessionError } from "../errors.js";
import { createBranchSummaryMessage, createCompactionSummaryMessage, createCustomMessage } from "../messages.js";
import type { CompactionEntry, ParsedSession, SessionContext, SessionContextOptions, SessionEntry } from "./types.js";

/**
 * Options of {@link buildSessionContext}.
 *
 * Contract: as {@link SessionContextOptions}; `file` only names the file in problems and errors.
 *
 * @example
 * const context = buildSessionContext(session, { leafId: "a1b2c3d4", file: "session.jsonl" });
 */
export interface BuildContextOptions extends SessionContextOptions {
	/** The file the session came from, named in errors. */
	file?: string;
}

/**
 * The history pi would send from `session`, walking from the leaf to the root (pi 0.73.1's
 * `buildSessionContext`).
 *
 * Contract: the path is the chain of `parentId` links from the leaf; the latest `compaction` on it
 * puts its summary first, then the entries from its `firstKeptEntryId` up to it, then everything
 * after it. A broken link (a parent missing from the file, or a loop, which would hang pi) ends the
 * path and is listed in `problems`; so is an entry pi would fail on or turn into a `NaN` timestamp.
 *
 * @throws {InvalidSessionError} when `leafId` names no entry (pi would silently use the last one),
 * and in strict mode on the first problem.
 * @example
 * const { messages, model } = buildSessionContext(parseSession(text), { leafId: "a1b2c3d4" });
 */
export function buildSessionContext(session: ParsedSession, options: BuildContextOptions = {}): SessionContext {
	const { strict = false, file } = options;
	const { entries, lines } = session;
	const problems: InvalidSessionError[] = [];
	const report = (message: string, at: number): void => {
		const entry = entries[at] as SessionEntry;
		const problem = new InvalidSessionError(message, { file, line: lines[at], entryId: entry.id });
		if (strict) throw problem;
		problems.push(problem);
	};
	const where = (at: number): string =>
		`entry ${JSON.stringify((entries[at] as SessionEntry).id)} (line ${lines[at]})`;

	// Read each entry's links once: entries have many shapes, so every property read is a slow one.
	const byId = new Map<string, number>();
	const parents: (string | null)[] = new Array(entries.length);
	for (let i = 0; i < entries.length; i++) {
		const entry = entries[i] as SessionEntry;
		byId.set(entry.id, i);
		parents[i] = entry.parentId;
	}
	let leaf = entries.length - 1;
	if (options.leafId === null) leaf = -1;
	else if (options.leafId !== undefined) {
		const found = byId.get(options.leafId);
		if (found === undefined) {
			const last = entries.at(-1)?.id;
			throw new InvalidSessionError(
				`${file === undefined ? "The session" : `"${file}"`} has no entry with id ${JSON.stringify(options.leafId)}. Pick the "id" of one of its lines${last === undefined ? "" : ` (the last one is ${JSON.stringify(last)})`}.`,
				{ file, entryId: options.leafId },
			);
		}
		leaf = found;
	}
	const result: SessionContext = {
		messages: [],
		entryIds: [],
		thinkingLevel: "off",
		model: null,
		leafId: leaf === -1 ? null : (entries[leaf] as SessionEntry).id,
		pathLength: 0,
		problems,
	};
	if (leaf === -1) return result;

	const path = walkToRoot(parents, byId, leaf, (message, at) => report(message, at), where);
	result.pathLength = path.length;

	let compaction = -1;
	for (let p = 0; p < path.length; p++) {
		const entry = entries[path[p] as number] as SessionEntry;
		if (entry.type === "thinking_level_change") result.thinkingLevel = entry.thinkingLevel;
		else if (entry.type === "model_change") result.model = { provider: entry.provider, modelId: entry.modelId };
		else if (entry.type === "message" && entry.message?.role === "assistant") {
			result.model = { provider: entry.message.provider, modelId: entry.message.model };
		} else if (entry.type === "compaction") compaction = p;
	}

	const append = (at: number): void => {
		const entry = entries[at] as SessionEntry;
		const message = toMessage(entry, at, report, where);
		if (message === undefined) return;
		result.messages.push(message);
		result.entryIds.push(entry.id);
	};

	if (compaction === -1) {
		for (let p = 0; p < path.length; p++) append(path[p] as number);
		return result;
	}
	const at = path[compaction] as number;
	const entry = entries[at] as CompactionEntry;
	result.messages.push(
		withValidDate(
			() => createCompactionSummaryMessage(entry.summary, entry.tokensBefore, entry.timestamp),
			() => ({
				role: "compactionSummary",
				summary: entry.summary,
				tokensBefore: entry.tokensBefore,
				timestamp: NaN,
			}),
			() => report(invalidDate(where(at)), at),
		),
	);
	result.entryIds.push(entry.id);
	// pi looks the compaction up again by id: with duplicate ids that is the first one on the path.
	let end = 0;
	while (end < path.length) {
		const candidate = entries[path[end] as number] as SessionEntry;
		if (candidate.type === "compaction" && candidate.id === entry.id) break;
		end++;
	}
	let kept = false;
	for (let p = 0; p < end; p++) {
		if ((entries[path[p] as number] as SessionEntry).id === entry.firstKeptEntryId) kept = true;
		if (kept) append(path[p] as number);
	}
	for (let p = end + 1; p < path.length; p++) append(path[p] as number);
	return result;
}

/** Indices of the entries from the root to `leaf`. Stops at a missing parent or a loop (pi would hang on one). */
function walkToRoot(
	parents: readonly (string | null)[],
	byId: ReadonlyMap<string, number>,
	leaf: number,
	report: (message: string, at: number) => void,
	where: (at: number) => string,
): number[] {
	const path: number[] = [];
	const onPath = new Uint8Array(parents.length);
	let current = leaf;
	for (;;) {
		onPath[current] = 1;
		path.push(current);
		const parentId = parents[current];
		if (!parentId) break;
		const parent = byId.get(parentId);
		if (parent === undefined) {
			report(
				`${where(current)} has parent ${JSON.stringify(parentId)}, which is not in the file; the context starts at this entry. ${ELSEWHERE}`,
				current,
			);
			break;
		}
		if (onPath[parent] === 1) {
			report(
				`${where(current)} has parent ${JSON.stringify(parentId)}, which is already on the path (a loop); the context starts at this entry (pi would hang on this file). ${ELSEWHERE}`,
				current,
			);
			break;
		}
		current = parent;
	}
	return path.reverse();
}

/** The message an entry contributes, as pi's `appendMessage` in `buildSessionContext`. */
function toMessage(
	entry: SessionEntry,
	at: number,
	report: (message: string, at: number) => void,
	where: (at: number) => string,
): AgentMessage | undefined {
	if (entry.type === "message") {
		if (entry.message !== undefined && entry.message !== null) return entry.message;
		report(
			`${where(at)} is a message entry without a message; it was skipped (pi fails on it). Add its "message" in the file, or pick a leaf before it with --leaf / leafId.`,
			at,
		);
		return undefined;
	}
	if (entry.type === "custom_message") {
		const { customType, content, display, details, timestamp } = entry;
		return withValidDate(
			() => createCustomMessage(customType, content, display, details, timestamp),
			() => ({ role: "custom", customType, content, display, details, timestamp: NaN }),
			() => report(invalidDate(where(at)), at),
		);
	}
	if (entry.type === "branch_summary" && entry.summary) {
		const { summary, fromId, timestamp } = entry;
		return withValidDate(
			() => createBranchSummaryMessage(summary, fromId, timestamp),
			() => ({ role: "branchSummary", summary, fromId, timestamp: NaN }),
			() => report(invalidDate(where(at)), at),
		);
	}
	return undefined;
}

/** What to do about a broken parent link. */
const ELSEWHERE = "Fix its parentId in the file, or pick another leaf with --leaf / leafId.";

const invalidDate = (where: string): string =>
	`${where} has an invalid timestamp; its message gets timestamp NaN (null in JSON), as pi gives it. Fix the entry's "timestamp" (ISO 8601).`;

/** pi turns an invalid date into `NaN`; our factories refuse it. Keep pi's value, and say so. */
function withValidDate<M>(make: () => M, fallback: () => M, onInvalid: () => void): M {
	try {
		return make();
	} catch (error) {
		if (!(error instanceof InvalidMessageError)) throw error;
		onInvalid();
		return fallback();
	}
}
