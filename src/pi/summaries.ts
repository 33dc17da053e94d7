/**
 * pi's summary requests (compaction, and the branch summary of `/tree`) through the shared registry.
 * pi builds them with its own `convertToLlm` and raises no `context` event for them, so without this
 * a message a plugin hides from every chat request would reach the model in a summary. Both pi lines
 * (0.73.1 and 1.x) emit `session_before_compact` and `session_before_tree` with the `preparation` they
 * then summarize; the handlers here put the hardened messages in its place, so that the request pi
 * makes (its prompt, serialization, model, auth, retries and usage) carries what the registry
 * converted, and nothing else. With no plugin offered and no switch on they change nothing.
 */
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { Message } from "@earendil-works/pi-ai";
import { applyEdit, type EntryReporter, entryMessages } from "../session/project.js";
import type { ContextEditEntry, SessionEntry } from "../session/types.js";
import { errorText, isRecord } from "../values.js";
import type { Host } from "./host.js";
import type { PiContext } from "./pi-api.js";
import { problemText } from "./problem-text.js";
import type { Reporter } from "./report.js";
import { leavesConversation, UNREADABLE } from "./request.js";

/** What a `session_before_*` handler returns to pi: nothing (go on), or cancel. */
export type SummaryResult = { cancel: true } | undefined;

/** pi's `CompactionPreparation`, the parts read and replaced here (both lines). */
interface CompactionPreparation {
	messagesToSummarize: unknown[];
	turnPrefixMessages: unknown[];
	fileOps?: { read?: Set<string>; written?: Set<string>; edited?: Set<string> };
}

/**
 * `session_before_compact`: the messages pi is about to summarize (the history and, for a split turn,
 * the turn's prefix) replaced by their conversion through the shared registry, and pi's file lists
 * cut to the paths the converted messages (or the previous compaction's lists) still name.
 *
 * Contract: never throws (pi would go on with its own conversion: fail open). Returns `undefined` when
 * nothing is active (pi's compaction unchanged) or the preparation now holds the converted messages;
 * returns `{ cancel: true }`, with an error saying why, when the conversion fails, when it reports a
 * problem under `strict`, or when the preparation cannot be read or does not take the converted
 * messages. Problems are shown as warnings otherwise.
 *
 * @example
 * pi.on("session_before_compact", (event, ctx) => hardenCompaction(host, reporter, event, ctx));
 */
export async function hardenCompaction(
	host: Host,
	reporter: Reporter,
	event: { preparation: unknown; branchEntries?: unknown },
	ctx: PiContext,
): Promise<SummaryResult> {
	try {
		if (!host.active()) return undefined;
		const preparation = event.preparation as CompactionPreparation;
		const problems: string[] = [];
		const history = await convert(host, preparation.messagesToSummarize, problems);
		const prefix = await convert(host, preparation.turnPrefixMessages ?? [], problems);
		if (typeof history === "string" || typeof prefix === "string") {
			return cancel(reporter, ctx, "compaction", typeof history === "string" ? history : (prefix as string));
		}
		preparation.messagesToSummarize = history;
		preparation.turnPrefixMessages = prefix;
		if (preparation.messagesToSummarize !== history || preparation.turnPrefixMessages !== prefix) {
			return cancel(reporter, ctx, "compaction", "this pi does not take the converted messages");
		}
		keepNamedFiles(preparation.fileOps, [...history, ...prefix], event.branchEntries);
		reporter.warn(ctx, problems);
		return undefined;
	} catch (error) {
		return cancel(reporter, ctx, "compaction", `the conversion failed: ${errorText(error)}`);
	}
}

/**
 * `session_before_tree`: when the user asked for a branch summary, the entries pi is about to
 * summarize replaced (in the same array pi goes on with) by one message entry per message the shared
 * registry converted them to.
 *
 * Contract: as {@link hardenCompaction}; `{ cancel: true }` cancels the navigation (pi offers no way
 * to go on without the summary the user asked for). Navigating without a summary changes nothing.
 *
 * @example
 * pi.on("session_before_tree", (event, ctx) => hardenBranchSummary(host, reporter, event, ctx));
 */
export async function hardenBranchSummary(
	host: Host,
	reporter: Reporter,
	event: { preparation: unknown },
	ctx: PiContext,
): Promise<SummaryResult> {
	try {
		if (!host.active()) return undefined;
		const preparation = event.preparation as { userWantsSummary?: unknown; entriesToSummarize: unknown[] };
		if (!preparation.userWantsSummary) return undefined;
		const entries = preparation.entriesToSummarize;
		if (!Array.isArray(entries)) return cancel(reporter, ctx, "branch summary", "pi gave no entries to summarize");
		const problems: string[] = [];
		const converted = await convert(host, branchMessages(entries as SessionEntry[]), problems);
		if (typeof converted === "string") return cancel(reporter, ctx, "branch summary", converted);
		const stamp = new Date().toISOString();
		const replaced = converted.map((message, i) => ({
			type: "message",
			id: `convert-to-llm-${i}`,
			parentId: i === 0 ? null : `convert-to-llm-${i - 1}`,
			timestamp: stamp,
			message,
		}));
		entries.splice(0, entries.length, ...replaced);
		if (entries.length !== replaced.length || entries.some((entry, i) => entry !== replaced[i])) {
			return cancel(reporter, ctx, "branch summary", "this pi does not take the converted messages");
		}
		reporter.warn(ctx, problems);
		return undefined;
	} catch (error) {
		return cancel(reporter, ctx, "branch summary", `the conversion failed: ${errorText(error)}`);
	}
}

/**
 * `messages` through the shared registry; the problems to show are added to `problems`. Returns why
 * the summary must not be made instead: the configuration holds what the extension cannot read, the
 * conversion failed, it reported a problem and left nothing of messages that held some (a summary of
 * nothing would replace them for good), or any problem was reported under `strict`.
 */
async function convert(host: Host, messages: unknown[], problems: string[]): Promise<Message[] | string> {
	const unreadable = host.unreadable();
	if (unreadable.length > 0) return `${UNREADABLE}: ${unreadable.join(" · ")}`;
	// A summary gets the whole part pi summarizes: maxTokens's trim is for chat requests (see Host.build).
	const { registry, problems: buildProblems, degraded } = host.build("summary");
	const strict = host.hardening().strict;
	const conversion = await registry.runAsync(messages as AgentMessage[]);
	for (const problem of buildProblems) if (!problems.includes(problem)) problems.push(problem);
	if (conversion.failed) {
		return `the conversion failed: ${conversion.problems.at(-1)?.message ?? "no reason given"}`;
	}
	// A plugin may hide every message on purpose (a summary of nothing then drops what it hid); one
	// that failed (a scanner that cannot load) must not make pi replace the history with nothing.
	if (conversion.problems.length > 0 && !leavesConversation(messages, conversion.output)) {
		const why = conversion.problems.map((problem) => problemText(problem, "withheld")).join(" · ");
		return `the conversion left nothing of the messages to summarize: ${why}`;
	}
	for (const problem of conversion.problems) problems.push(problemText(problem, strict));
	if (strict && (degraded || conversion.problems.length > 0)) {
		return `the conversion reported problems and strict is on: ${problems.join(" · ")}`;
	}
	return conversion.output;
}

function cancel(reporter: Reporter, ctx: PiContext, what: string, why: string): SummaryResult {
	const reason = why.endsWith(".") ? why.slice(0, -1) : why;
	reporter.error(ctx, [
		`${what} cancelled (fail closed): ${reason}. Nothing was sent for it; the session is unchanged.`,
	]);
	return { cancel: true };
}

/** No report is kept for the entries of a summary: pi read them already. */
const SILENT: EntryReporter = { report() {}, where: (at) => `entry ${at}` };

/**
 * The messages pi's `generateBranchSummary` summarizes for `entries` (its `getMessageFromEntry`):
 * each entry's messages with the latest `context_edit` per target applied (pi 1.x), tool results
 * left out (their call says it), a compaction as its summary alone.
 */
export function branchMessages(entries: readonly SessionEntry[]): AgentMessage[] {
	const edits = new Map<string, { edit: ContextEditEntry; at: number }>();
	for (let at = 0; at < entries.length; at++) {
		const entry = entries[at] as SessionEntry;
		if (entry.type === "context_edit") edits.set(entry.targetId, { edit: entry, at });
	}
	const messages: AgentMessage[] = [];
	for (let at = 0; at < entries.length; at++) {
		const entry = entries[at] as SessionEntry;
		if (entry.type === "message" && (entry.message as { role?: unknown } | undefined)?.role === "toolResult")
			continue;
		let own = entryMessages(entry, at, SILENT);
		if (entry.type === "compaction") own = own.filter((message) => message.role === "compactionSummary");
		const edit = edits.get(entry.id);
		if (edit !== undefined) {
			const edited = applyEdit(own, edit.edit, edit.at, at, SILENT);
			if (edited.effect === "hidden") continue;
			if (edited.effect === "replaced") own = edited.messages;
		}
		for (const message of own) messages.push(message);
	}
	return messages;
}

/**
 * Leaves in pi's file lists only the paths the converted messages' tool calls name, or the previous
 * compaction's lists: a path only a hidden message named is not written into the summary.
 */
function keepNamedFiles(
	fileOps: CompactionPreparation["fileOps"],
	messages: readonly Message[],
	entries: unknown,
): void {
	if (!isRecord(fileOps)) return;
	const named = new Set<string>();
	const name = (args: unknown): void => {
		const path = isRecord(args) ? args.path : undefined;
		if (typeof path === "string") named.add(path);
	};
	for (const message of messages) {
		// pi 1.x also takes the calls a codemode script made from its tool result.
		const nested = (message as { nestedCalls?: { calls?: unknown } }).nestedCalls?.calls;
		if (message.role === "toolResult" && Array.isArray(nested)) for (const call of nested) name(call?.arguments);
		if (message.role !== "assistant" || !Array.isArray(message.content)) continue;
		for (const block of message.content) if (block.type === "toolCall") name(block.arguments);
	}
	for (const path of previousFiles(entries)) named.add(path);
	for (const set of [fileOps.read, fileOps.written, fileOps.edited]) {
		if (!(set instanceof Set)) continue;
		for (const path of [...set]) if (!named.has(path)) set.delete(path);
	}
}

/** The file lists of the last compaction on the branch (pi carries them into the next summary). */
function previousFiles(entries: unknown): string[] {
	if (!Array.isArray(entries)) return [];
	for (let i = entries.length - 1; i >= 0; i--) {
		const entry = entries[i] as { type?: unknown; details?: unknown };
		if (entry?.type !== "compaction") continue;
		const details = entry.details as { readFiles?: unknown; modifiedFiles?: unknown } | undefined;
		const files: string[] = [];
		for (const list of [details?.readFiles, details?.modifiedFiles]) {
			if (Array.isArray(list)) for (const path of list) if (typeof path === "string") files.push(path);
		}
		return files;
	}
	return [];
}
