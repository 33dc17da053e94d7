/**
 * A prefix break's cause, told from the session: the registry says a plugin broke it or the history
 * did; where it says the history, the session's structure between the two requests says how.
 */
import type { ConvertedRequest } from "./converted-request.js";
import type { LedgerPrefix } from "./ledger-types.js";
import type { RequestChange } from "./request-tree.js";

/**
 * The ledger's prefix of one converted request: the registry's, with a `system` message that
 * `foldsSystem` models take into the system prompt breaking at 0, and `"history"` refined to
 * `"branch"`, `"compaction"`, `"context_edit"` or `"system"` when the session says so.
 */
export function ledgerPrefix(
	request: Pick<ConvertedRequest, "prefix" | "breakRoles" | "addsSystem">,
	since: RequestChange,
	foldsSystem: boolean,
): LedgerPrefix {
	const prefix = request.prefix;
	if (prefix === undefined) return { kept: 0, breakAt: null, cause: null };
	const atSystem = request.breakRoles[0] === "system" || request.breakRoles[1] === "system";
	if (foldsSystem && (request.addsSystem || (prefix.breakAt !== null && atSystem)))
		return { kept: 0, breakAt: 0, cause: "system" };
	if (prefix.breakAt === null) return { kept: prefix.kept, breakAt: null, cause: null };
	return { kept: prefix.kept, breakAt: prefix.breakAt, cause: refine(prefix.cause ?? "history", since, atSystem) };
}

/** Whether the system prompt itself changes for the provider (see {@link ledgerPrefix}). */
export function rewritesSystem(prefix: LedgerPrefix): boolean {
	return prefix.cause === "system" && prefix.breakAt === 0;
}

function refine(cause: string, since: RequestChange, atSystem: boolean): string {
	if (cause !== "history") return cause;
	if (since.branch) return "branch";
	if (since.compaction) return "compaction";
	if (since.contextEdit) return "context_edit";
	if (atSystem || since.system) return "system";
	return "history";
}
