/**
 * The HTML report of one conversion (`convert-to-llm --html`, `/llm-context --html`): what the
 * model gets beside the history it came from, as one self-contained page; and where it is written
 * when no file is named.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { basename, dirname, extname, join, resolve } from "node:path";
import { readSession } from "../session/read.js";
import type { SessionTree } from "./history-rows.js";
import { reportPage } from "./html-page.js";
import { type ReportInput, reportData } from "./report-data.js";

export type { ReportInput } from "./report-data.js";
export { observeTaps } from "./tap-snapshots.js";

/** The report's page, ready to write to a `.html` file. */
export const htmlReport = (input: ReportInput): string => reportPage(reportData(input));

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

function sameRoles(a: readonly unknown[], b: readonly unknown[]): boolean {
	if (a.length !== b.length) return false;
	const role = (message: unknown) => (message as { role?: unknown } | null)?.role;
	for (let i = 0; i < a.length; i++) if (role(a[i]) !== role(b[i])) return false;
	return true;
}

function sameIds(a: readonly string[], b: readonly string[] | undefined): boolean {
	if (b === undefined || a.length !== b.length) return false;
	for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
	return true;
}

/** What `/llm-context --html` knows of the conversion it reports. */
export interface SessionReport extends Omit<ReportInput, "title"> {
	sessionFile: string | undefined;
	leafId: string | null | undefined;
	cwd: string;
}

/**
 * Writes the report of a pi session's next request beside its session file ({@link besideSession}),
 * with the history column read from that file when it can be; returns the path and the size in bytes.
 * A file that cannot be written throws Node's error.
 */
export function writeSessionReport(report: SessionReport): { path: string; bytes: number } {
	const { sessionFile, leafId, cwd, ...input } = report;
	let tree: SessionTree | undefined = input.tree;
	let contextEdits = input.contextEdits;
	let entryIds = input.entryIds;
	// The tree of pi's own entries, when given: the file is not read again.
	if (tree === undefined && sessionFile !== undefined && existsSync(sessionFile)) {
		try {
			const read = readSession(readFileSync(sessionFile, "utf8"), { leafId: leafId ?? undefined, tree: true });
			tree = read.tree;
			// pi 0.73.1 does not say which entry each message came from: the file does, when it still
			// holds what pi sent (the reader's context is pi's, message for message).
			if (entryIds === undefined && sameRoles(read.messages, input.messages)) entryIds = read.entryIds;
			// What the file's context_edits did, when the file still says what pi sent.
			if (contextEdits === undefined && sameIds(read.entryIds, entryIds)) contextEdits = read.contextEdits;
		} catch {
			// A file pi is writing may not read cleanly: the history column then lists the messages.
		}
	}
	const page = htmlReport({ ...input, entryIds, contextEdits, title: sessionFile ?? "in-memory session", tree });
	const path = besideSession(sessionFile, cwd);
	writeFileSync(path, page);
	return { path, bytes: Buffer.byteLength(page) };
}
