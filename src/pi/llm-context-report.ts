/**
 * `/llm-context --html`: the report of pi's next request, written beside the session file. The
 * history column comes from the entries pi holds (`sessionHistory`), so the session file is not
 * read, and never written: the report is refused when its path leads to the session.
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
import { billsOfRequest } from "../report/session-bills.js";
import type { ContextEditEffect } from "../session/index.js";
import { totals } from "../view/render.js";
import type { PiContext } from "./pi-api.js";
import { currentContextWindow, modelOf } from "./session-requests.js";

/** What `/llm-context --html` knows of the conversion it reports. */
export interface LlmContextReport {
	facts: readonly string[];
	messages: readonly unknown[];
	explanation: Explanation;
	entryIds: readonly string[] | undefined;
	contextEdits: readonly ContextEditEffect[] | undefined;
	/** pi's entries and leaf (`sessionHistory`), for the history column. */
	tree: SessionTree | undefined;
	/** The session's model (`sessionHistory`), for the context window when pi does not say it. */
	model: { provider: string; modelId: string } | null | undefined;
	/** The redaction the conversion used, when `redactSecrets` is on (`plugin` undefined: it could not be found). */
	redaction: { plugin: Plugin | undefined } | undefined;
}

/** Writes the report beside the session file ({@link besideSession}); returns its path and size in bytes. */
export async function writeLlmContextReport(
	ctx: PiContext,
	report: LlmContextReport,
): Promise<{ path: string; bytes: number }> {
	const sessionFile = ctx.sessionManager.getSessionFile();
	const messages = report.messages as readonly AgentMessage[];
	const { entryIds, contextEdits, tree } = report;
	// The session file is not read, but a report may not be written over it.
	const reads: ReadFile[] = [];
	const session = sessionFile === undefined ? undefined : readFile(sessionFile);
	if (session !== undefined) reads.push(session);
	const path = besideSession(sessionFile, ctx.cwd);
	// The token figures and the ledger chart from the bills pi recorded in its entries, as the CLI's report.
	const output = report.explanation.output;
	const bills = await billsOfRequest(
		tree === undefined
			? { why: "pi gave no session entries" }
			: { session: tree.session, file: sessionFile ?? "in-memory session" },
		output,
		totals(output).tokens,
		undefined,
		"report",
	);
	const { bytes } = await writeHtmlReport(
		{
			title: sessionFile ?? "in-memory session",
			facts: report.facts,
			messages,
			explanation: report.explanation,
			entryIds,
			contextEdits,
			tree,
			window: currentWindow(ctx) ?? (await contextWindowOf(report.model)),
			tokens: bills.figures,
			ledger: bills.ledger ?? { why: bills.why ?? "the session has no ledger" },
		},
		{ path, reads },
		report.redaction,
	);
	return { path, bytes };
}

/** The context window of pi's current model (the next request's), when pi says it. */
function currentWindow(ctx: PiContext): ContextWindow | undefined {
	const tokens = currentContextWindow(ctx);
	return tokens === undefined
		? undefined
		: { tokens, model: modelOf(ctx) ?? "pi's current model", source: "pi's current model" };
}
