/**
 * `buildSessionContext`: the history pi would send from a parsed session, walking from the leaf to the root as
 * pi 1.6.0 does (compaction, branch summaries, context edits); the walk is its own file, apart from reading.
 */
import type { SessionContext, SessionContextOptions } from "./context-types.js";
import { EntryLinks } from "./entry-links.js";
import { walkToRoot } from "./path.js";
import { ProblemLog } from "./problems.js";
import {
	applyEdit,
	capped,
	type EntryReporter,
	entryMessages,
	isSystemEntry,
	KNOWN_ENTRY_TYPES,
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
 * turn into a `NaN` timestamp, and an entry type this reader does not know. A `leafId` that names no
 * entry (or is `""`, which pi does not look up) falls back to the last entry, as pi's does, and is
 * listed; when the file's last line is JSON but no entry (`ParsedSession.nonEntryLastLine`), that
 * line is pi's leaf and the context is empty, as pi's is.
 *
 * @throws {InvalidSessionError} in strict mode on the first problem.
 * @example
 * const { messages, model } = buildSessionContext(parseSession(text), { leafId: "a1b2c3d4" });
 */
export function buildSessionContext(session: ParsedSession, options: BuildContextOptions = {}): SessionContext {
	return buildContextWith(session, options, undefined);
}

/**
 * {@link buildSessionContext}, with `whole` told the indices of the entries the context sends before
 * their messages are read (the reader checks there that none of them is slim: see slim.ts); when it
 * returns `false`, the context is left without its messages.
 */
export function buildContextWith(
	session: ParsedSession,
	options: BuildContextOptions,
	whole: ((entries: readonly number[]) => boolean) | undefined,
): SessionContext {
	const { strict = false, file } = options;
	const { entries, lines } = session;
	const log = new ProblemLog(strict, file);
	const reporter: EntryReporter = {
		report(kind, at, message) {
			log.add(kind, { line: lines[at], entryId: (entries[at] as SessionEntry).id }, message);
		},
		where: (at) => `entry ${capped((entries[at] as SessionEntry).id)} (line ${lines[at]})`,
	};

	const links = new EntryLinks(entries);
	const leaf = findLeaf(session, links, options, log);
	const result: SessionContext = {
		messages: [],
		entryIds: [],
		contextEdits: [],
		thinkingLevel: "off",
		model: null,
		leafId: leaf < 0 ? null : (entries[leaf] as SessionEntry).id,
		pathLength: 0,
		problems: log.problems,
		problemCounts: [],
	};
	if (leaf < 0) {
		result.problemCounts = log.summary();
		return result;
	}

	const path = walkToRoot(links, leaf, reporter);
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
	const chosen = contextEntries(entries, links.ids, path, compaction);
	if (whole?.(chosen) === false) return result;
	project(session, chosen, result, reporter);
	result.problemCounts = log.summary();
	return result;
}

/** No entry: `leafId: null`, or pi's leaf is a line that is not an entry (the context is empty). */
const NONE = -1;
const NOT_AN_ENTRY = -2;

/**
 * The entry to build from, as pi's `buildSessionPath` finds it: `leafId`, or the last line pi kept
 * when `leafId` is undefined, `""` or unknown (the last two reported).
 */
function findLeaf(session: ParsedSession, links: EntryLinks, options: BuildContextOptions, log: ProblemLog): number {
	const { leafId, file } = options;
	if (leafId === null) return NONE;
	const { entries, lines, nonEntryLastLine } = session;
	if (leafId !== undefined) {
		const found = leafId === "" ? undefined : links.indexOf(leafId);
		if (found !== undefined) return found;
		log.add("unknown-leaf", { entryId: leafId }, () => {
			const where = file === undefined ? "The session" : `"${file}"`;
			const last = entries.at(-1);
			const used =
				nonEntryLastLine !== undefined
					? `its last line, line ${nonEntryLastLine}, which is not an entry (pi would send an empty context)`
					: last === undefined
						? "nothing: it has no entries"
						: `the last entry, ${capped(last.id)} (line ${lines.at(-1)}), as pi builds it`;
			return `${where} has no entry with id ${capped(leafId)}; the context was built from ${used}. Pick the "id" of one of its lines with leafId.`;
		});
	}
	if (nonEntryLastLine !== undefined) {
		log.add("leaf-not-an-entry", { line: nonEntryLastLine }, () => {
			const where = file === undefined ? "The session" : `"${file}"`;
			return `${where}: pi would send an empty context: the last line is not an entry (line ${nonEntryLastLine} is JSON but not an object, and pi resumes from it). Remove that line, or pick a leaf with leafId.`;
		});
		return NOT_AN_ENTRY;
	}
	return entries.length - 1;
}

/**
 * pi 1.6.0's `buildContextEntries`: the path, or with a compaction on it, the latest compaction, the
 * kept entries before it that are not `system` messages, and every entry after it. `ids` are the
 * entries' ids, read once (an entry's own fields are slow to read: entries have many shapes).
 */
function contextEntries(
	entries: readonly SessionEntry[],
	ids: readonly unknown[],
	path: readonly number[],
	compaction: number,
): number[] {
	if (compaction === -1) return path as number[];
	const latest = entries[path[compaction] as number] as CompactionEntry;
	// pi looks the compaction up again by id: with duplicate ids that is the first one on the path.
	let end = 0;
	while (end < path.length) {
		const at = path[end] as number;
		if (ids[at] === latest.id && (entries[at] as SessionEntry).type === "compaction") break;
		end++;
	}
	const chosen = [path[compaction] as number];
	const keptId = latest.firstKeptEntryId;
	let p = 0;
	while (p < end && ids[path[p] as number] !== keptId) p++;
	for (; p < end; p++) {
		if (!isSystemEntry(entries[path[p] as number] as SessionEntry)) chosen.push(path[p] as number);
	}
	for (let p = end + 1; p < path.length; p++) chosen.push(path[p] as number);
	return chosen;
}

/**
 * pi 1.6.0's `buildSessionProjection`: each context entry's messages, with the latest `context_edit`
 * for it applied; an older compaction among them contributes nothing (0.87.0 on: the 0.80.10–0.86.1
 * duplicate summary was a bug pi fixed).
 */
function project(
	session: ParsedSession,
	chosen: readonly number[],
	result: SessionContext,
	reporter: EntryReporter,
): void {
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

function reportUnknown(entry: SessionEntry, at: number, reporter: EntryReporter): void {
	reporter.report("unknown-type", at, () => {
		const type = (entry as { type?: unknown }).type;
		const what = type === undefined ? "has no type" : `has type ${capped(type)}, which this reader does not know`;
		return `${reporter.where(at)} ${what}; it was read as sending nothing, which may not be what the pi that wrote it sends. Update convert-to-llm, or remove the entry if pi did not write it.`;
	});
}
