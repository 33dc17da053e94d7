/**
 * Where a session's bytes come from, with bounds: a regular file (nothing else at a path: not
 * `/dev/zero`, a FIFO or a directory), or a stream; never more than `maxBytes` of either, so that an
 * endless input cannot take the machine's memory. Read 64 KiB at a time, as chunks. Every refusal is
 * an `InvalidSessionError` that names the file and what to do.
 */
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from "node:fs";
import { resolve } from "node:path";
import { InvalidSessionError } from "../errors.js";
import { errorText, isInstance } from "../values.js";

/**
 * Bytes read at a time: 64 KiB, so that each chunk's text is a young object that dies in the next
 * scavenge (a megabyte's goes to the large-object space and waits for a full collection: about 30 MB
 * more at the peak of a 400,000-entry session).
 */
const CHUNK = 64 * 1024;

/**
 * Options of {@link fileChunks} and {@link streamChunks}.
 *
 * Contract: `file` only names the source in errors; `maxBytes` is the most bytes read
 * (`Number.POSITIVE_INFINITY`: no limit).
 *
 * @example
 * const options: SourceOptions = { file: "stdin", maxBytes: 512 * 1024 ** 2 };
 */
export interface SourceOptions {
	/** The name used in errors: the path as given, or `stdin`; a stream may have none. */
	file?: string;
	maxBytes: number;
}

/**
 * A regular file open for reading: its size at the open, and its bytes read at any offset (as
 * many as `buffer` holds, fewer at the end), never past `maxBytes`.
 */
export interface OpenFile {
	readonly size: number;
	readAt(buffer: Buffer, position: number): number;
	/** Its bytes from the start, as chunks (each a new buffer, read as it is asked for). */
	chunks(): Generator<Buffer>;
	close(): void;
}

/**
 * Opens the regular file at `path`, read-only and non-blocking (a FIFO swapped in for the file
 * cannot block the open), checked on the open descriptor: its kind, and its size against `maxBytes`.
 * The size is counted again as it is read: a file can grow, or report no size (`/proc`).
 *
 * @throws {InvalidSessionError} when the path is no regular file, cannot be read, or is too large.
 */
export function openFile(path: string, options: SourceOptions): OpenFile {
	const { file = path, maxBytes } = options;
	let fd: number;
	try {
		fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
	} catch (error) {
		throw cannotRead(error, file, resolve(path));
	}
	let size: number;
	try {
		const stats = fstatSync(fd);
		checkRegular(stats, file);
		if (stats.size > maxBytes) throw tooLarge(file, maxBytes);
		size = stats.size;
	} catch (error) {
		closeSync(fd);
		throw isInstance(error, InvalidSessionError) ? error : cannotRead(error, file, resolve(path));
	}
	const readAt = (buffer: Buffer, position: number): number => {
		let filled = 0;
		for (let read = -1; filled < buffer.length && read !== 0; filled += read) {
			try {
				read = readSync(fd, buffer, filled, buffer.length - filled, position + filled);
			} catch (error) {
				throw cannotRead(error, file, resolve(path));
			}
		}
		return filled;
	};
	function* chunks(): Generator<Buffer> {
		for (let total = 0; ; ) {
			// A byte past the limit is asked for, to see the file grow past it.
			const chunk = Buffer.allocUnsafe(Math.min(CHUNK, maxBytes + 1 - total));
			const filled = readAt(chunk, total);
			total += filled;
			if (total > maxBytes) throw tooLarge(file, maxBytes);
			if (filled > 0) yield filled < chunk.length ? chunk.subarray(0, filled) : chunk;
			if (filled < chunk.length) return;
		}
	}
	return { size, readAt, chunks, close: () => closeSync(fd) };
}

/**
 * The bytes of the regular file at `path`, as the session reader reads them: 64 KiB chunks, at most
 * `maxBytes` of them. For a host that looks at its input before it knows it is a session (the CLI:
 * a session, a JSON array or JSONL), so that it reads within the same bounds.
 *
 * Contract: the file is opened read-only and checked at once (a directory, a pipe, a device or a file
 * larger than `maxBytes` is refused before a byte is read), then read as the chunks are asked for;
 * it is closed when they end or their iteration is left. A file that grows past `maxBytes` while it
 * is read is refused then. Each chunk is a new buffer.
 *
 * @throws {InvalidSessionError} naming `file` and what to do, at once or while reading.
 * @example
 * for (const chunk of fileChunks("history.json", { file: "history.json", maxBytes: 64 * 1024 ** 2 })) bytes.push(chunk);
 */
export function fileChunks(path: string, options: SourceOptions): Iterable<Buffer> {
	const open = openFile(path, options);
	function* all(): Generator<Buffer> {
		try {
			yield* open.chunks();
		} finally {
			open.close();
		}
	}
	return all();
}

/**
 * The chunks of a stream, as the session reader reads them, refused once they pass `maxBytes`: the
 * bound {@link fileChunks} keeps, for standard input or a socket.
 *
 * Contract: text and bytes pass as they are, anything else as its `String`; bytes are counted as
 * they arrive (a string by its UTF-8 length). Leaving the iteration, or the refusal, ends the
 * stream's (`return()`), so nothing more is read.
 *
 * @throws {InvalidSessionError} when the stream passes `maxBytes`; the stream's own errors as they are.
 * @example
 * for await (const chunk of streamChunks(process.stdin, { file: "stdin", maxBytes: 64 * 1024 ** 2 })) parts.push(chunk);
 */
export async function* streamChunks(
	stream: AsyncIterable<unknown> | Iterable<unknown>,
	options: SourceOptions,
): AsyncGenerator<string | Uint8Array> {
	let total = 0;
	for await (const chunk of stream) {
		const piece = typeof chunk === "string" || chunk instanceof Uint8Array ? chunk : String(chunk);
		total += typeof piece === "string" ? Buffer.byteLength(piece) : piece.length;
		if (total > options.maxBytes) throw tooLarge(options.file, options.maxBytes);
		yield piece;
	}
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

const quoted = (file: string): string => `"${file}"`;

const tooLarge = (file: string | undefined, maxBytes: number): InvalidSessionError =>
	new InvalidSessionError(
		`${file === undefined ? "The session" : quoted(file)} is larger than ${formatSize(maxBytes)}, the most that is read (maxBytes). Pass a smaller input, or raise maxBytes.`,
		{ file },
	);

function checkRegular(stats: Stats, file: string): void {
	if (stats.isFile()) return;
	if (stats.isDirectory()) {
		throw new InvalidSessionError(`${quoted(file)} is a directory. Pass one session file (.jsonl) inside it.`, {
			file,
		});
	}
	const kind = stats.isFIFO()
		? "a pipe"
		: stats.isCharacterDevice()
			? "a character device"
			: stats.isBlockDevice()
				? "a block device"
				: stats.isSocket()
					? "a socket"
					: "not a file";
	throw new InvalidSessionError(
		`${quoted(file)} is not a regular file (it is ${kind}). Pass a session file, or read it as a stream with readSessionStream.`,
		{ file },
	);
}

function cannotRead(error: unknown, file: string, path: string): InvalidSessionError {
	const code = (error as { code?: unknown } | null)?.code;
	const details = { file, cause: error };
	if (code === "ENOENT" || code === "ENOTDIR") {
		return new InvalidSessionError(
			`cannot read ${quoted(file)}: no such file (looked for ${path}). Check the path; relative paths start from the current directory.`,
			details,
		);
	}
	if (code === "EISDIR") {
		return new InvalidSessionError(
			`${quoted(file)} is a directory. Pass one session file (.jsonl) inside it.`,
			details,
		);
	}
	if (code === "EACCES" || code === "EPERM") {
		return new InvalidSessionError(
			`cannot read ${quoted(file)}: permission denied. Check the file's permissions.`,
			details,
		);
	}
	return new InvalidSessionError(`cannot read ${quoted(file)}: ${errorText(error)}.`, details);
}
