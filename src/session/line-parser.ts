/**
 * A session file, line by line: pi's reading of each line (pi 1.x's `loadEntriesFromFile`, which
 * 0.73.1's gives on every line but `null`, `false`, `0` and `""`), the header check, and the problems,
 * counted. Feeds on lines, so that a file is never held as one string.
 */
import { InvalidSessionError } from "../errors.js";
import { describeValue, isJsonObject } from "../values.js";
import type { LineSink } from "./lines.js";
import { migrateEntries } from "./migrate.js";
import { excerptOf, ProblemLog, type SessionProblem, type SessionProblemCount } from "./problems.js";
import { slimEntry } from "./slim.js";
import { CURRENT_SESSION_VERSION, type ParsedSession } from "./types.js";

/** What {@link parseLine} returns for text that is not JSON (every JSON value, `null` included, is a value). */
export const NOT_JSON: unique symbol = Symbol("not JSON");

/** Characters a JSON text can start with (after JSON whitespace); any other start is not JSON. */
const JSON_START = new Set('{["-0123456789tfn \t\r\n');

/**
 * `JSON.parse(text)`, or {@link NOT_JSON} when it throws. Text that cannot start a JSON value is
 * refused without calling `JSON.parse`: a file of a million junk lines then costs no million
 * `SyntaxError`s (each with a stack trace).
 */
export function parseLine(text: string): unknown {
	if (!JSON_START.has(text.charAt(0))) return NOT_JSON;
	try {
		return JSON.parse(text);
	} catch {
		return NOT_JSON;
	}
}

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
	/**
	 * The lines are the rest of a version 3 file whose start another parser reads (see
	 * parallel-read.ts): its header is taken as read (a stand-in until {@link withStart}), the first
	 * line is not the file's first, and line numbers count from the range's first line.
	 */
	rest?: boolean;
}

/** What a {@link SessionLineParser} of a file's start holds, for the parser of its rest. */
export interface ParsedStart {
	/** The kept values: the header first (see {@link SessionLineParser}). */
	raw: unknown[];
	lines: number[];
	problems: SessionProblem[];
	counts: SessionProblemCount[];
}

/**
 * Reads the lines of a session as pi does, one at a time; {@link SessionLineParser.finish} then
 * gives the parsed, migrated session.
 *
 * pi 0.73.1 trims the whole text before splitting it (pi 1.x does not: only JSON whitespace around a
 * line is ignored then), so the first line that is not blank loses its leading whitespace and the
 * last its trailing whitespace (a byte order mark, a no-break space): each line is handled one line
 * late, once it is known whether it is the last.
 */
export class SessionLineParser implements LineSink {
	readonly log: ProblemLog;
	private readonly where: string;
	/** The kept values: the header first, then every truthy JSON line, as pi keeps them. */
	private readonly raw: unknown[] = [];
	private readonly lines: number[] = [];
	private started = false;
	private waiting: string | undefined;
	private waitingLine = 0;
	private version = 1;
	private slimUntil: string | undefined;
	/** Whether the header asked for slim entries, and whether the entry they end at was met. */
	private slimming = false;
	private keptMet = false;

	constructor(private readonly options: LineParserOptions = {}) {
		this.log = new ProblemLog(options.strict === true, options.file);
		this.where = options.file === undefined ? "The session" : `"${options.file}"`;
		if (options.rest === true) {
			this.started = true;
			this.header({ type: "session", id: "", version: CURRENT_SESSION_VERSION }, 0);
		}
	}

	/**
	 * What a parser of a file's start read, its last line taken as any other (the file goes on), or
	 * `undefined` when the parser of the rest cannot follow it: no version 3 header, no slim hint,
	 * the hinted entry met (the rest would not be slim), or a line still waiting.
	 */
	start(): ParsedStart | undefined {
		if (this.waiting !== undefined) this.take(this.waiting, this.waitingLine);
		this.waiting = undefined;
		if (this.raw.length === 0 || !this.slimming || this.keptMet) return undefined;
		return { raw: this.raw, lines: this.lines, problems: this.log.problems, counts: this.log.summary() };
	}

	/**
	 * The session whose start is `start` (read by another parser, over `lineCount` lines) and whose
	 * rest this parser read; `undefined` when the two cannot be joined as one parser would have read
	 * them: the rest met a problem (its line numbers and texts assumed the start's), or has no value.
	 */
	withStart(start: ParsedStart, lineCount: number): ParsedSession | undefined {
		if (this.waiting !== undefined) this.take(this.waiting.trimEnd(), this.waitingLine);
		this.waiting = undefined;
		if (this.log.problems.length > 0 || this.raw.length < 2) return undefined;
		// Made at their length: a start and a rest of 400,000 values in all, joined by `push`, cost 20 ms.
		const head = start.raw.length;
		const raw: unknown[] = new Array(head + this.raw.length - 1);
		const lines: number[] = new Array(raw.length);
		for (let i = 0; i < head; i++) {
			raw[i] = start.raw[i];
			lines[i] = start.lines[i] as number;
		}
		for (let i = 1; i < this.raw.length; i++) {
			raw[head + i - 1] = this.raw[i];
			lines[head + i - 1] = (this.lines[i] as number) + lineCount;
		}
		return sessionOf(raw, lines, start.problems, start.counts, CURRENT_SESSION_VERSION);
	}

	line(text: string, number: number): void {
		if (isBlank(text)) return;
		if (!this.started) {
			this.started = true;
			text = text.trimStart();
		}
		if (this.waiting !== undefined) this.take(this.waiting, this.waitingLine);
		this.waiting = text;
		this.waitingLine = number;
	}

	/** The session read so far, with its last line; throws when it is not a pi session. */
	finish(): ParsedSession {
		if (this.waiting !== undefined) this.take(this.waiting.trimEnd(), this.waitingLine);
		this.waiting = undefined;
		const { raw, lines, where } = this;
		const file = this.options.file;
		if (raw.length === 0) {
			throw new InvalidSessionError(
				`${where} has no JSON line. Pass a pi session file (.jsonl, first line {"type":"session",…}).`,
				{ file },
			);
		}
		return sessionOf(raw, lines, this.log.problems, this.log.summary(), this.version);
	}

	private take(text: string, line: number): void {
		const value = parseLine(text);
		if (value === NOT_JSON) {
			this.log.add("not-json", { line, excerpt: excerptOf(text) }, () =>
				this.raw.length === 0
					? `${this.where}, line ${line} is not valid JSON; it was skipped, as pi skips it (pi looks for the session header on the first line that parses). Fix or remove that line.`
					: `${this.where}, line ${line} is not valid JSON; it was skipped, as pi skips it. Fix or remove that line.`,
			);
			return;
		}
		if (!value) {
			this.log.add("skipped-value", { line, excerpt: excerptOf(text) }, () => this.skippedText(value, line));
			return;
		}
		if (this.raw.length === 0) {
			this.header(value, line);
			return;
		}
		if (this.slimUntil !== undefined && isJsonObject(value)) {
			if (value.id === this.slimUntil) {
				this.slimUntil = undefined;
				this.keptMet = true;
			} else {
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
		if (((value.version ?? 1) as number) >= CURRENT_SESSION_VERSION) {
			this.slimUntil = this.options.slimUntil;
			this.slimming = this.slimUntil !== undefined;
		}
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

/** The parsed, migrated session of the values pi keeps (`raw`, the header first), read at `lines`. */
function sessionOf(
	raw: unknown[],
	lines: number[],
	problems: SessionProblem[],
	problemCounts: SessionProblemCount[],
	version: number,
): ParsedSession {
	const last = raw.length - 1;
	const session: ParsedSession = { ...migrateEntries(raw, lines), problems, problemCounts };
	// pi's default leaf is the last kept line; one that is not an object (kept by pi, not by the
	// reader) is no entry: pi then sends nothing. (In a version 1 file pi gives an array an id and
	// fails on any other value.)
	if (last > 0 && !isJsonObject(raw[last]) && version >= 2) session.nonEntryLastLine = lines[last];
	return session;
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
