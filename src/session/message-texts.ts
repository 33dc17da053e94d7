/**
 * The `--json` text of each message entry of a session file's rest, made on the worker thread
 * (parallel-read.ts) while the main thread parses the same lines for the conversion: the main
 * thread then writes these bytes for every message the conversion passes through unchanged,
 * instead of serializing it again.
 *
 * Why the bytes are the main thread's own `JSON.stringify`: both threads parse the same line text
 * with the same `JSON.parse` (one V8), so the two values have the same keys in the same order and
 * the same leaves, and `JSON.stringify` depends on nothing else. The line text is the same on both
 * threads when its bytes are valid UTF-8 (a text holding U+FFFD is not made: the two decoders may
 * have split an invalid sequence differently); the main thread uses a text only for the very object
 * it parsed from that line, and only when nothing else could have changed it (no plugin).
 */
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { isJsonObject } from "../values.js";
import { NOT_JSON, parseLine } from "./line-parser.js";
import { type LineSink, LineSplitter } from "./lines.js";

/** Some texts of a rest's message entries: a chunk of UTF-8, and where each text is in it. */
export interface EncodedTexts {
	chunk: Uint8Array;
	/** Three numbers per text: its line (1-based in the rest), its offset and length in `chunk`. */
	places: Int32Array;
}

/** Bytes per chunk (a longer text has a chunk of its own). */
const CHUNK_BYTES = 1024 * 1024;
const READ_BYTES = 64 * 1024;

/**
 * A message's text as an item of `JSON.stringify(messages, null, 2)`: its own serialization with
 * each line after the first indented two more spaces (what `[message]`'s serialization holds
 * between `[\n  ` and `\n]`).
 */
export function itemText(message: unknown): string {
	const text = JSON.stringify([message], null, 2);
	return text.slice(4, -2);
}

/** Collects the texts line by line (a {@link LineSink} of the rest), posting them a chunk at a time. */
class TextSink implements LineSink {
	private places: number[] = [];
	private chunk = Buffer.allocUnsafe(CHUNK_BYTES);
	private used = 0;

	/** Until the entry the context starts at is met, nothing is made (the main thread holds those slim). */
	private waitFor: string | undefined;
	private readonly needle: string;

	constructor(
		private readonly post: (texts: EncodedTexts) => void,
		from: string | undefined,
	) {
		this.waitFor = from;
		this.needle = from === undefined ? "" : `"id":${JSON.stringify(from)}`;
	}

	line(text: string, number: number): void {
		// A message entry's line starts so (pi writes `type` first); any other line is no message entry.
		if (text.charCodeAt(0) !== 0x7b || text.indexOf("\ufffd") !== -1) return;
		if (this.waitFor !== undefined && !text.includes(this.needle)) return;
		const value = parseLine(text);
		if (value === NOT_JSON || !isJsonObject(value)) return;
		if (this.waitFor !== undefined) {
			if (value.id !== this.waitFor) return;
			this.waitFor = undefined;
		}
		if (value.type !== "message" || !isJsonObject(value.message)) return;
		let item: string;
		try {
			item = itemText(value.message);
		} catch {
			// Too deep to serialize: the main thread says so itself.
			return;
		}
		const length = Buffer.byteLength(item);
		if (length > this.chunk.length - this.used) this.next(length);
		this.chunk.write(item, this.used, "utf8");
		this.places.push(number, this.used, length);
		this.used += length;
	}

	/** Posts the texts so far, and starts a chunk of at least `length` bytes. */
	next(length: number): void {
		if (this.places.length > 0)
			this.post({ chunk: this.chunk.subarray(0, this.used), places: Int32Array.from(this.places) });
		this.places = [];
		this.chunk = Buffer.allocUnsafe(Math.max(CHUNK_BYTES, length));
		this.used = 0;
	}
}

/**
 * The texts of the message entries of the file at `path` from byte `from` to its end, from the
 * entry whose id is `startId` on (every one without it), handed to `post` a chunk at a time, in
 * line order (the main thread takes what has come when it writes).
 */
export function readTexts(
	path: string,
	from: number,
	startId: string | undefined,
	post: (texts: EncodedTexts) => void,
): void {
	const sink = new TextSink(post, startId);
	const splitter = new LineSplitter(sink);
	const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
	try {
		if (!fstatSync(fd).isFile()) return;
		const buffer = Buffer.allocUnsafe(READ_BYTES);
		for (let position = from; ; ) {
			const read = readSync(fd, buffer, 0, READ_BYTES, position);
			if (read === 0) break;
			splitter.push(buffer.subarray(0, read));
			position += read;
		}
	} finally {
		closeSync(fd);
	}
	splitter.end();
	sink.next(0);
}

/**
 * The texts by the line they were made from, for the main thread: `at(line)` is the text of the
 * message entry on that line of the rest (1-based in the rest), if one was made.
 */
export function textsByLine(batches: readonly EncodedTexts[]): (line: number) => Uint8Array | undefined {
	const index = new Map<number, number>();
	for (let b = 0; b < batches.length; b++) {
		const places = (batches[b] as EncodedTexts).places;
		// Batch and place in one number: a batch holds at most a chunk's texts.
		for (let k = 0; k < places.length; k += 3) index.set(places[k] as number, b * 2 ** 21 + k);
	}
	return (line) => {
		const code = index.get(line);
		if (code === undefined) return undefined;
		const { chunk, places } = batches[Math.floor(code / 2 ** 21)] as EncodedTexts;
		const k = code % 2 ** 21;
		const offset = places[k + 1] as number;
		return chunk.subarray(offset, offset + (places[k + 2] as number));
	};
}
