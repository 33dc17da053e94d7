/**
 * The HTML report of one conversion (`convert-to-llm --html`, `/llm-context --html`): what the
 * model gets beside the history it came from, as one self-contained page, written in pieces to a
 * file (never one the run reads, never half) or to a stream; and where it is written when no file
 * is named. The one entrance for writing a report: the front ends only say what goes in and where.
 */
import { basename, dirname, extname, join, resolve } from "node:path";
import { type ReportInput, reportSource } from "./report-data.js";
import { type ReadFile, refuseRead, writeReportFile } from "./report-file.js";
import { type ReportRedaction, textRecorder } from "./report-redaction.js";
import type { TextPass } from "./report-types.js";
import { type PageOut, writePage } from "./report-writer.js";

export { contextWindowOf, lastModel, type ModelName } from "./context-window.js";
export type { SessionTree } from "./history-rows.js";
export type { ReportInput } from "./report-data.js";
export {
	type ReadFile,
	ReportPathError,
	readDescriptor,
	readFile,
	refuseRead,
	refuseReadOutput,
} from "./report-file.js";
export { ReportRedactionError } from "./report-redaction.js";
export { type PageOut, ReportTooLargeError } from "./report-writer.js";
export { observeTaps } from "./tap-snapshots.js";

/** Where a report goes: a file (with the files the run reads, which it must not be), or a stream. */
export type ReportTarget = { path: string; reads: readonly ReadFile[] } | { out: PageOut };

/**
 * Writes the report of `input` to `target`; returns the bytes written to a file. With `redaction`,
 * every string of the report goes through that redaction first (report-redaction.ts), and a failed
 * scan writes nothing. Throws `ReportPathError` for a file the run reads, `ReportTooLargeError`,
 * `ReportRedactionError`, or Node's error when the file cannot be written.
 */
export async function writeHtmlReport(
	input: ReportInput,
	target: ReportTarget,
	redaction?: ReportRedaction,
): Promise<{ bytes: number }> {
	if ("path" in target) refuseRead(target.path, target.reads);
	let pass: TextPass | undefined;
	if (redaction !== undefined) {
		// The report made once to be read, every text recorded; then scanned as one history.
		const recorder = textRecorder();
		drain(reportSource(input, recorder.pass), recorder.pass);
		pass = await recorder.redacted(redaction);
	}
	const source = reportSource(input, pass);
	if ("out" in target) {
		writePage(target.out, source, pass);
		return { bytes: 0 };
	}
	return writeReportFile(target.path, target.reads, (out) => writePage(out, source, pass));
}

/** Writes the page of `source` nowhere, so that `pass` sees every text it would hold. */
function drain(source: ReturnType<typeof reportSource>, pass: TextPass): void {
	writePage({ write() {} }, source, pass);
}

/**
 * Where the CLI writes the report when `--html` names no file: the input's name with `.html` for its
 * extension, in the current directory (never beside the session, which the CLI only reads);
 * `convert-to-llm-report.html` for standard input.
 */
export function defaultReportPath(spec: string, cwd: string): string {
	if (spec === "-") return resolve(cwd, "convert-to-llm-report.html");
	const name = basename(spec);
	const stem = extname(name) === "" ? name : name.slice(0, -extname(name).length);
	return resolve(cwd, `${stem === "" ? "convert-to-llm-report" : stem}.html`);
}

/** Where `/llm-context --html` writes: beside the session file (`….jsonl` → `….llm-context.html`), or in `cwd`. */
export function besideSession(sessionFile: string | undefined, cwd: string): string {
	if (sessionFile === undefined || sessionFile === "") return resolve(cwd, "llm-context.html");
	const name = basename(sessionFile);
	const stem = name.endsWith(".jsonl") ? name.slice(0, -".jsonl".length) : name;
	return join(dirname(resolve(cwd, sessionFile)), `${stem}.llm-context.html`);
}
