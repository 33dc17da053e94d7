/**
 * What the session reader found wrong, as data: a kind, where (line, entry id), a short excerpt and
 * a message, counted per kind, with only the first few of each kind kept in full. An error object is
 * made only where one is thrown (strict mode, or nothing sensible can be read).
 */
import { InvalidSessionError } from "../errors.js";

/**
 * What kind of problem a {@link SessionProblem} is.
 *
 * Contract: line problems (the line is read as pi reads it): `"not-json"` a line that is not JSON
 * (skipped); `"skipped-value"` a JSON `null`, `false`, `0` or `""` line (skipped, as pi 1.x skips it;
 * pi 0.73.1 keeps it); `"not-an-entry"` a truthy JSON line that is not an object (`1`, `"x"`, `true`,
 * `[]`), kept as an entry that sends nothing, as pi keeps it; `"edge-whitespace"` the file's first or
 * last line with whitespace JSON does not allow at that end (a byte order mark, a no-break space),
 * which pi 0.73.1 trims and pi 1.x does not (skipped as pi 1.x skips it, but a session header, which
 * is read: pi 1.x then refuses the file). Path problems: `"unknown-leaf"`,
 * `"leaf-not-an-entry"` (pi sends an empty context), `"broken-link"`, `"loop"`, `"no-message"`,
 * `"bad-timestamp"`, `"unknown-type"`, `"bad-edit"`, `"uneditable"`.
 *
 * @example
 * const junk = result.problemCounts.find((count) => count.kind === "not-json")?.count ?? 0;
 */
export type SessionProblemKind =
	| "not-json"
	| "skipped-value"
	| "not-an-entry"
	| "edge-whitespace"
	| "unknown-leaf"
	| "leaf-not-an-entry"
	| "broken-link"
	| "loop"
	| "no-message"
	| "bad-timestamp"
	| "unknown-type"
	| "bad-edit"
	| "uneditable";

/**
 * One problem the reader met, as plain data (no stack trace is taken for it).
 *
 * Contract: `message` says what happened, where and what to do, as an `InvalidSessionError`'s does
 * (strict mode throws one with this message, `file`, `line` and `entryId`); `line` is the 1-based
 * line of the file, `entryId` the entry involved, `excerpt` the start of the line as it is in the
 * file (at most 60 characters) for line problems.
 *
 * @example
 * for (const problem of readSession(text).problems) console.warn(`${problem.kind} at line ${problem.line}: ${problem.message}`);
 */
export interface SessionProblem {
	kind: SessionProblemKind;
	message: string;
	file?: string;
	line?: number;
	entryId?: string;
	excerpt?: string;
}

/**
 * How many problems of one kind there were, and how many `problems` leaves out.
 *
 * Contract: `count` is every problem of `kind`; `problems` keeps the first
 * {@link MAX_PROBLEMS_PER_KIND} of them in full and leaves out `omitted`; `summary` is one line
 * saying so ("… and 4,999,990 more lines like it: not valid JSON") when `omitted > 0`.
 *
 * @example
 * for (const { summary } of result.problemCounts) if (summary) console.warn(summary);
 */
export interface SessionProblemCount {
	kind: SessionProblemKind;
	count: number;
	omitted: number;
	summary?: string;
}

/** The problems of each kind kept in full; the others are counted. */
export const MAX_PROBLEMS_PER_KIND = 10;

/** What each kind is, for the summary of those left out. */
const KIND_TEXT: ReadonlyMap<SessionProblemKind, [noun: "lines" | "entries", what: string]> = new Map([
	["not-json", ["lines", "not valid JSON, skipped"]],
	["skipped-value", ["lines", "null, false, 0 or an empty string, skipped as pi 1.x skips them"]],
	["not-an-entry", ["lines", "JSON that is not an object, kept as entries that send nothing, as pi keeps them"]],
	["edge-whitespace", ["lines", "whitespace JSON does not allow at the file's start or end, which pi 0.73.1 trims"]],
	["unknown-leaf", ["entries", "an unknown leafId"]],
	["leaf-not-an-entry", ["entries", "a leaf that is not an entry"]],
	["broken-link", ["entries", "a parent that is not in the file"]],
	["loop", ["entries", "a parent link that makes a loop"]],
	["no-message", ["entries", "a message entry without a message"]],
	["bad-timestamp", ["entries", "a timestamp that is not a date"]],
	["unknown-type", ["entries", "an entry type this reader does not know"]],
	["bad-edit", ["entries", "a context_edit with a faulty replacement"]],
	["uneditable", ["entries", "a context_edit of content it cannot replace"]],
]);

/** A problem's description before it is kept: its message is made only when it is kept. */
export interface ProblemSite {
	line?: number;
	entryId?: string;
	excerpt?: string;
}

/**
 * The problems of one read: counts every problem, keeps the first few of each kind, throws the first
 * one in strict mode.
 */
export class ProblemLog {
	readonly problems: SessionProblem[] = [];
	private readonly counts = new Map<SessionProblemKind, number>();

	constructor(
		private readonly strict: boolean,
		private readonly file: string | undefined,
	) {}

	/**
	 * Counts a problem of `kind`; when it is one to keep (or to throw), makes its message. `message`
	 * runs only then, so a file of five million bad lines costs five million counts, not messages.
	 */
	add(kind: SessionProblemKind, site: ProblemSite, message: () => string): void {
		const count = (this.counts.get(kind) ?? 0) + 1;
		this.counts.set(kind, count);
		if (count > MAX_PROBLEMS_PER_KIND && !this.strict) return;
		const problem: SessionProblem = { kind, message: message() };
		if (this.file !== undefined) problem.file = this.file;
		if (site.line !== undefined) problem.line = site.line;
		if (site.entryId !== undefined) problem.entryId = site.entryId;
		if (site.excerpt !== undefined) problem.excerpt = site.excerpt;
		if (this.strict) throw problemError(problem);
		this.problems.push(problem);
	}

	/** How many problems of `kind` there were. */
	count(kind: SessionProblemKind): number {
		return this.counts.get(kind) ?? 0;
	}

	/** The counts per kind, in the order each kind first appeared. */
	summary(): SessionProblemCount[] {
		const counts: SessionProblemCount[] = [];
		for (const [kind, count] of this.counts) counts.push(countOf(kind, count));
		return counts;
	}
}

function countOf(kind: SessionProblemKind, count: number): SessionProblemCount {
	const omitted = Math.max(0, count - MAX_PROBLEMS_PER_KIND);
	if (omitted === 0) return { kind, count, omitted };
	return { kind, count, omitted, summary: omittedText(kind, omitted) };
}

/**
 * The line that stands for the problems of a kind left unshown: "… and 4,999,990 more lines like it:
 * not valid JSON, skipped.".
 *
 * Contract: `omitted` (at least 1) is how many problems of `kind` are not shown; the text is the one
 * `SessionProblemCount.summary` holds for the problems `problems` leaves out.
 *
 * @example
 * // Three of each kind shown, then how many more there are.
 * const more = omittedText("not-json", count - 3);
 */
export function omittedText(kind: SessionProblemKind, omitted: number): string {
	const [noun, what] = KIND_TEXT.get(kind) ?? ["lines", kind];
	const like =
		omitted === 1
			? `1 more ${noun === "lines" ? "line" : "entry"} like it`
			: `${omitted.toLocaleString("en-US")} more ${noun} like it`;
	return `… and ${like}: ${what}.`;
}

/** The error strict mode throws for `problem`. */
export function problemError(problem: SessionProblem): InvalidSessionError {
	return new InvalidSessionError(problem.message, {
		file: problem.file,
		line: problem.line,
		entryId: problem.entryId,
	});
}

/** The start of a line as it is in the file, for a problem's excerpt (60 characters at most). */
export function excerptOf(text: string): string {
	return text.length <= 60 ? text : `${text.slice(0, 59)}…`;
}
