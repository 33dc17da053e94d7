/**
 * Which of a conversion's output messages the worker serialized (message-texts.ts), found by
 * walking the output, the context's messages, the session's entries and the texts together, in
 * order, comparing objects by identity: a message the conversion passed on is the very object the
 * context holds, which is its entry's `message`, parsed from that entry's line. (A `Map` keyed by
 * the messages would give each of them an identity hash first: a third of the cost.)
 */
import type { EncodedTexts } from "./message-texts.js";
import type { ReadSessionResult } from "./read.js";

/** How far ahead the walk looks for the next message passed on (past dropped and converted ones). */
const WINDOW = 32;

/**
 * For each output message, the bytes the worker made for it, or `undefined` (the caller serializes
 * it): `result` is the session read, `lineCount` the lines of its start, `batches` the texts made
 * for the rest, in line order.
 */
export function outputTexts(
	output: readonly unknown[],
	result: ReadSessionResult,
	lineCount: number,
	batches: readonly EncodedTexts[],
): (Uint8Array | undefined)[] {
	const texts: (Uint8Array | undefined)[] = new Array(output.length);
	const { messages } = result;
	const { entries, lines } = result.session;
	let input = 0;
	let entry = firstAfter(lines, lineCount);
	let searched = false;
	let batch = 0;
	let place = 0;
	for (let i = 0; i < output.length; i++) {
		const message = output[i];
		const from = find(messages, input, message, (m) => m);
		if (from === -1) continue;
		input = from + 1;
		// The first message may follow many entries (those held slim): look as far as it takes.
		const at = find(entries, entry, message, (e) => (e as { message?: unknown }).message, !searched);
		// One search as far as it takes, whatever it finds: the walk stays linear.
		searched = true;
		if (at === -1) continue;
		entry = at + 1;
		const line = (lines[at] as number) - lineCount;
		while (batch < batches.length) {
			const places = (batches[batch] as EncodedTexts).places;
			while (place < places.length && (places[place] as number) < line) place += 3;
			if (place < places.length) break;
			batch++;
			place = 0;
		}
		if (batch === batches.length) break;
		const { chunk, places } = batches[batch] as EncodedTexts;
		if (places[place] !== line) continue;
		const offset = places[place + 1] as number;
		texts[i] = chunk.subarray(offset, offset + (places[place + 2] as number));
	}
	return texts;
}

/** The index of `value` in `list` from `start` on (within {@link WINDOW} unless `far`), or -1. */
function find<T>(list: readonly T[], start: number, value: unknown, of: (item: T) => unknown, far = false): number {
	const end = far ? list.length : Math.min(list.length, start + WINDOW);
	for (let k = start; k < end; k++) if (of(list[k] as T) === value) return k;
	return -1;
}

/** The first index whose line is after `lineCount` (lines ascend). */
function firstAfter(lines: readonly number[], lineCount: number): number {
	let low = 0;
	let high = lines.length;
	while (low < high) {
		const mid = (low + high) >> 1;
		if ((lines[mid] as number) <= lineCount) low = mid + 1;
		else high = mid;
	}
	return low;
}
