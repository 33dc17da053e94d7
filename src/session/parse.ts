/**
 * `parseSession`: the text of a pi session file parsed as pi 1.x reads its lines and migrated to version 3, in
 * memory; the whole-text entrance beside the streamed readers.
 */
import { SessionLineParser } from "./line-parser.js";
import { splitText } from "./lines.js";
import type { ParsedSession, ParseSessionOptions } from "./types.js";

/**
 * Options of {@link parseSession}.
 *
 * Contract: as {@link ParseSessionOptions}; `file` only names the file in problems and errors.
 *
 * @example
 * const session = parseSession(text, { file: "session.jsonl", strict: true });
 */
export interface ParseOptions extends ParseSessionOptions {
	/** The file the text came from, named in errors. */
	file?: string;
}

/**
 * Parses the text of a pi session file and migrates it to version 3, in memory.
 *
 * Contract: reads lines as pi 1.x does (split on `\n`, blank lines ignored; a line that is not JSON,
 * or is `null`, `false`, `0` or `""`, skipped; a truthy line that is not an object, which pi keeps as
 * an entry that sends nothing, left out), each listed in `problems` with its line number and what pi
 * 0.73.1 does where it reads the line otherwise (the first few of each kind; `problemCounts` counts
 * them all); the first value pi keeps must be the header (`{"type":"session","id":…}`). Never
 * changes `text` or any file.
 *
 * @throws {InvalidSessionError} when the text has no JSON line or does not start with a session
 * header, and in strict mode on the first skipped line.
 * @example
 * const session = parseSession(readFileSync("session.jsonl", "utf8"));
 */
export function parseSession(text: string, options: ParseOptions = {}): ParsedSession {
	const parser = new SessionLineParser(options);
	splitText(text, parser);
	return parser.finish();
}
