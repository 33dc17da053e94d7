import { InvalidSessionError } from "../errors.js";
import { isJsonObject } from "../values.js";
import { migrateEntries, type RawEntry } from "./migrate.js";
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
 * Contract: reads lines as pi 0.73.1 does (the text trimmed, split on `\n`, blank lines ignored, a
 * line that is not a JSON object skipped and listed in `problems` with its line number); the first
 * object must be the header (`{"type":"session","id":…}`). Never changes `text` or any file.
 *
 * @throws {InvalidSessionError} when the text has no JSON line or does not start with a session
 * header, and in strict mode on the first skipped line.
 * @example
 * const session = parseSession(readFileSync("session.jsonl", "utf8"));
 */
export function parseSession(text: string, options: ParseOptions = {}): ParsedSession {
	const { strict = false, file } = options;
	const where = file === undefined ? "The session" : `"${file}"`;
	const problems: InvalidSessionError[] = [];
	const report = (problem: InvalidSessionError): void => {
		if (strict) throw problem;
		problems.push(problem);
	};

	const raw: RawEntry[] = [];
	const lines: number[] = [];
	// pi trims the whole text, then splits on "\n": do the same, counting lines of the untrimmed text.
	const trimmed = text.trim();
	let line = 1 + countNewlines(text, text.length - text.trimStart().length);
	let from = 0;
	while (from <= trimmed.length) {
		let to = trimmed.indexOf("\n", from);
		if (to === -1) to = trimmed.length;
		const source = trimmed.slice(from, to);
		if (source.trim() !== "") {
			const value = tryParse(source);
			if (isJsonObject(value)) {
				raw.push(value as RawEntry);
				lines.push(line);
			} else {
				const what = value === NOT_JSON ? "is not valid JSON" : "is not a JSON object";
				report(
					new InvalidSessionError(
						`${where}, line ${line} ${what}; it was skipped, as pi skips it. Fix or remove that line.`,
						{ file, line },
					),
				);
			}
		}
		from = to + 1;
		line++;
	}

	const first = raw[0];
	if (first === undefined) {
		throw new InvalidSessionError(
			`${where} has no JSON line. Pass a pi session file (.jsonl, first line {"type":"session",…}).`,
			{ file },
		);
	}
	if (first.type !== "session" || typeof first.id !== "string") {
		throw new InvalidSessionError(
			`${where} is not a pi session: line ${lines[0]} is not a session header ({"type":"session","id":…}). Pass a session file from ~/.pi/agent/sessions.`,
			{ file, line: lines[0] },
		);
	}
	if (!comparesWithNumbers(first.version)) {
		// pi compares the version with numbers (`version >= 3`): a value with no primitive throws there.
		throw new InvalidSessionError(
			`${where} has a session header whose "version" (line ${lines[0]}) is not a version number (it is an object that cannot be compared with one). Set it to 1, 2 or 3, or remove it.`,
			{ file, line: lines[0] },
		);
	}
	return { ...migrateEntries(raw, lines), problems };
}

/** Whether `value >= 3` can be asked of `value` (JSON's `{"valueOf":0,"toString":0}` cannot). */
function comparesWithNumbers(value: unknown): boolean {
	try {
		void ((value as number) >= 0);
		return true;
	} catch {
		return false;
	}
}

/** What {@link tryParse} returns for text that is not JSON (every JSON value, `null` included, is a value). */
export const NOT_JSON: unique symbol = Symbol("not JSON");

/** `JSON.parse(text)`, or {@link NOT_JSON} when it throws. Shared with the CLI's input detection. */
export function tryParse(text: string): unknown {
	try {
		return JSON.parse(text);
	} catch {
		return NOT_JSON;
	}
}

function countNewlines(text: string, end: number): number {
	let count = 0;
	for (let i = text.indexOf("\n"); i !== -1 && i < end; i = text.indexOf("\n", i + 1)) count++;
	return count;
}
