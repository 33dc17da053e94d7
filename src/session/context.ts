import { InvalidSessionError } from "../errors.js";
import type { SessionContext, SessionContextOptions } from "./context-types.js";
import { walkToRoot } from "./path.js";
import {
	applyEdit,
	capped,
	entryMessages,
	isSystemEntry,
	KNOWN_ENTRY_TYPES,
	type Reporter,
	rolesOf,
} from "./project.js";
import type { CompactionEntry, ContextEditEntry, ParsedSession, SessionEntry } from "./types.js";

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
 * The history pi would send from `session`, walking from the leaf to the root (pi 1.6.0's
 * `buildSessionContext`, which gives 0.73.1's on every file 0.73.1 writes).
 *
 * Contract: the path is the chain of `parentId` links from the leaf; the latest `compaction` on it
 * puts its checkpoint (`systemMessage`) and summary first, then the entries from its
 * `firstKeptEntryId` up to it (without `system` messages and older compactions), then everything
 * after it; the latest `context_edit` per target among those entries hides or replaces the target's
 * messages (listed in `contextEdits`). A broken link (a parent missing from the file, or a loop,
 * which would hang pi) ends the path and is listed in `problems`; so is an entry pi would fail on or
 * turn into a `NaN` timestamp, and an entry type this reader does not know.
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
	const reporter: Reporter = {
		report(message, at) {
			const entry = entries[at] as SessionEntry;
			const problem = new InvalidSessionError(message, { file, line: lines[at], entryId: entry.id });
			if (strict) throw problem;
			problems.push(problem);
		},
		where: (at) => `entry ${capped((entries[at] as SessionEntry).id)} (line ${lines[at]})`,
	};

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
				`${file === undefined ? "The session" : `"${file}"`} has no entry with id ${capped(options.leafId)}. Pick the "id" of one of its lines${last === undefined ? "" : ` (the last one is ${capped(last)})`}.`,
				{ file, entryId: options.leafId },
			);
		}
		leaf = found;
	}
	const result: SessionContext = {
		messages: [],
		entryIds: [],
		contextEdits: [],
		thinkingLevel: "off",
		model: null,
		leafId: leaf === -1 ? null : (entries[leaf] as SessionEntry).id,
		pathLength: 0,
		problems,
	};
	if (leaf === -1) return result;

	const path = walkToRoot(parents, byId, leaf, reporter);
	result.pathLength = path.length;

	let compaction = -1;
	for (let p = 0; p < path.length; p++) {
		const entry = entries[path[p] as number] as SessionEntry;
		if (entry.type === "thinking_level_change") result.thinkingLevel = entry.thinkingLevel;
		else if (entry.type === "model_change") result.model = { provider: entry.provider, modelId: entry.modelId };
		else if (entry.type === "message" && entry.message?.role === "assistant") {
			result.model = { provider: entry.message.provider, modelId: entry.message.model };
		} else if (entry.type === "compaction") compaction = p;
		else if (!KNOWN_ENTRY_TYPES.has(entry.type)) reportUnknown(entry, path[p] as number, reporter);
	}
	project(session, contextEntries(entries, path, compaction), result, reporter);
	return result;
}

/**
 * pi 1.6.0's `buildContextEntries`: the path, or with a compaction on it, the latest compaction, the
 * kept entries before it that are not `system` messages, and every entry after it.
 */
function contextEntries(entries: readonly SessionEntry[], path: readonly number[], compaction: number): number[] {
	if (compaction === -1) return path as number[];
	const latest = entries[path[compaction] as number] as CompactionEntry;
	// pi looks the compaction up again by id: with duplicate ids that is the first one on the path.
	let end = 0;
	while (end < path.length) {
		const candidate = entries[path[end] as number] as SessionEntry;
		if (candidate.type === "compaction" && candidate.id === latest.id) break;
		end++;
	}
	const chosen = [path[compaction] as number];
	let kept = false;
	for (let p = 0; p < end; p++) {
		const entry = entries[path[p] as number] as SessionEntry;
		if (entry.id === latest.firstKeptEntryId) kept = true;
		if (kept && !isSystemEntry(entry)) chosen.push(path[p] as number);
	}
	for (let p = end + 1; p < path.length; p++) chosen.push(path[p] as number);
	return chosen;
}

/**
 * pi 1.6.0's `buildSessionProjection`: each context entry's messages, with the latest `context_edit`
 * for it applied; an older compaction among them contributes nothing (0.87.0 on: the 0.80.10–0.86.1
 * duplicate summary was a bug pi fixed).
 */
function project(session: ParsedSession, chosen: readonly number[], result: SessionContext, reporter: Reporter): void {
	const entries = session.entries;
	const edits = new Map<unknown, number>();
	for (const at of chosen) {
		const entry = entries[at] as SessionEntry;
		if (entry.type === "context_edit") edits.set(entry.targetId, at);
	}
	for (let k = 0; k < chosen.length; k++) {
		const at = chosen[k] as number;
		const entry = entries[at] as SessionEntry;
		if (entry.type === "compaction" && k > 0) continue;
		let messages = entryMessages(entry, at, reporter);
		const editAt = edits.size === 0 ? undefined : edits.get(entry.id);
		if (editAt !== undefined) {
			const edit = entries[editAt] as ContextEditEntry;
			const edited = applyEdit(messages, edit, editAt, at, reporter);
			if (edited.effect !== "none") {
				const index = result.messages.length + (edited.effect === "replaced" ? edited.first : 0);
				result.contextEdits.push({
					editId: edit.id,
					targetId: entry.id,
					effect: edited.effect,
					index,
					roles: rolesOf(messages),
				});
				messages = edited.effect === "hidden" ? [] : edited.messages;
			}
		}
		for (const message of messages) {
			result.messages.push(message);
			result.entryIds.push(entry.id);
		}
	}
}

function reportUnknown(entry: SessionEntry, at: number, reporter: Reporter): void {
	const type = (entry as { type?: unknown }).type;
	const what = type === undefined ? "has no type" : `has type ${capped(type)}, which this reader does not know`;
	reporter.report(
		`${reporter.where(at)} ${what}; it was read as sending nothing, which may not be what the pi that wrote it sends. Update convert-to-llm, or remove the entry if pi did not write it.`,
		at,
	);
}
