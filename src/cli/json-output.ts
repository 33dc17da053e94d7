/**
 * `--json`'s output with texts the worker thread made (src/session/message-texts.ts): the bytes of
 * `JSON.stringify(output, null, 2)` and a newline, with each message the worker serialized taken
 * as it made it, and every other one serialized here.
 */

const OPEN = Buffer.from("[\n  ");
const BETWEEN = Buffer.from(",\n  ");
const CLOSE = Buffer.from("\n]\n");

/**
 * The UTF-8 bytes of `JSON.stringify(output, null, 2)` followed by `\n`. Contract: the same bytes
 * as that text's, given that `texts[i]` is `itemText(output[i])`'s bytes wherever it is defined.
 */
export function jsonBytes(output: readonly unknown[], texts: readonly (Uint8Array | undefined)[]): Buffer {
	if (output.length === 0) return Buffer.from("[]\n");
	const parts: Uint8Array[] = [OPEN];
	let total = OPEN.length + CLOSE.length;
	// The messages the worker did not serialize are serialized here a run at a time: one
	// `JSON.stringify` of a run is cheaper than one of each of its messages.
	let run = 0;
	const add = (part: Uint8Array): void => {
		if (parts.length > 1) {
			parts.push(BETWEEN);
			total += BETWEEN.length;
		}
		parts.push(part);
		total += part.length;
	};
	const flush = (end: number): void => {
		if (run < end) add(Buffer.from(itemsText(output.slice(run, end))));
	};
	for (let i = 0; i < output.length; i++) {
		const text = texts[i];
		if (text === undefined) continue;
		flush(i);
		add(text);
		run = i + 1;
	}
	flush(output.length);
	parts.push(CLOSE);
	return Buffer.concat(parts, total);
}

/** The items of `JSON.stringify(items, null, 2)`, as they are between its `[\n  ` and `\n]`. */
function itemsText(items: readonly unknown[]): string {
	return JSON.stringify(items, null, 2).slice(4, -2);
}
