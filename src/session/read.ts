import { closeSync, openSync, readSync } from "node:fs";
import { InvalidSessionError } from "../errors.js";
import { buildContextWith } from "./context.js";
import type { SessionContext, SessionContextOptions } from "./context-types.js";
import { SessionLineParser } from "./line-parser.js";
import { type LineSink, LineSplitter, splitText } from "./lines.js";
import { anySlim } from "./slim.js";
import type { ParsedSession, ParseSessionOptions, SessionEntry } from "./types.js";

/**
 * Options of {@link readSession}, {@link readSessionFile} and {@link readSessionStream}.
 *
 * Contract: `strict` applies to both steps (a skipped line and a problem on the path both throw);
 * `leafId` is as in {@link SessionContextOptions}; `file` only names the file in messages, nothing is
 * read from it.
 *
 * @example
 * const { messages } = readSession(text, { leafId: "a1b2c3d4", strict: true, file: "session.jsonl" });
 */
export interface ReadSessionOptions extends ParseSessionOptions, SessionContextOptions {
	/** The name of the file, used in problems and errors. `readSessionFile` sets it to the path. */
	file?: string;
}

/**
 * A session read end to end: the parsed file and the context pi would send from the leaf.
 *
 * Contract: `problems` lists the skipped lines first, then the problems met on the path (the first
 * few of each kind), `problemCounts` the counts of both; the other fields are {@link SessionContext}'s,
 * and `session` is the whole file (every branch), parsed.
 *
 * @example
 * const { messages, entryIds, problems, session } = readSession(text);
 * for (const problem of problems) console.warn(problem.message);
 */
export interface ReadSessionResult extends SessionContext {
	session: ParsedSession;
}

/**
 * Bytes read from a file at a time: 64 KiB, so that each chunk's text is a young object that dies in
 * the next scavenge (a megabyte's goes to the large-object space and waits for a full collection:
 * about 30 MB more at the peak of a 400,000-entry session).
 */
const CHUNK = 64 * 1024;

/**
 * Parses the text of a pi session file (any version) and builds the context pi would send.
 *
 * Contract: {@link parseSession} then {@link buildSessionContext}, with the same options: the
 * messages deep-equal pi's (0.73.1 and 1.6.0) for the same file and leaf. Lenient by default (problems are
 * listed, not thrown); the text is only read.
 *
 * @throws {InvalidSessionError} see {@link parseSession} and {@link buildSessionContext}.
 * @example
 * const { messages } = readSession(text, { leafId: "a1b2c3d4" });
 * const model = convertToLlm(messages);
 */
export function readSession(text: string, options: ReadSessionOptions = {}): ReadSessionResult {
	const parser = new SessionLineParser({ strict: options.strict, file: options.file });
	splitText(text, parser);
	return contextOf(parser, options, options.file);
}

/**
 * Reads a pi session file and builds the context pi would send. Opens the file read-only: unlike
 * pi's `SessionManager.open`, it never migrates, rewrites or truncates it.
 *
 * Contract: {@link readSession} of the file's UTF-8 text, with `file` defaulting to `path` so that
 * problems name it; the file is read 64 KiB at a time and line by line, as pi 1.x reads it, so
 * its size is bounded by memory for the parsed entries only, not by Node's longest string (about
 * 512 MiB): only a single line must fit in one.
 *
 * @throws {InvalidSessionError} see {@link readSession}, and for a line longer than Node's longest
 * string; a file that cannot be read throws Node's error.
 * @example
 * const { messages, problems } = readSessionFile(join(homedir(), ".pi/agent/sessions/…/session.jsonl"));
 */
export function readSessionFile(path: string, options: ReadSessionOptions = {}): ReadSessionResult {
	const file = options.file ?? path;
	const parser = new SessionLineParser({ strict: options.strict, file });
	const splitter = new LineSplitter(parser);
	const fd = openSync(path, "r");
	try {
		const buffer = Buffer.allocUnsafe(CHUNK);
		for (;;) {
			const read = readSync(fd, buffer, 0, CHUNK, null);
			if (read === 0) break;
			push(splitter, buffer.subarray(0, read), file);
		}
		splitter.end();
	} finally {
		closeSync(fd);
	}
	return contextOf(parser, options, file);
}

/**
 * Reads a pi session from any stream of chunks (a file stream, standard input, a fetch body): text
 * or UTF-8 bytes, split anywhere (a character split between two chunks is decoded whole).
 *
 * Contract: {@link readSession} of the concatenated chunks; lines are parsed as they arrive, so the
 * text is never held whole. The iteration is ended (`return()`) when the reader throws.
 *
 * @throws {InvalidSessionError} as {@link readSessionFile}; the stream's own errors reject as they are.
 * @example
 * const { messages } = await readSessionStream(createReadStream(path), { file: path });
 * const fromStdin = await readSessionStream(process.stdin, { file: "stdin" });
 */
export async function readSessionStream(
	chunks: AsyncIterable<string | Uint8Array>,
	options: ReadSessionOptions = {},
): Promise<ReadSessionResult> {
	const parser = new SessionLineParser({ strict: options.strict, file: options.file });
	const splitter = new LineSplitter(parser);
	for await (const chunk of chunks) push(splitter, chunk, options.file);
	splitter.end();
	return contextOf(parser, options, options.file);
}

/**
 * A session read line by line, as the lines come (the CLI's input, whose kind is told by its first
 * lines): {@link SessionReader.line} each line, then {@link SessionReader.finish}.
 *
 * With `slimUntil` (the id of the entry the context likely starts at, see slim.ts), message entries
 * before that entry are held slim, and `finish` gives `undefined` when the context would send one of
 * them: the session must then be read again without `slimUntil`. Otherwise the result is the one
 * without it, except that its `session.entries` holds the slim entries.
 */
export class SessionReader implements LineSink {
	private readonly parser: SessionLineParser;
	private readonly slim: boolean;

	constructor(
		private readonly options: ReadSessionOptions = {},
		slimUntil?: string,
	) {
		this.parser = new SessionLineParser({ strict: options.strict, file: options.file, slimUntil });
		this.slim = slimUntil !== undefined;
	}

	line(text: string, number: number): void {
		this.parser.line(text, number);
	}

	finish(): ReadSessionResult | undefined {
		if (!this.slim) return contextOf(this.parser, this.options, this.options.file);
		let sendsSlim = false;
		const result = contextOf(this.parser, this.options, this.options.file, (entries, chosen) => {
			sendsSlim = anySlim(entries, chosen);
		});
		return sendsSlim ? undefined : result;
	}
}

/** One chunk into the splitter, with a line longer than Node's longest string said plainly. */
export function push(splitter: LineSplitter, chunk: string | Uint8Array, file: string | undefined): void {
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

function contextOf(
	parser: SessionLineParser,
	options: ReadSessionOptions,
	file: string | undefined,
	sent?: (entries: readonly SessionEntry[], chosen: readonly number[]) => void,
): ReadSessionResult {
	return contextOfSession(parser.finish(), options, file, sent);
}

/**
 * The context of a parsed session, with its problems after the session's; `sent` is told the
 * entries the context sends before their messages are read.
 */
export function contextOfSession(
	session: ParsedSession,
	options: ReadSessionOptions,
	file: string | undefined,
	sent?: (entries: readonly SessionEntry[], chosen: readonly number[]) => void,
): ReadSessionResult {
	const context = buildContextWith(
		session,
		{ leafId: options.leafId, strict: options.strict, file },
		sent && ((chosen) => sent(session.entries, chosen)),
	);
	const problems = session.problems.length === 0 ? context.problems : [...session.problems, ...context.problems];
	const problemCounts =
		session.problemCounts.length === 0 ? context.problemCounts : [...session.problemCounts, ...context.problemCounts];
	return { ...context, problems, problemCounts, session };
}
