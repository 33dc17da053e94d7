/**
 * The `convert-to-llm` executable's run (imported by bin.ts): wires {@link main} to the process. Whatever happens, the process
 * ends with one line on stderr and a non-zero status, or with the output and the status of `main`:
 * never a stack trace, and never 0 for a run that did not finish; and it ends when `main` is done,
 * whatever timers a plugin left running.
 */
import { fstatSync, writeSync } from "node:fs";
import { isatty } from "node:tty";
import { errorText } from "../values.js";
import { oneLine } from "../view/style.js";
import { codeOf, ExitCode, writeFailed } from "./cli-error.js";
import { main } from "./main.js";
import { readStreamBounded } from "./read-input.js";

/** How long the process waits for stdout and stderr to take what was written, once the run is done. */
const EXIT_GRACE_MS = 10_000;

/** What to say if the process runs out of work before `main` settles; set as the run goes on. */
let pending: string | undefined = "the run never finished. Please report it with the command you ran.";

const fail = (message: string, code: number): never => {
	process.stderr.write(`convert-to-llm: ${oneLine(message)}\n`);
	process.exit(code);
};

// `convert-to-llm session.jsonl | head` closes the pipe early: that is not an error. A full disk is.
const stdoutFailed = (error: unknown): void => {
	if (codeOf(error) === "EPIPE") process.exit(ExitCode.OK);
	fail(writeFailed(error).message, ExitCode.BAD_INPUT);
};
process.stdout.on("error", stdoutFailed);
// Nothing is left to say where stderr fails.
process.stderr.on("error", () => process.exit(process.exitCode ?? ExitCode.BAD_INPUT));

// A promise that never settles (a plugin's top-level await or async tap) leaves nothing to run: the
// process would exit 0 with no output.
process.on("beforeExit", () => {
	if (pending !== undefined) fail(pending, ExitCode.BAD_INPUT);
});
// A plugin's stray promise or timer can fail outside the run.
const stray = (what: string) => (cause: unknown) =>
	fail(
		`${what} outside the conversion: ${errorText(cause)}. If you gave --plugin, a plugin's stray promise or timer is the likely cause: fix it, or leave it out.`,
		ExitCode.BAD_INPUT,
	);
process.on("unhandledRejection", stray("a promise rejected"));
process.on("uncaughtException", stray("an error was thrown"));

/**
 * Ends the process once stdout and stderr have taken everything written to them: the run is done,
 * whatever a plugin left scheduled (a `setInterval` would keep the process alive forever).
 */
function exitWhenWritten(code: number): void {
	let open = 2;
	const written = (): void => {
		open--;
		if (open === 0) process.exit(code);
	};
	// A file's stream writes as it is called: nothing waits in it (and an empty write to /dev/full fails).
	if (direct !== undefined) written();
	else process.stdout.write("", (error?: Error | null) => (error ? stdoutFailed(error) : written()));
	// Nothing is left to say where stderr fails.
	process.stderr.write("", written);
	// A reader that never reads (a stalled pipe) does not hold the process past this.
	setTimeout(() => process.exit(code), EXIT_GRACE_MS).unref();
}

/** Characters written at a time to a file: each piece is encoded into a buffer that is then reused. */
const PIECE = 256 * 1024;

/**
 * Standard output written straight to its file descriptor where it is a file or a device other than a
 * terminal (`> out.json`, `> /dev/null`). Node's own stream for such an output writes each text
 * synchronously too, but only after measuring it and copying it into a new buffer (about 60 ms for
 * a 40 MB `--json` output, against 30 written here in pieces); anywhere else (a pipe, a terminal),
 * `process.stdout`. A write cut short (a full disk) writes the rest, which then fails with the
 * disk's error.
 */
function fileStdout(): { write(text: string): boolean; isTTY: false } | undefined {
	try {
		const stats = fstatSync(1);
		if (!(stats.isFile() || stats.isCharacterDevice()) || isatty(1)) return undefined;
	} catch {
		return undefined;
	}
	return {
		isTTY: false,
		write(text: string): boolean {
			for (let at = 0; at < text.length; ) {
				let end = Math.min(text.length, at + PIECE);
				// A piece never ends between the two halves of a surrogate pair (each would be written as U+FFFD).
				const last = text.charCodeAt(end - 1);
				if (end < text.length && last >= 0xd800 && last <= 0xdbff) end--;
				writePiece(at === 0 && end === text.length ? text : text.slice(at, end));
				at = end;
			}
			return true;
		},
	};
}

function writePiece(piece: string): void {
	const written = writeSync(1, piece);
	// Fewer bytes than the piece's UTF-8 length is a write cut short (by a full disk, a size limit):
	// the rest is written, and the write that cannot go on throws (EFBIG, ENOSPC), so the run fails.
	const length = written < piece.length ? -1 : Buffer.byteLength(piece);
	if (written === length) return;
	const bytes = Buffer.from(piece);
	for (let at = written; at < bytes.length; ) {
		const more = writeSync(1, bytes, at, bytes.length - at);
		if (more <= 0)
			throw Object.assign(new Error("the output could not be written (no byte was taken)"), { code: "EIO" });
		at += more;
	}
}

// Last, once every constant above is set: `main` writes --help and --version before it first waits.
const direct = fileStdout();
main({
	argv: process.argv.slice(2),
	cwd: process.cwd(),
	env: process.env,
	stdout: direct ?? process.stdout,
	stderr: process.stderr,
	readStdin: (maxBytes) => readStreamBounded(process.stdin, maxBytes),
	stdin: process.stdin,
	pending: (message) => {
		pending = message;
	},
}).then((code) => {
	pending = undefined;
	process.exitCode = code;
	exitWhenWritten(code);
});
