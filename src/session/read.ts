import { readFileSync } from "node:fs";
import { buildSessionContext } from "./context.js";
import type { SessionContext, SessionContextOptions } from "./context-types.js";
import { parseSession } from "./parse.js";
import type { ParsedSession, ParseSessionOptions } from "./types.js";

/**
 * Options of {@link readSession} and {@link readSessionFile}.
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
 * Contract: `problems` lists the skipped lines first, then the problems met on the path; the other
 * fields are {@link SessionContext}'s, and `session` is the whole file (every branch), parsed.
 *
 * @example
 * const { messages, entryIds, problems, session } = readSession(text);
 * for (const problem of problems) console.warn(problem.message);
 */
export interface ReadSessionResult extends SessionContext {
	session: ParsedSession;
}

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
	return read(text, options, options.file);
}

/**
 * Reads a pi session file and builds the context pi would send. Opens the file read-only: unlike
 * pi's `SessionManager.open`, it never migrates, rewrites or truncates it.
 *
 * Contract: {@link readSession} of the file's UTF-8 text, with `file` defaulting to `path` so that
 * problems name it.
 *
 * @throws {InvalidSessionError} see {@link readSession}; a file that cannot be read throws Node's error.
 * @example
 * const { messages, problems } = readSessionFile(join(homedir(), ".pi/agent/sessions/…/session.jsonl"));
 */
export function readSessionFile(path: string, options: ReadSessionOptions = {}): ReadSessionResult {
	return read(readFileSync(path, "utf8"), options, options.file ?? path);
}

function read(text: string, options: ReadSessionOptions, file: string | undefined): ReadSessionResult {
	const session = parseSession(text, { strict: options.strict, file });
	const context = buildSessionContext(session, { leafId: options.leafId, strict: options.strict, file });
	const problems = session.problems.length === 0 ? context.problems : [...session.problems, ...context.problems];
	return { ...context, problems, session };
}
