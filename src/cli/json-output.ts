/**
 * `--json`'s output with texts the worker thread made (src/session/message-texts.ts): the bytes of
 * `JSON.stringify(output, null, 2)` and a newline, with each message the worker serialized taken
 * as it made it, and every other one serialized here.
 */
import { itemText } from "../session/message-texts.js";
import type { MessageText } from "../session/parallel-read.js";

const OPEN = Buffer.from("[\n  ");
const BETWEEN = Buffer.from(",\n  ");
const CLOSE = Buffer.from("\n]\n");

/**
 * The UTF-8 bytes of `JSON.stringify(output, null, 2)` followed by `\n`. Contract: the same bytes
 * as that text's, given that `textOf(message)` is `itemText(message)`'s bytes wherever it is defined.
 */
export function jsonBytes(output: readonly unknown[], textOf: MessageText): Buffer {
	if (output.length === 0) return Buffer.from("[]\n");
	const parts: Uint8Array[] = [OPEN];
	let total = OPEN.length + CLOSE.length + BETWEEN.length * (output.length - 1);
	for (let i = 0; i < output.length; i++) {
		if (i > 0) parts.push(BETWEEN);
		const message = output[i];
		const part = textOf(message) ?? Buffer.from(itemText(message));
		parts.push(part);
		total += part.length;
	}
	parts.push(CLOSE);
	return Buffer.concat(parts, total);
}
