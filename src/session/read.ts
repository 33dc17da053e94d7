/**
 * The one entrance for reading a pi session, from a text, a file or a stream: the bounded source
 * (source.ts), the lines read as pi reads them (line-parser.ts), the message entries the context will
 * not send held slim, the second pass when it sends one after all (slim.ts), and the context
 * (context.ts); it returns, in one read, what every caller needs.
 */
import { InvalidSessionError } from "../errors.js";
import { buildContextWith } from "./context.js";
import type { SessionContext, SessionContextOptions } from "./context-types.js";
import { SessionLineParser } from "./line-parser.js";
import { LineSplitter } from "./lines.js";
import { anySlim, latestKeptId, latestKeptIdInText } from "./slim.js";
import { openFile, streamChunks } from "./source.js";
import type { ParsedSession, ParseSessionOptions, SessionHeader } from "./types.js";

/**
 * Options of {@link readSession}, {@link readSessionFile} and {@link readSessionStream}.
 *
 * Contract: `strict` applies to both steps (a skipped line and a problem on the path both throw);
 * `leafId` is as in {@link SessionContextOptions}; `file` only names the file in problems and errors,
 * nothing is read from it; `tree: true` adds {@link ReadSessionResult.tree}; `maxBytes` bounds what
 * `readSessionFile` and `readSessionStream` read.
 *
 * @example
 * const { messages } = readSessionFile(path, { leafId: "a1b2c3d4", strict: true, maxBytes: 256 * 1024 ** 2 });
 */
export interface ReadSessionOptions extends ParseSessionOptions, SessionContextOptions {
	/** The name of the file, used in problems and errors. `readSessionFile` sets it to the path. */
	file?: string;
	/**
	 * Return every entry of the file, whole, as `tree` (what a view of the whole tree needs, such as
	 * the HTML report's history column). The file is then read in one pass with every entry whole, so
	 * a long session takes more memory. Default `false`.
	 */
	tree?: boolean;
	/**
	 * The most bytes `readSessionFile` and `readSessionStream` read: a larger file is refused before it
	 * is read, a longer stream once it passes the limit. Default: no limit.
	 */
	maxBytes?: number;
}

/**
 * The whole tree of a session: every entry of the file, on every branch, and the leaf the context
 * was built from.
 *
 * Contract: `session` is the file parsed and migrated (every entry whole, in file order, with its
 * line); `leafId` is {@link SessionContext.leafId}.
 *
 * @example
 * const { tree } = readSessionFile(path, { tree: true });
 * const branches = tree?.session.entries.filter((entry) => entry.parentId === null).length;
 */
export interface SessionTree {
	session: ParsedSession;
	leafId: string | null;
}

/**
 * A session read end to end: the context pi would send from the leaf, and the file's facts.
 *
 * Contract: `problems` lists the skipped lines first, then the problems met on the path (the first
 * few of each kind), `problemCounts` the counts of both; the other {@link SessionContext} fields are
 * the context's. `header`, `version` and `entryCount` are the file's (every branch); `tree` is set
 * only when asked for (`tree: true`).
 *
 * @example
 * const { messages, entryIds, problems, entryCount } = readSession(text);
 * for (const problem of problems) console.warn(problem.message);
 */
export interface ReadSessionResult extends SessionContext {
	/** The header line, its `version` set to the current one. */
	header: SessionHeader;
	/** The format version the file was written in (1 when the header has none). */
	version: number;
	/** How many entries the file holds, on every branch. */
	entryCount: number;
	/** With `tree: true`: every entry of the file, whole, and the leaf. */
	tree?: SessionTree;
}

/**
 * Reads a session from the text of a pi session file (any version) and builds the context pi would
 * send.
 *
 * Contract: {@link parseSession} then {@link buildSessionContext}, with the same options: the messages
 * deep-equal pi's (0.73.1 and 1.6.0) for the same file and leaf. Lenient by default (problems are
 * listed, not thrown); the text is only read.
 *
 * @throws {InvalidSessionError} see {@link parseSession} and {@link buildSessionContext}.
 * @example
 * const { messages } = readSession(text, { leafId: "a1b2c3d4" });
 * const model = convertToLlm(messages);
 */
export function readSession(text: string, options: ReadSessionOptions = {}): ReadSessionResult {
	const slimUntil = options.tree === true ? undefined : latestKeptIdInText(text);
	return readInPasses(() => [text], slimUntil, options, options.file);
}

/**
 * Reads a pi session file and builds the context pi would send. Opens the file read-only: unlike
 * pi's `SessionManager.open`, it never migrates, rewrites or truncates it.
 *
 * Contract: {@link readSession} of the file's UTF-8 text, with `file` defaulting to `path` so that
 * problems name it. Only a regular file is read, at most `maxBytes` of it. The file is read 64 KiB
 * at a time and line by line, as pi 1.x reads it, so its size is bounded by memory for the parsed
 * entries only, not by Node's longest string (about 512 MiB): only a single line must fit in one.
 *
 * @throws {InvalidSessionError} see {@link readSession}; for a path that is no regular file (a
 * directory, a pipe: read a pipe with {@link readSessionStream}), cannot be read or is larger than
 * `maxBytes`; and for a line longer than Node's longest string.
 * @example
 * const { messages, problems } = readSessionFile(join(homedir(), ".pi/agent/sessions/…/session.jsonl"));
 */
export function readSessionFile(path: string, options: ReadSessionOptions = {}): ReadSessionResult {
	const file = options.file ?? path;
	const open = openFile(path, { file, maxBytes: options.maxBytes ?? Number.POSITIVE_INFINITY });
	try {
		const slimUntil = options.tree === true ? undefined : latestKeptId(open.readAt, open.size);
		return readInPasses(() => open.chunks(), slimUntil, options, file);
	} finally {
		open.close();
	}
}

/**
 * Reads a pi session from any stream of chunks (a file stream, standard input, a fetch body): text
 * or UTF-8 bytes, split anywhere (a character split between two chunks is decoded whole).
 *
 * Contract: {@link readSession} of the concatenated chunks, at most `maxBytes` of them; lines are
 * parsed as they arrive, so the text is never held whole. A stream is read once: every entry is held
 * whole. The iteration is ended (`return()`) when the reader throws.
 *
 * @throws {InvalidSessionError} as {@link readSessionFile}; the stream's own errors reject as they are.
 * @example
 * const { messages } = await readSessionStream(createReadStream(path), { file: path });
 * const fromStdin = await readSessionStream(process.stdin, { file: "stdin" });
 */
export async function readSessionStream(
	chunks: AsyncIterable<string | Uint8Array> | Iterable<string | Uint8Array>,
	options: ReadSessionOptions = {},
): Promise<ReadSessionResult> {
	const { file } = options;
	const parser = new SessionLineParser({ strict: options.strict, file });
	const splitter = new LineSplitter(parser);
	for await (const chunk of streamChunks(chunks, { file, maxBytes: options.maxBytes ?? Number.POSITIVE_INFINITY })) {
		push(splitter, chunk, file);
	}
	splitter.end();
	return resultOf(parser.finish(), options, file, false) as ReadSessionResult;
}

/**
 * The session in `chunks`: first with the message entries before `slimUntil` held slim, then, when
 * the context sends one of them after all, again with every entry whole.
 */
function readInPasses(
	chunks: () => Iterable<string | Uint8Array>,
	slimUntil: string | undefined,
	options: ReadSessionOptions,
	file: string | undefined,
): ReadSessionResult {
	if (slimUntil !== undefined) {
		const slim = readPass(chunks(), slimUntil, options, file);
		if (slim !== undefined) return slim;
	}
	return readPass(chunks(), undefined, options, file) as ReadSessionResult;
}

/** One pass over the chunks; `undefined` when the context sends an entry held slim. */
function readPass(
	chunks: Iterable<string | Uint8Array>,
	slimUntil: string | undefined,
	options: ReadSessionOptions,
	file: string | undefined,
): ReadSessionResult | undefined {
	const parser = new SessionLineParser({ strict: options.strict, file, slimUntil });
	const splitter = new LineSplitter(parser);
	for (const chunk of chunks) push(splitter, chunk, file);
	splitter.end();
	return resultOf(parser.finish(), options, file, slimUntil !== undefined);
}

/** One chunk into the splitter, with a line longer than Node's longest string said plainly. */
function push(splitter: LineSplitter, chunk: string | Uint8Array, file: string | undefined): void {
	try {
		splitter.push(chunk);
	} catch (error) {
		if (!(error instanceof RangeError)) throw error;
		throw new InvalidSessionError(
			`${file === undefined ? "The session" : `"${file}"`}, line ${splitter.lineNumber} is longer than Node can hold as one string (about 512 MiB of text); pi cannot read it either. Remove that line.`,
			{ file, line: splitter.lineNumber },
		);
	}
}

/**
 * The result of a parsed session, its context's problems after the session's; `undefined` when
 * `slim` and the context sends an entry held slim.
 */
function resultOf(
	session: ParsedSession,
	options: ReadSessionOptions,
	file: string | undefined,
	slim: boolean,
): ReadSessionResult | undefined {
	let sendsSlim = false;
	const context = buildContextWith(
		session,
		{ leafId: options.leafId, strict: options.strict, file },
		slim
			? (chosen) => {
					sendsSlim = anySlim(session.entries, chosen);
					return !sendsSlim;
				}
			: undefined,
	);
	if (sendsSlim) return undefined;
	const problems = session.problems.length === 0 ? context.problems : [...session.problems, ...context.problems];
	const problemCounts =
		session.problemCounts.length === 0 ? context.problemCounts : [...session.problemCounts, ...context.problemCounts];
	const result: ReadSessionResult = {
		...context,
		problems,
		problemCounts,
		header: session.header,
		version: session.version,
		entryCount: session.entries.length,
	};
	if (options.tree === true) result.tree = { session, leafId: context.leafId };
	return result;
}
