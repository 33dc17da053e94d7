/**
 * Message entries held slim once parsed, where the context will not send them: a long session's
 * context is what follows its latest compaction, so most of its messages never reach the output, and
 * holding each whole costs memory and garbage-collection time (every one survives to the end).
 *
 * Every line is still parsed, as pi parses it (the same problems, the same ids), and a slim entry
 * keeps every field the context builder reads of an entry it does not send: `type`, `id`,
 * `parentId`, and its message's `role`, `provider` and `model`. Should the context send a slim entry
 * after all ({@link anySlim}: the hint was wrong, or the file is not in pi's order), the session is
 * read again whole, so a slim entry can only cost time, never change a result.
 */
import { isJsonObject } from "../values.js";
import type { RawEntry } from "./migrate.js";
import type { SessionEntry } from "./types.js";

/** Marks a slim entry. */
const SLIM: unique symbol = Symbol("slim entry");

/**
 * `value` as a slim entry when it is a `message` entry with a message object, else `value` itself.
 */
export function slimEntry(value: RawEntry): RawEntry {
	const message = value.message;
	if (value.type !== "message" || !isJsonObject(message)) return value;
	return slimMessageEntry(value.id, value.parentId, message.role, message.provider, message.model);
}

/**
 * A slim entry: its own fields are a message entry's (in the order pi writes them), and its mark is
 * its prototype's, so that each is made as fast as a plain object (an object literal with the mark
 * as a field of its own is made about four times more slowly).
 */
class SlimEntry {
	readonly type = "message";
	readonly id: unknown;
	readonly parentId: unknown;
	readonly message: { role: unknown; provider: unknown; model: unknown };

	constructor(id: unknown, parentId: unknown, role: unknown, provider: unknown, model: unknown) {
		this.id = id;
		this.parentId = parentId;
		this.message = { role, provider, model };
	}
}
Object.defineProperty(SlimEntry.prototype, SLIM, { value: true });

/** The slim `message` entry with these fields (what {@link slimEntry} makes of a message entry). */
export function slimMessageEntry(
	id: unknown,
	parentId: unknown,
	role: unknown,
	provider: unknown,
	model: unknown,
): RawEntry {
	return new SlimEntry(id, parentId, role, provider, model) as unknown as RawEntry;
}

/** Whether `value` is a slim entry ({@link slimEntry}). */
export const isSlim = (value: unknown): value is RawEntry =>
	isJsonObject(value) && (value as { [SLIM]?: true })[SLIM] === true;

/** Whether any of `entries[at]`, `at` in `indices`, is a slim entry. */
export function anySlim(entries: readonly SessionEntry[], indices: readonly number[]): boolean {
	for (let k = 0; k < indices.length; k++) {
		if ((entries[indices[k] as number] as unknown as { [SLIM]?: true })[SLIM] === true) return true;
	}
	return false;
}

/**
 * The `firstKeptEntryId` of the latest compaction a session's bytes hold, read from their end: the
 * line `{"type":"compaction",…` (as pi writes it) nearest the end, parsed alone. Only a hint of where
 * the context starts: message entries before that entry are held slim ({@link slimEntry}).
 */
export function latestFirstKeptId(
	read: (buffer: Buffer, position: number) => number,
	size: number,
): string | undefined {
	return latestCompaction(read, size)?.keptId;
}

/** Reads `buffer.length` bytes (fewer at the end) of a file at `position`; gives how many it read. */
export type ReadAt = (buffer: Buffer, position: number) => number;

/**
 * The latest compaction line of a session's bytes ({@link latestFirstKeptId}): its
 * `firstKeptEntryId`, and the offset of the line.
 */
export function latestCompaction(read: ReadAt, size: number): { keptId: string; at: number } | undefined {
	const pattern = Buffer.from('\n{"type":"compaction",');
	const chunk = 1024 * 1024;
	// Chunks overlap, so that a compaction line split between two is read whole (a longer one, which
	// holds a system prompt, gives no hint).
	const overlap = 64 * 1024;
	const buffer = Buffer.allocUnsafe(chunk + overlap);
	for (let end = size; end > 0; end -= chunk) {
		const start = Math.max(0, end - chunk);
		const length = Math.min(size, end + overlap) - start;
		const filled = read(buffer.subarray(0, length), start);
		const bytes = buffer.subarray(0, filled);
		// A match that starts in the overlap was the later chunk's to find.
		const at = lastMatch(bytes, pattern, end - start - 1);
		if (at === -1) continue;
		const line = bytes.indexOf(0x0a, at + 1);
		if (line === -1) return undefined;
		try {
			const compaction: unknown = JSON.parse(bytes.toString("utf8", at + 1, line));
			const kept = isJsonObject(compaction) ? compaction.firstKeptEntryId : undefined;
			return typeof kept === "string" ? { keptId: kept, at: start + at + 1 } : undefined;
		} catch {
			return undefined;
		}
	}
	return undefined;
}

/**
 * The offset of the last `pattern` in `bytes` that starts at or before `limit`, or -1. Searched
 * forwards: a compaction line is rare, and `indexOf` runs about three times as fast as
 * `lastIndexOf` over a chunk that has none (3.8 against 10.2 ms over 36 MB on Node 22).
 */
function lastMatch(bytes: Buffer, pattern: Buffer, limit: number): number {
	let last = -1;
	for (let at = bytes.indexOf(pattern); at !== -1 && at <= limit; at = bytes.indexOf(pattern, at + 1)) last = at;
	return last;
}
