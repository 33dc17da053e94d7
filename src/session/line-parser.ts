/**
 * A session file, line by line: pi's reading of each line (pi 1.x's `loadEntriesFromFile`, which
 * 0.73.1's gives on every line but `null`, `false`, `0` and `""`, and but the file's first and last
 * line, which 0.73.1 trims), the header check, and the problems, counted. Feeds on lines, so that a
 * file is never held as one string.
 */
import { InvalidSessionError } from "../errors.js";
import { describeValue, isJsonObject, NOT_JSON, parseJsonLine } from "../values.js";
import type { LineSink } from "./lines.js";
import { migrateEntries } from "./migrate.js";
import { excerptOf, ProblemLog } from "./problems.js";
import { slimEntry } from "./slim.js";
import { CURRENT_SESSION_VERSION, type ParsedSession } from "./types.js";

/** Whether a line is blank as pi tests it (`!line.trim()`), without copying a long line to find out. */
function isBlank(text: string): boolean {
	const first = text.charCodeAt(0);
	if (first === 0x7b || first === 0x5b) return false;
	return text.trim() === "";
}

/**
 * Options of {@link SessionLineParser}: `strict` throws the first problem, `file` names the file in
 * problems and errors.
 */
export interface LineParserOptions {
	strict?: boolean;
	file?: string;
	/**
	 * The id of the entry the context likely starts at (a hint): in a version 3 file, message entries
	 * before that entry's line are held slim (see slim.ts).
	 */
	slimUntil?: string;
}

/** A line that is not JSON as it is, but is once trimmed as pi 0.73.1 trims the file's end. */
interface TrimmedEnd {
	text: string;
	line: number;
}

/**
 * Reads the lines of a session as pi 1.x does, one at a time; {@link SessionLineParser.finish}
 * then gives the parsed, migrated session.
 *
 * pi 0.73.1 trims the whole text before splitting it, so its first line that is not blank loses its
 * leading whitespace and its last one its trailing whitespace; pi 1.x parses each line as it is,
 * and JSON allows only spaces, tabs and line ends around a value. They part on a first or last line
 * with other whitespace at that end (a byte order mark, a no-break space): such a line is read as
 * pi 1.x reads it (skipped: it is not JSON) and the problem says what pi 0.73.1 does, except a
 * first line that pi 0.73.1 reads as the session header, without which pi 1.x refuses the file:
 * that header is read, and the problem says that pi 1.x does not open the file.
 */
export class SessionLineParser implements LineSink {
	readonly log: ProblemLog;
	private readonly where: string;
	/** The kept values: the header first, then every truthy JSON line, as pi keeps them. */
	private readonly raw: unknown[] = [];
	private readonly lines: number[] = [];
	private started = false;
	/** The last line seen, when it is JSON once trimmed as pi 0.73.1 trims the file's last line. */
	private trimmedEnd: TrimmedEnd | undefined;
	private version = 1;
	private slimUntil: string | undefined;

	constructor(private readonly options: LineParserOptions = {}) {
		this.log = new ProblemLog(options.strict === true, options.file);
		this.where = options.file === undefined ? "The session" : `"${options.file}"`;
	}

	line(text: string, number: number): void {
		if (isBlank(text)) return;
		// Not the last line after all: pi 0.73.1 skips it too.
		if (this.trimmedEnd !== undefined) this.notJson(this.trimmedEnd.text, this.trimmedEnd.line);
		this.trimmedEnd = undefined;
		const value = parseJsonLine(text);
		if (value !== NOT_JSON) this.take(value, text, number);
		else if (!this.started) this.firstNotJson(text, number);
		else if (isJsonOnceTrimmed(text.trimEnd(), text)) this.trimmedEnd = { text, line: number };
		else this.notJson(text, number);
		this.started = true;
	}

	/** The session read so far, with its last line; throws when it is not a pi session. */
	finish(): ParsedSession {
		if (this.trimmedEnd !== undefined) this.lastTrimmed(this.trimmedEnd);
		this.trimmedEnd = undefined;
		const { raw, lines, where } = this;
		if (raw.length === 0) {
			throw new InvalidSessionError(
				`${where} has no JSON line. Pass a pi session file (.jsonl, first line {"type":"session",…}).`,
				{ file: this.options.file },
			);
		}
		const session: ParsedSession = {
			...migrateEntries(raw, lines),
			problems: this.log.problems,
			problemCounts: this.log.summary(),
		};
		// pi's default leaf is the last kept line; one that is not an object (kept by pi, not by the
		// reader) is no entry: pi then sends nothing. (In a version 1 file pi gives an array an id and
		// fails on any other value.)
		const last = raw.length - 1;
		if (last > 0 && !isJsonObject(raw[last]) && this.version >= 2) session.nonEntryLastLine = lines[last];
		return session;
	}

	private take(value: unknown, text: string, line: number): void {
		if (!value) {
			this.log.add("skipped-value", { line, excerpt: excerptOf(text) }, () => this.skippedText(value, line));
			return;
		}
		if (this.raw.length === 0) {
			this.header(value, line);
			return;
		}
		if (this.slimUntil !== undefined && isJsonObject(value)) {
			if (value.id === this.slimUntil) this.slimUntil = undefined;
			else {
				this.raw.push(slimEntry(value));
				this.lines.push(line);
				return;
			}
		}
		this.raw.push(value);
		this.lines.push(line);
		if (!isJsonObject(value)) {
			this.log.add("not-an-entry", { line, excerpt: excerptOf(text) }, () => this.nonEntryText(value, line));
		}
	}

	private notJson(text: string, line: number): void {
		this.log.add("not-json", { line, excerpt: excerptOf(text) }, () =>
			this.raw.length === 0
				? `${this.where}, line ${line} is not valid JSON; it was skipped, as pi skips it (pi looks for the session header on the first line that parses). Fix or remove that line.`
				: `${this.where}, line ${line} is not valid JSON; it was skipped, as pi skips it. Fix or remove that line.`,
		);
	}

	/**
	 * The first line that is not blank, not JSON as it is: pi 0.73.1 reads it without its leading
	 * whitespace. A session header read so is taken (pi 1.x refuses the file without it); any other
	 * value is skipped, as pi 1.x skips the line.
	 */
	private firstNotJson(text: string, line: number): void {
		const trimmed = text.trimStart();
		const value = parseJsonLine(trimmed);
		if (value === NOT_JSON) {
			// It may be the file's only line, which pi 0.73.1 trims at both ends.
			if (isJsonOnceTrimmed(text.trim(), text)) this.trimmedEnd = { text, line };
			else this.notJson(text, line);
			return;
		}
		const site = { line, excerpt: excerptOf(text) };
		const what = `${this.where}, line ${line} starts with ${edgeCharacter(text, false)}, which is not JSON whitespace`;
		if (isJsonObject(value) && value.type === "session" && typeof value.id === "string") {
			this.log.add(
				"edge-whitespace",
				site,
				() =>
					`${what}: pi 1.x does not read that line, and refuses the file unless the next line it reads is a session header; pi 0.73.1 trims the start of the file and reads the header, as the reader did. Remove that character.`,
			);
			this.take(value, trimmed, line);
			return;
		}
		const old =
			value === null
				? "pi 0.73.1 fails to open a session with a null line"
				: "pi 0.73.1 takes it for the header and reads no session";
		this.log.add(
			"edge-whitespace",
			site,
			() =>
				`${what}; it was skipped, as pi 1.x skips it (pi 0.73.1 trims the start of the file and reads the line: ${old}). Remove that character.`,
		);
	}

	/** The last line that is not blank, not JSON as it is: pi 0.73.1 reads it without its trailing whitespace. */
	private lastTrimmed({ text, line }: TrimmedEnd): void {
		this.log.add(
			"edge-whitespace",
			{ line, excerpt: excerptOf(text) },
			() =>
				`${this.where}, line ${line} ends with ${edgeCharacter(text, true)}, which is not JSON whitespace; it was skipped, as pi 1.x skips it (pi 0.73.1 trims the end of the file and reads that line, as its last value). Remove that character.`,
		);
	}

	private header(value: unknown, line: number): void {
		if (!isJsonObject(value) || value.type !== "session" || typeof value.id !== "string") {
			throw new InvalidSessionError(
				`${this.where} is not a pi session: line ${line} is not a session header ({"type":"session","id":…}). Pass a session file from ~/.pi/agent/sessions.`,
				{ file: this.options.file, line },
			);
		}
		if (!comparesWithNumbers(value.version)) {
			// pi compares the version with numbers (`version >= 3`): a value with no primitive throws there.
			throw new InvalidSessionError(
				`${this.where} has a session header whose "version" (line ${line}) is not a version number (it is an object that cannot be compared with one). Set it to 1, 2 or 3, or remove it.`,
				{ file: this.options.file, line },
			);
		}
		// pi reads a missing version as 1 and compares loosely; keep its exact expression.
		this.version = ((value.version ?? 1) as number) >= 2 ? CURRENT_SESSION_VERSION : 1;
		// Versions 1 and 2 are migrated entry by entry: only a version 3 file's entries are held slim.
		if (((value.version ?? 1) as number) >= CURRENT_SESSION_VERSION) this.slimUntil = this.options.slimUntil;
		this.raw.push(value);
		this.lines.push(line);
	}

	private skippedText(value: unknown, line: number): string {
		const shown = value === "" ? '""' : String(value);
		const old =
			value === null
				? "pi 0.73.1 fails to open a session with a null line"
				: this.raw.length === 0
					? "pi 0.73.1 takes it for the header and reads no session"
					: this.version < 2
						? "pi 0.73.1 fails to open this version 1 file on it"
						: "pi 0.73.1 keeps it as an entry that sends nothing, and as the last line sends an empty context";
		return `${this.where}, line ${line} is ${shown}; it was skipped, as pi 1.x skips it (${old}). Remove that line.`;
	}

	private nonEntryText(value: unknown, line: number): string {
		const what = `${this.where}, line ${line} is not a JSON object (it is ${describeValue(value)})`;
		if (this.version < 2) {
			return Array.isArray(value)
				? `${what}; as pi does, it takes a place in the chain of this version 1 file (an id, and the next line's parent) and sends nothing. Remove that line.`
				: `${what}; pi fails to open this version 1 file on it (it cannot give the line an id), and the reader left it out. Remove that line.`;
		}
		return `${what}; pi keeps it as an entry that sends nothing and links to nothing, and the reader left it out. Remove that line.`;
	}
}

/** Whether `trimmed`, `text` without some whitespace, is JSON where `text` is not. */
const isJsonOnceTrimmed = (trimmed: string, text: string): boolean =>
	trimmed.length !== text.length && parseJsonLine(trimmed) !== NOT_JSON;

/** JSON's whitespace: what `JSON.parse` allows around a value. */
const isJsonSpace = (code: number): boolean => code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;

/** The first character at the start (or the end) of `text` that `trim()` removes and JSON does not allow, named. */
function edgeCharacter(text: string, fromEnd: boolean): string {
	for (let k = 0; k < text.length; k++) {
		const code = text.charCodeAt(fromEnd ? text.length - 1 - k : k);
		if (isJsonSpace(code)) continue;
		const hex = `U+${code.toString(16).toUpperCase().padStart(4, "0")}`;
		if (code === 0xfeff) return `${hex} (a byte order mark)`;
		if (code === 0xa0) return `${hex} (a no-break space)`;
		return hex;
	}
	return "whitespace";
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
