/**
 * Session files written by pi 0.73.1's own persisting `SessionManager` from generated steps: the
 * 0.73.1 side of test/differential/session-differential.test.ts and of the cross-check in
 * test/differential/pi1-session-differential.test.ts, written once.
 */
import { SessionManager } from "@mariozechner/pi-coding-agent";
import { FAUX_ASSISTANT } from "./faux-assistant.mjs";
import type { SessionOp } from "./pi1/session-ops.js";

/** Plays `ops` (0.73.1 steps only) on a persisting `SessionManager` in `dir`; an assistant reply is appended when none was written. */
export function writeWith073(ops: readonly SessionOp[], dir: string): SessionManager {
	const manager = SessionManager.create("/work/project", dir);
	const ids: string[] = [];
	const choose = (n: number): string => ids[n % ids.length] as string;
	for (const step of ops) {
		const id = apply073(manager, step, ids, choose);
		if (id !== undefined) ids.push(id);
	}
	if (!manager.getEntries().some((e) => e.type === "message" && e.message.role === "assistant")) {
		manager.appendMessage(FAUX_ASSISTANT as never);
	}
	return manager;
}

function apply073(
	manager: SessionManager,
	step: SessionOp,
	ids: string[],
	choose: (n: number) => string,
): string | undefined {
	switch (step.op) {
		case "message":
			return manager.appendMessage(step.message as never);
		case "customMessage":
			return manager.appendCustomMessageEntry(step.customType, step.content as never, step.display, step.details);
		case "compaction": {
			const path = manager.getBranch();
			const kept = step.unknownId || path.length === 0 ? "ffffffff" : (path[step.pick % path.length]?.id as string);
			return manager.appendCompaction(step.summary, kept, step.tokensBefore);
		}
		case "branch":
			if (ids.length > 0) manager.branch(choose(step.pick));
			return undefined;
		case "branchWithSummary":
			return manager.branchWithSummary(step.fromRoot || ids.length === 0 ? null : choose(step.pick), step.summary);
		case "label":
			return ids.length === 0 ? undefined : manager.appendLabelChange(choose(step.pick), step.label);
		case "sessionInfo":
			return manager.appendSessionInfo(step.name);
		case "model":
			return manager.appendModelChange(step.provider, step.modelId);
		case "thinking":
			return manager.appendThinkingLevelChange(step.level as never);
		case "customEntry":
			return manager.appendCustomEntry(step.customType, step.data);
		case "resetLeaf":
			manager.resetLeaf();
			return undefined;
		default:
			throw new Error(`not a 0.73.1 step: ${step.op}`);
	}
}
