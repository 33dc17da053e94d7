/**
 * Version 1 and 2 session files, brought to version 3 in memory, as pi's `migrateSessionEntries`
 * does (the same in 0.73.1 and 1.6.0), except that nothing is written back and no parsed object is
 * mutated.
 */
import { isJsonObject } from "../values.js";
import { CURRENT_SESSION_VERSION, type SessionEntry, type SessionHeader } from "./types.js";

/** One parsed line: a JSON object of unknown shape. */
export type RawEntry = Record<string, unknown>;

/** The migrated entries of a session (headers excluded: pi's `getEntries()` drops every `session` line). */
export interface MigratedSession {
	header: SessionHeader;
	version: number;
	entries: SessionEntry[];
	/** The line number of each entry. */
	lines: number[];
}

/**
 * Migrates `raw` (the header first, then every value pi keeps: truthy JSON, objects or not) to
 * version 3. `lines[i]` is the line of `raw[i]`. Only objects become entries: pi keeps a `1` or a
 * `[]` too, but such a line has no id and links to nothing (in a version 1 file pi gives an array an
 * id, which only passes the chain on, and fails on any other value).
 *
 * Version 1 entries have no ids: pi gives them random ones and rewrites the file; here each gets its
 * line number padded to 8 digits, so `leafId` (the CLI's `--leaf`) can name it and every read gives the same ids.
 */
export function migrateEntries(raw: readonly unknown[], lines: readonly number[]): MigratedSession {
	const header = raw[0] as SessionHeader;
	// pi reads a missing version as 1 and compares loosely; keep its exact expressions.
	const version = (header.version ?? 1) as number;
	const entries: SessionEntry[] = [];
	const entryLines: number[] = [];
	if (version >= CURRENT_SESSION_VERSION) {
		let first = 1;
		while (first < raw.length && isEntry(raw[first])) first++;
		// Every value an entry (as in a file pi wrote): copied whole, not pushed one by one.
		if (first === raw.length) {
			return { header, version, entries: raw.slice(1) as SessionEntry[], lines: lines.slice(1) };
		}
		for (let i = 1; i < raw.length; i++) {
			const entry = raw[i];
			if (!isEntry(entry)) continue;
			entries.push(entry as unknown as SessionEntry);
			entryLines.push(lines[i] as number);
		}
		return { header, version, entries, lines: entryLines };
	}

	const ids: (string | undefined)[] = [];
	let previousId: string | null = null;
	for (let i = 1; i < raw.length; i++) {
		const source = raw[i];
		// An array takes its place in pi's version 1 chain but sends nothing: the next entry's parent
		// is the array's parent here (see withFirstKeptEntryId for a compaction that keeps from it).
		if (!isJsonObject(source)) continue;
		if (source.type === "session") continue;
		let entry = source;
		if (version < 2) {
			const id = String(lines[i]).padStart(8, "0");
			ids[i] = id;
			entry = { ...entry, id, parentId: previousId };
			previousId = id;
			if (entry.type === "compaction" && typeof entry.firstKeptEntryIndex === "number") {
				entry = withFirstKeptEntryId(entry, raw, ids, i);
			}
		}
		if (entry.type === "message") entry = renameHookMessage(entry);
		entries.push(entry as unknown as SessionEntry);
		entryLines.push(lines[i] as number);
	}
	return { header: { ...header, version: CURRENT_SESSION_VERSION }, version, entries, lines: entryLines };
}

/** Whether a kept value is an entry: an object, and not a (second) session header. */
const isEntry = (value: unknown): boolean => isJsonObject(value) && value.type !== "session";

/**
 * v1 → v2: `firstKeptEntryIndex` (an index among the values pi kept, header included) becomes
 * `firstKeptEntryId`. pi assigns ids in one pass, so an index pointing ahead of the compaction
 * finds an entry that has no id yet, and pi keeps its old `id` field (usually none). An array kept
 * from is kept from the entry after it (it sends nothing itself).
 */
function withFirstKeptEntryId(
	entry: RawEntry,
	raw: readonly unknown[],
	ids: readonly (string | undefined)[],
	at: number,
): RawEntry {
	const index = entry.firstKeptEntryIndex as number;
	const { firstKeptEntryIndex: _dropped, ...rest } = entry;
	const target = raw[index] as RawEntry | undefined;
	if (!target || target.type === "session") return rest;
	if (index > at) {
		rest.firstKeptEntryId = target.id;
		return rest;
	}
	let kept = index;
	while (kept < at && !(isJsonObject(raw[kept]) && (raw[kept] as RawEntry).type !== "session")) kept++;
	rest.firstKeptEntryId = ids[kept];
	return rest;
}

/** v2 → v3: the role `hookMessage` is now `custom` (same key order, so JSON output is unchanged). */
function renameHookMessage(entry: RawEntry): RawEntry {
	const message = entry.message as RawEntry | null | undefined;
	if (message?.role !== "hookMessage") return entry;
	return { ...entry, message: { ...message, role: "custom" } };
}
