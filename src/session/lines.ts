/**
 * Text to lines, chunk by chunk: a session is read as a stream of lines, never as one string, so a
 * file larger than the longest string Node can hold (about 512 MiB) reads as any other.
 */
import { StringDecoder } from "node:string_decoder";

/**
 * Where a {@link LineSplitter}'s lines go.
 *
 * Contract: `line` is called once per line, in order, with the line without its `\n` and its 1-based
 * number; it may throw, which ends the splitting there.
 *
 * @example
 * const sink: LineSink = { line: (text, number) => console.log(number, text.length) };
 */
export interface LineSink {
	line(text: string, number: number): void;
}

/**
 * Splits chunks of text (or of UTF-8 bytes: a character split between two chunks is decoded whole)
 * on `\n`, as pi's `split("\n")` does, and hands each line to `sink`: the session reader's lines, for
 * a host that reads other JSONL the same way (the CLI).
 *
 * Contract: `\r` stays on its line (JSON allows it around a value, and a blank line is blank with
 * it); a line is handed on once its `\n` arrives, the last one (without a `\n`) at `end()`. A line
 * longer than Node's longest string throws a `RangeError`.
 *
 * @example
 * const splitter = new LineSplitter({ line: (text, number) => lines.push(text) });
 * for await (const chunk of stream) splitter.push(chunk);
 * splitter.end();
 */
export class LineSplitter {
	private pending = "";
	private number = 1;
	private decoder: StringDecoder | undefined;

	constructor(private readonly sink: LineSink) {}

	/** The number of the line being read (the one the next `\n` ends). */
	get lineNumber(): number {
		return this.number;
	}

	/** Splits one chunk; an incomplete last line waits for the next chunk. */
	push(chunk: string | Uint8Array): void {
		let text: string;
		if (typeof chunk === "string") text = chunk;
		else {
			this.decoder ??= new StringDecoder("utf8");
			text = this.decoder.write(chunk as Buffer);
		}
		if (text.length === 0) return;
		let from = 0;
		let to = text.indexOf("\n");
		if (to === -1) {
			this.pending += text;
			return;
		}
		const sink = this.sink;
		if (this.pending.length > 0) {
			sink.line(this.pending + text.slice(0, to), this.number++);
			this.pending = "";
			from = to + 1;
			to = text.indexOf("\n", from);
		}
		while (to !== -1) {
			sink.line(text.slice(from, to), this.number++);
			from = to + 1;
			to = text.indexOf("\n", from);
		}
		this.pending = from < text.length ? text.slice(from) : "";
	}

	/** Hands on the last line (one without a final `\n`), if any. */
	end(): void {
		const rest = this.decoder === undefined ? "" : this.decoder.end();
		const last = this.pending + rest;
		this.pending = "";
		if (last.length > 0) this.sink.line(last, this.number);
	}
}

/** Hands each line of `text` to `sink`. */
export function splitText(text: string, sink: LineSink): void {
	const splitter = new LineSplitter(sink);
	splitter.push(text);
	splitter.end();
}
