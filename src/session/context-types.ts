/**
 * What the session reader gives back: the options of a context and the context itself, with what
 * each `context_edit` did to it.
 */
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { SessionProblem, SessionProblemCount } from "./problems.js";

/**
 * Options of `buildSessionContext` and `readSession`.
 *
 * Contract: a `leafId` that names no entry is a problem: the context is then built from the last
 * entry, as pi builds it (pi's own test "uses last entry when leafId not found"), and the problem
 * names the id not found and the entry used. Problems on the path (a broken link, a message entry
 * without a message, an invalid timestamp, an entry type the reader does not know, a faulty
 * `context_edit`) are listed, or thrown with `strict: true`.
 *
 * @example
 * const earlier = readSession(text, { leafId: "a1b2c3d4" });
 * const nothing = readSession(text, { leafId: null }); // no messages
 */
export interface SessionContextOptions {
	/**
	 * The entry to build the context from: an entry id for an earlier point of the tree, `null` for
	 * "before the first entry" (no messages). Default: the last entry of the file, as pi resumes.
	 */
	leafId?: string | null;
	/** Throw the first problem instead of listing it. Default `false`. */
	strict?: boolean;
}

/**
 * What one `context_edit` did to the context: a stored entry hidden, or its content replaced.
 *
 * Contract: one item per entry of the context that the latest edit for its id changed, in path
 * order. `"hidden"`: the entry contributes no message (`replacement: null`), and `index` is where its
 * messages would have been in `SessionContext.messages`; `"replaced"`: `messages[index]` is the
 * entry's message with the edit's content. `roles` are those of the messages pi would have sent
 * without the edit. An edit whose target is not in the context is not listed.
 *
 * @example
 * for (const edit of readSession(text).contextEdits) {
 * 	console.log(`entry ${edit.targetId} ${edit.effect} by context_edit ${edit.editId}`);
 * }
 */
export interface ContextEditEffect {
	/** The `context_edit` entry that applies (the latest for its target). */
	editId: string;
	/** The entry it changes. */
	targetId: string;
	effect: "hidden" | "replaced";
	/** Where in `messages` the target's message is (`"replaced"`) or would have been (`"hidden"`). */
	index: number;
	/** The roles of the messages the target contributes without the edit. */
	roles: string[];
}

/**
 * What pi would send from a session: the history and the settings in force at the leaf.
 *
 * Contract: `messages` deep-equals pi's `buildSessionContext(...).messages` for the same file and
 * leaf, for pi 0.73.1 and 1.6.0 alike (1.x rules: the compaction checkpoint, `context_edit`, `content
 * == null`; on files 0.73.1 writes they change nothing). `message` entries give their message object
 * as parsed (with 1.x files, `role: "system"` messages too, which 0.73.1's `AgentMessage` does not
 * declare); `custom_message`, non-empty `branch_summary` and the latest `compaction` on the path
 * become `custom`, `branchSummary` and `compactionSummary` messages. `entryIds[i]` is the id of the
 * entry `messages[i]` came from; `contextEdits` says which entries a `context_edit` hid or changed.
 *
 * @example
 * const { messages } = readSession(text);
 * const model = convertToLlm(messages);
 */
export interface SessionContext {
	messages: AgentMessage[];
	/** The id of the entry each message came from (the compaction's id for its checkpoint and summary). */
	entryIds: string[];
	/** Entries of the context that a `context_edit` hid or whose content it replaced. */
	contextEdits: ContextEditEffect[];
	/** The thinking level in force at the leaf (`"off"` unless changed on the path). */
	thinkingLevel: string;
	/** The model in force at the leaf: the last `model_change` or assistant message on the path. */
	model: { provider: string; modelId: string } | null;
	/** The entry the context was built from (`null` when there is none). */
	leafId: string | null;
	/** How many entries lie on the path from the root to the leaf. */
	pathLength: number;
	/**
	 * Problems met on the path (an unknown leaf, a broken parent link, an entry pi could not convert,
	 * an invalid date): the first few of each kind, as data.
	 */
	problems: SessionProblem[];
	/** How many problems of each kind there were (`problems` keeps the first few of each). */
	problemCounts: SessionProblemCount[];
}
