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
import { isJsonObject, parseJsonLine } from "../values.js";
import type { RawEntry } from "./migrate.js";
import type { SessionEntry } from "./types.js";

/** Marks a slim entry. */
const SLIM: unique symbol = Symbol("slim entry");

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

/**
 * `value` as a slim entry when it is a `message` entry with a message object, else `value` itself.
 */
export function slimEntry(value: RawEntry): RawEntry {
	const message = value.message;
	if (value.type !== "message" || !isJsonObject(message)) return value;
	return new SlimEntry(value.id, value.parentId, message.role, message.provider, message.model) as unknown as RawEntry;
}

/** Whether any of `entries[at]`, `at` in `indices`, is a slim entry. */
export function anySlim(entries: readonly SessionEntry[], indices: readonly number[]): boolean {
	for (let k = 0; k < indices.length; k++) {
		if ((entries[indices[k] as number] as unknown as { [SLIM]?: true })[SLIM] === true) return true;
	}
	return false;
}

/** Reads `buffer.length` bytes (fewer at the end) of a file at `position`; gives how many it read. */
export type ReadAt = (buffer: Buffer, position: number) => number;

/** How pi writes a compaction line (after the `\n` that ends the line before). */
const COMPACTION_LINE = '\n{"type":"compaction",';

/**
 * The `firstKeptEntryId` of the latest compaction a session's bytes hold, read from their end: the
 * line `{"type":"compaction",…` (as pi writes it) nearest the end, parsed alone. Only a hint of where
 * the context starts: message entries before that entry are held slim ({@link slimEntry}).
 */
export function latestKeptId(read: ReadAt, size: number): string | undefined {
	const pattern = Buffer.from(COMPACTION_LINE);
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
		return line === -1 ? undefined : keptIdOf(bytes.toString("utf8", at + 1, line));
	}
	return undefined;
}

/** {@link latestKeptId} of a session's text. */
export function latestKeptIdInText(text: string): string | undefined {
	const at = text.lastIndexOf(COMPACTION_LINE);
	if (at === -1) return undefined;
	const line = text.indexOf("\n", at + 1);
	return line === -1 ? undefined : keptIdOf(text.slice(at + 1, line));
}

/** The `firstKeptEntryId` of a compaction line, when it is one. */
function keptIdOf(line: string): string | undefined {
	const compaction = parseJsonLine(line);
	const kept = isJsonObject(compaction) ? compaction.firstKeptEntryId : undefined;
	return typeof kept === "string" ? kept : undefined;
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
