/**
 * Reading the input with bounds: only a regular file (or `-`, standard input) is read, and never
 * more than the `--max-input` size, so that `/dev/zero`, a FIFO or an endless pipe cannot take the
 * machine's memory. The input is read as a stream of chunks: a session is parsed line by line as
 * they arrive, never held whole.
 */
import { closeSync, constants, fstatSync, openSync, readSync, type Stats, statSync } from "node:fs";
import { resolve } from "node:path";
import { errorText } from "../values.js";
import { CliError, codeOf } from "./cli-error.js";

/**
 * 512 MiB by default: about the longest text Node can hold as one string (V8's limit is 2^29 − 24
 * characters), which a JSON array needs; a session is read line by line and may be larger (raise
 * `--max-input`), its parsed entries taking about four times its size in memory.
 */
export const DEFAULT_MAX_INPUT = 512 * 1024 * 1024;

/** Bytes read at a time (see the session reader's CHUNK: a megabyte of text waits for a full collection). */
const CHUNK = 64 * 1024;

/** `1536`, `64K`, `256M`, `1G` (binary units, case-insensitive, an optional `iB`/`B`) as bytes. */
export function parseSize(text: string): number | undefined {
	let end = text.length;
	const upper = text.toUpperCase();
	if (upper.endsWith("IB")) end -= 2;
	else if (upper.endsWith("B")) end -= 1;
	const unit = "KMG".indexOf(upper.charAt(end - 1));
	if (unit !== -1) end -= 1;
	const digits = text.slice(0, end);
	if (digits === "" || digits.length > 15) return undefined;
	for (let i = 0; i < digits.length; i++) {
		const code = digits.charCodeAt(i);
		if (code < 0x30 || code > 0x39) return undefined;
	}
	const bytes = Number(digits) * 1024 ** (unit + 1);
	return bytes > 0 && Number.isSafeInteger(bytes) ? bytes : undefined;
}

/** A size as `512 MiB`, `64 KiB` or `100 bytes`. */
export function formatSize(bytes: number): string {
	for (const [unit, size] of [
		["GiB", 1024 ** 3],
		["MiB", 1024 ** 2],
		["KiB", 1024],
	] as const) {
		if (bytes >= size && bytes % (size / 1024) === 0) return `${(bytes / size).toLocaleString("en-US")} ${unit}`;
	}
	return `${bytes.toLocaleString("en-US")} bytes`;
}

/** The error for input over the limit; `what` is `stdin` or a quoted path. */
export const tooLarge = (what: string, maxBytes: number): CliError =>
	new CliError(
		`${what} is larger than ${formatSize(maxBytes)}, the most the CLI reads (--max-input). Pass a smaller history, or raise --max-input.`,
	);

/**
 * The regular file at `spec` (from `cwd`), as chunks, at most `maxBytes` of it. The file is opened
 * (and checked) at once, read-only and non-blocking (a FIFO swapped in after the check cannot block
 * the open), and checked again on the open descriptor; the size is counted as it is read, since a
 * file can grow or report no size (`/proc`). The chunks are read as they are asked for: each is a
 * new buffer. With `from`, the bytes before it are not read (but count towards `maxBytes`).
 */
export function fileChunks(spec: string, cwd: string, maxBytes: number, from = 0): Iterable<Buffer> {
	const path = resolve(cwd, spec);
	const what = `"${spec}"`;
	checkRegular(
		statOrThrow(() => statSync(path), spec, path),
		what,
	);
	let fd: number;
	try {
		fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
	} catch (error) {
		throw cannotRead(error, spec, path);
	}
	try {
		const stats = statOrThrow(() => fstatSync(fd), spec, path);
		checkRegular(stats, what);
		if (stats.size > maxBytes) throw tooLarge(what, maxBytes);
	} catch (error) {
		closeSync(fd);
		throw error;
	}
	return readChunks(fd, spec, path, maxBytes, from);
}

function* readChunks(fd: number, spec: string, path: string, maxBytes: number, from: number): Generator<Buffer> {
	const what = `"${spec}"`;
	let total = from;
	try {
		for (;;) {
			// A byte past the limit is asked for, to see the file grow past it.
			const chunk = Buffer.allocUnsafe(Math.min(CHUNK, maxBytes + 1 - total));
			let filled = 0;
			for (let read = -1; filled < chunk.length && read !== 0; filled += read) {
				read = readOrThrow(fd, chunk, filled, total + filled, spec, path);
			}
			total += filled;
			if (total > maxBytes) throw tooLarge(what, maxBytes);
			if (filled > 0) yield filled < chunk.length ? chunk.subarray(0, filled) : chunk;
			if (filled < chunk.length) return;
		}
	} finally {
		closeSync(fd);
	}
}

function readOrThrow(fd: number, chunk: Buffer, filled: number, position: number, spec: string, path: string): number {
	try {
		return readSync(fd, chunk, filled, chunk.length - filled, position);
	} catch (error) {
		throw cannotRead(error, spec, path);
	}
}

/** The text of the regular file at `spec`, at most `maxBytes` of it (see {@link fileChunks}). */
export function readFileBounded(spec: string, cwd: string, maxBytes: number): string {
	const chunks: Buffer[] = [];
	let total = 0;
	for (const chunk of fileChunks(spec, cwd, maxBytes)) {
		chunks.push(chunk);
		total += chunk.length;
	}
	return decode(chunks, total, `"${spec}"`);
}

/** The chunks of a stream (standard input), refused once they pass `maxBytes`. */
export async function* boundedChunks(
	stream: AsyncIterable<unknown>,
	maxBytes: number,
	what = "stdin",
): AsyncGenerator<string | Uint8Array> {
	let total = 0;
	for await (const chunk of stream) {
		const piece = typeof chunk === "string" || chunk instanceof Uint8Array ? chunk : String(chunk);
		total += typeof piece === "string" ? Buffer.byteLength(piece) : piece.length;
		// Leaving the loop ends the iteration, which destroys the stream: nothing more is read.
		if (total > maxBytes) throw tooLarge(what, maxBytes);
		yield piece;
	}
}

/** The text of a stream (standard input), refused once it passes `maxBytes`. */
export async function readStreamBounded(stream: AsyncIterable<unknown>, maxBytes: number): Promise<string> {
	const chunks: Buffer[] = [];
	let total = 0;
	for await (const chunk of boundedChunks(stream, maxBytes)) {
		const buffer =
			typeof chunk === "string" ? Buffer.from(chunk) : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length);
		total += buffer.length;
		chunks.push(buffer);
	}
	return decode(chunks, total, "stdin");
}

function decode(chunks: Buffer[], total: number, what: string): string {
	try {
		const bytes = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, total);
		return bytes.toString("utf8");
	} catch (error) {
		if (codeOf(error) !== "ERR_STRING_TOO_LONG") throw error;
		throw new CliError(
			`${what} is too large for Node to hold as one string (about 512 MiB of text). Pass a smaller history.`,
		);
	}
}

function checkRegular(stats: Stats, what: string): void {
	if (stats.isFile()) return;
	if (stats.isDirectory()) throw new CliError(`${what} is a directory. Pass one session file (.jsonl) inside it.`);
	const kind = stats.isFIFO()
		? "a pipe"
		: stats.isCharacterDevice()
			? "a character device"
			: stats.isBlockDevice()
				? "a block device"
				: stats.isSocket()
					? "a socket"
					: "not a file";
	throw new CliError(
		`${what} is not a regular file (it is ${kind}). Pass a session file, or - and send the history on standard input.`,
	);
}

function statOrThrow(stat: () => Stats, spec: string, path: string): Stats {
	try {
		return stat();
	} catch (error) {
		throw cannotRead(error, spec, path);
	}
}

function cannotRead(error: unknown, spec: string, path: string): CliError {
	const code = codeOf(error);
	if (code === "ENOENT" || code === "ENOTDIR") {
		return new CliError(
			`cannot read "${spec}": no such file (looked for ${path}). Check the path; relative paths start from the current directory.`,
		);
	}
	if (code === "EISDIR") return new CliError(`"${spec}" is a directory. Pass one session file (.jsonl) inside it.`);
	if (code === "EACCES" || code === "EPERM") {
		return new CliError(`cannot read "${spec}": permission denied. Check the file's permissions.`);
	}
	return new CliError(`cannot read "${spec}": ${errorText(error)}.`);
}
