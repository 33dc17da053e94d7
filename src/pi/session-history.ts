/**
 * The session's history as pi builds it for the next request, with what the CLI's view shows of a
 * session file beside it: the entry each message came from, what the session's `context_edit`
 * entries hid or replaced, and the session's tree (for `/llm-context --html`). pi's own session
 * manager gives the messages and holds the entries it read from the file; convert-to-llm's session
 * reader, run over those entries, gives the rest, so `/llm-context` and `convert-to-llm` show one
 * session alike, and the file is not read again.
 */
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import {
	buildSessionContext,
	type ContextEditEffect,
	type ParsedSession,
	type SessionEntry,
	type SessionHeader,
	type SessionTree,
} from "../session/index.js";
import type { PiSessionManager } from "./pi-api.js";

/** The history to convert, and, when they line up with it, each message's entry, the edits and the tree. */
export interface SessionHistory {
	messages: AgentMessage[];
	entryIds?: string[];
	contextEdits?: ContextEditEffect[];
	/** Every entry pi holds, and its leaf: the report's history column. */
	tree?: SessionTree;
	/** The model of the path's last `model_change` or assistant message, as the session reader reads it. */
	model?: { provider: string; modelId: string } | null;
}

/**
 * pi's next-request history (`buildSessionContext().messages`), with entry ids, `context_edit`
 * effects and the tree from the session reader when its reading of pi's entries gives as many
 * messages as pi's (else, on pi 1.x, the entry ids of pi's projection, and no edits or tree).
 *
 * @throws when this pi's session manager cannot build the context.
 */
export function sessionHistory(sessionManager: PiSessionManager): SessionHistory {
	if (typeof sessionManager.buildSessionContext !== "function") {
		throw new Error("this pi's session manager cannot build the session context");
	}
	// pi's AgentMessage of either line; the registry checks each message it is given.
	const messages = sessionManager.buildSessionContext().messages as AgentMessage[];
	const read = readEntries(sessionManager);
	if (read !== undefined && read.entryIds.length === messages.length) {
		return { messages, ...read };
	}
	const entryIds = projectionIds(sessionManager);
	return entryIds !== undefined && entryIds.length === messages.length ? { messages, entryIds } : { messages };
}

/** The session reader's context of pi's entries at pi's leaf; `undefined` where pi gives no entries. */
function readEntries(sessionManager: PiSessionManager): Required<Omit<SessionHistory, "messages">> | undefined {
	if (typeof sessionManager.getEntries !== "function") return undefined;
	try {
		const entries = sessionManager.getEntries() as SessionEntry[];
		if (!Array.isArray(entries)) return undefined;
		// pi's manager holds its entries migrated to the current version, without the header line.
		const session: ParsedSession = {
			header: (sessionManager.getHeader?.() ?? { type: "session", id: "", timestamp: "", cwd: "" }) as SessionHeader,
			version: 3,
			entries,
			lines: entries.map((_, i) => i + 2),
			problems: [],
			problemCounts: [],
		};
		const leafId = sessionManager.getLeafId?.();
		const context = buildSessionContext(session, leafId === undefined ? {} : { leafId });
		return {
			entryIds: context.entryIds,
			contextEdits: context.contextEdits,
			tree: { session, leafId: context.leafId },
			model: context.model,
		};
	} catch {
		// Entries this reader cannot follow (a leaf it does not find): the view goes without them.
		return undefined;
	}
}

/** pi 1.x's projection: the entry of each message it sends. */
function projectionIds(sessionManager: PiSessionManager): string[] | undefined {
	if (typeof sessionManager.buildSessionProjection !== "function") return undefined;
	const entryIds: string[] = [];
	for (const entry of sessionManager.buildSessionProjection().entries) {
		for (let i = 0; i < entry.messages.length; i++) entryIds.push(entry.sourceEntry.id);
	}
	return entryIds;
}
