/**
 * The start of a session file, read as the session reader reads it (every line parsed as pi parses
 * it, message entries held slim until the hinted entry): the job a worker thread does while the
 * main thread reads the rest (parallel-read.ts).
 */
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { SessionLineParser } from "./line-parser.js";
import { LineSplitter } from "./lines.js";
import { type EncodedStart, encodeStart } from "./start-codec.js";

/** What to read: the first `end` bytes of the file at `path` (`end` just after a `\n`). */
export interface StartJob {
	path: string;
	end: number;
	/** The id message entries are held slim until (see slim.ts). */
	slimUntil: string;
	/** The file's name in problems. */
	file: string;
}

/** The start, encoded, and how many lines it has; `undefined` when the rest cannot follow it. */
export interface StartResult {
	start: EncodedStart | undefined;
	lineCount: number;
}

/** Bytes read at a time (as read.ts reads: a 64 KiB chunk's text dies young). */
const CHUNK = 64 * 1024;

/**
 * Reads the first `job.end` bytes of the file as a {@link SessionLineParser} does. Throws what the
 * parser throws (a first value that is not a session header, a line longer than a string) and what
 * reading throws: the caller then reads the file on one thread, which says why.
 */
export function readStart(job: StartJob): StartResult {
	const parser = new SessionLineParser({ file: job.file, slimUntil: job.slimUntil });
	const splitter = new LineSplitter(parser);
	const fd = openSync(job.path, constants.O_RDONLY | constants.O_NONBLOCK);
	try {
		if (!fstatSync(fd).isFile()) return { start: undefined, lineCount: 0 };
		const buffer = Buffer.allocUnsafe(CHUNK);
		for (let position = 0; position < job.end; ) {
			const read = readSync(fd, buffer, 0, Math.min(CHUNK, job.end - position), position);
			if (read === 0) return { start: undefined, lineCount: 0 };
			splitter.push(buffer.subarray(0, read));
			position += read;
		}
	} finally {
		closeSync(fd);
	}
	// The range ends just after a `\n`: no line is pending, and the splitter's number is the next line's.
	splitter.end();
	const start = parser.start();
	return { start: start === undefined ? undefined : encodeStart(start), lineCount: splitter.lineNumber - 1 };
}
