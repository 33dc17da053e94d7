/**
 * `CliError` and `ExitCode`: what the CLI tells the user before it exits (one line, no stack trace), and the
 * helpers that turn whatever was thrown into that line.
 */
import { describeValue, errorText, isInstance, isRecord, textOf } from "../values.js";

/** Exit status of the CLI. */
export const ExitCode = Object.freeze({
	OK: 0,
	/** A problem under `--strict`. */
	PROBLEM: 1,
	/** Bad input or usage. */
	BAD_INPUT: 2,
} as const);

/**
 * What the CLI tells the user before it exits: one line on stderr, no stack trace.
 *
 * Contract: `message` says what is wrong, with what (the file, the plugin module), and what to do.
 */
export class CliError extends Error {
	constructor(
		message: string,
		readonly exitCode: number = ExitCode.BAD_INPUT,
	) {
		super(message);
		this.name = "CliError";
	}
}

/** The `code` of a caught Node error (`ENOSPC`), or `undefined`; never throws. */
export function codeOf(value: unknown): string | undefined {
	try {
		const code = isRecord(value) ? value.code : undefined;
		return typeof code === "string" ? code : undefined;
	} catch {
		return undefined;
	}
}

/** Whether a caught value is V8's stack overflow (`Maximum call stack size exceeded`). */
export const isStackOverflow = (value: unknown): boolean =>
	isInstance(value, RangeError) && errorText(value) === "Maximum call stack size exceeded";

/** What to do about output that cannot be written, by the error's code. */
const WRITE_ADVICE: ReadonlyMap<string, string> = new Map([
	["ENOSPC", "Free space on the device, or write somewhere else."],
	["EDQUOT", "Free space within your disk quota, or write somewhere else."],
	[
		"EFBIG",
		"The file would pass the largest file allowed here (the shell's `ulimit -f`, or the file system's): raise that limit, or write somewhere else.",
	],
	["EROFS", "The file system is read-only: write somewhere else."],
	["EACCES", "Write somewhere you may write to."],
	["EPERM", "Write somewhere you may write to."],
]);

/** The error for output that cannot be written (`ENOSPC` on a full disk, say); `EPIPE` is not one. */
export function writeFailed(cause: unknown): CliError {
	const code = codeOf(cause);
	const what = errorText(cause);
	const named = code === undefined || what.includes(code) ? what : `${what} (${code})`;
	const advice =
		(code === undefined ? undefined : WRITE_ADVICE.get(code)) ?? "Check the device, or write somewhere else.";
	return new CliError(`cannot write the output: ${named}. ${advice}`);
}

/**
 * What a caught value says, in words: an error's first line, or what was thrown when it is not an
 * error (`it threw null`, `it threw a value that is not an Error ([object Object])`); never throws.
 */
export function thrownText(error: unknown): string {
	if (!isInstance(error, Error)) {
		if (!isRecord(error)) return `it threw ${describeValue(error)}`;
		return `it threw a value that is not an Error (${textOf(error)})`;
	}
	const text = errorText(error);
	const end = text.indexOf("\n");
	return end === -1 ? text : errorText(text.slice(0, end));
}
