/**
 * Reading the input with bounds: only a regular file (or `-`, standard input) is read, and never
 * more than the `--max-input` size, so that `/dev/zero`, a FIFO or an endless pipe cannot take the
 * machine's memory.
 */
import { closeSync, constants, fstatSync, openSync, readSync, type Stats, statSync } from "node:fs";
import { resolve } from "node:path";
import { errorText, isInstance } from "../values.js";
import { CliError, codeOf } from "./cli-error.js";

/**
 * 512 MiB: about the longest text Node can hold as one string (V8's limit is 2^29 − 24 characters),
 * which the session reader and `JSON.parse` need; a 200 MB session takes about 1.2 GB of memory.
 */
export const DEFAULT_MAX_INPUT = 512 * 1024 * 1024;

const CHUNK = 1024 * 1024;

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
		`${what} is larger than ${formatSize(maxBytes)}, the most the CLI reads (--max-input). ${
			maxBytes < DEFAULT_MAX_INPUT
				? "Pass a smaller history, or raise --max-input."
				: "Pass a smaller history: Node holds at most about 512 MiB of text as one string."
		}`,
	);

/**
 * The text of the regular file at `spec` (from `cwd`), at most `maxBytes` of it. The file is opened
 * read-only and non-blocking (a FIFO swapped in after the check cannot block the open), and checked
 * again on the open descriptor; the size is counted as it is read, since a file can grow or report
 * no size (`/proc`).
 */
export function readFileBounded(spec: string, cwd: string, maxBytes: number): string {
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
		const chunks: Buffer[] = [];
		let total = 0;
		// One read of the size the file reports (plus a byte, to see it grow); then chunks.
		let size = Math.min(Math.max(stats.size + 1, CHUNK), maxBytes + 1);
		for (;;) {
			const chunk = Buffer.allocUnsafe(Math.min(size, maxBytes + 1 - total));
			let filled = 0;
			for (let read = -1; filled < chunk.length && read !== 0; filled += read) {
				read = readSync(fd, chunk, filled, chunk.length - filled, null);
			}
			total += filled;
			if (total > maxBytes) throw tooLarge(what, maxBytes);
			chunks.push(chunk.subarray(0, filled));
			if (filled < chunk.length) break;
			size = CHUNK;
		}
		return decode(chunks, total, what);
	} catch (error) {
		if (isInstance(error, CliError)) throw error;
		throw cannotRead(error, spec, path);
	} finally {
		closeSync(fd);
	}
}

/** The text of a stream (standard input), refused once it passes `maxBytes`. */
export async function readStreamBounded(stream: AsyncIterable<unknown>, maxBytes: number): Promise<string> {
	const chunks: Buffer[] = [];
	let total = 0;
	for await (const chunk of stream) {
		const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
		total += buffer.length;
		// Leaving the loop ends the iteration, which destroys the stream: nothing more is read.
		if (total > maxBytes) throw tooLarge("stdin", maxBytes);
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
