/**
 * `/llm-context --html`: the report of pi's next request, written beside the session file. The
 * session file is read once (the history column's entries, and on pi 0.73.1 the entry of each
 * message), never written: the report is refused when its path leads to the session.
 */
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { Explanation, Plugin } from "../registry/types.js";
import {
	besideSession,
	contextWindowOf,
	type ReadFile,
	readFile,
	type SessionTree,
	writeHtmlReport,
} from "../report/html-report.js";
import type { ContextWindow } from "../report/report-types.js";
import type { ContextEditEffect } from "../session/context-types.js";
import { readSessionFile } from "../session/read.js";
import type { PiContext } from "./pi-api.js";

/** What `/llm-context --html` knows of the conversion it reports. */
export interface LlmContextReport {
	facts: readonly string[];
	messages: readonly unknown[];
	explanation: Explanation;
	entryIds: readonly string[] | undefined;
	contextEdits: readonly ContextEditEffect[] | undefined;
	/** The redaction the conversion used, when `redactSecrets` is on (`plugin` undefined: it could not be found). */
	redaction: { plugin: Plugin | undefined } | undefined;
}

/** Writes the report beside the session file ({@link besideSession}); returns its path and size in bytes. */
export async function writeLlmContextReport(
	ctx: PiContext,
	report: LlmContextReport,
): Promise<{ path: string; bytes: number }> {
	const sessionFile = ctx.sessionManager.getSessionFile();
	const leafId = ctx.sessionManager.getLeafId?.();
	const messages = report.messages as readonly AgentMessage[];
	let { entryIds, contextEdits } = report;
	let tree: SessionTree | undefined;
	let model: { provider: string; modelId: string } | null | undefined;
	const reads: ReadFile[] = [];
	const session = sessionFile === undefined ? undefined : readFile(sessionFile);
	if (session !== undefined) {
		reads.push(session);
		try {
			const read = readSessionFile(sessionFile as string, { leafId: leafId ?? undefined });
			tree = { entries: read.session.entries, leafId: read.leafId };
			model = read.model;
			// pi 0.73.1 does not say which entry each message came from: the file does, when it still
			// holds what pi sent (the reader's context is pi's, message for message).
			if (entryIds === undefined && sameRoles(read.messages, messages)) entryIds = read.entryIds;
			// What the file's context_edits did, when the file still says what pi sent.
			if (contextEdits === undefined && sameIds(read.entryIds, entryIds)) contextEdits = read.contextEdits;
		} catch {
			// A file pi is writing may not read cleanly: the history column then lists the messages.
		}
	}
	const path = besideSession(sessionFile, ctx.cwd);
	const { bytes } = await writeHtmlReport(
		{
			title: sessionFile ?? "in-memory session",
			facts: report.facts,
			messages,
			explanation: report.explanation,
			entryIds,
			contextEdits,
			tree,
			window: currentWindow(ctx) ?? (await contextWindowOf(model)),
		},
		{ path, reads },
		report.redaction,
	);
	return { path, bytes };
}

/** The context window of pi's current model (the next request's), when pi says it. */
function currentWindow(ctx: PiContext): ContextWindow | undefined {
	try {
		const model = ctx.model;
		if (model === undefined || model === null) return undefined;
		const tokens = model.contextWindow;
		if (typeof tokens !== "number" || !Number.isFinite(tokens) || tokens <= 0) return undefined;
		return { tokens, model: `${String(model.provider)}/${String(model.id)}`, source: "pi's current model" };
	} catch {
		return undefined;
	}
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
