/**
 * fast-check sessions for the ledger's property tests: trees of pi 1.x entries grown step by step
 * (messages of every role, assistant entries with usage or without, compactions, context edits,
 * system messages, thinking and model changes, a jump back to an earlier entry as a branch), written
 * as session files.
 */
import fc from "fast-check";
import { sessionText, T0, usage } from "./small-session.js";

type Step =
	| { kind: "user" | "tool" | "custom" | "bash" | "system" | "thinking" | "model"; size: number }
	| { kind: "assistant"; size: number; billed: boolean; stop: "toolUse" | "stop" | "aborted" }
	| { kind: "compaction"; keep: number }
	| { kind: "edit"; back: number; hide: boolean }
	| { kind: "branch"; back: number };

const arbStep: fc.Arbitrary<Step> = fc.oneof(
	{ weight: 4, arbitrary: fc.record({ kind: fc.constantFrom("user", "tool", "custom", "bash"), size: fc.nat(40) }) },
	{
		weight: 5,
		arbitrary: fc.record({
			kind: fc.constant("assistant"),
			size: fc.nat(40),
			billed: fc.boolean(),
			stop: fc.constantFrom("toolUse", "stop", "aborted"),
		}),
	},
	{ weight: 1, arbitrary: fc.record({ kind: fc.constantFrom("system", "thinking", "model"), size: fc.nat(10) }) },
	{ weight: 1, arbitrary: fc.record({ kind: fc.constant("compaction"), keep: fc.nat(6) }) },
	{ weight: 1, arbitrary: fc.record({ kind: fc.constant("edit"), back: fc.nat(8), hide: fc.boolean() }) },
	{ weight: 1, arbitrary: fc.record({ kind: fc.constant("branch"), back: fc.nat(10) }) },
) as fc.Arbitrary<Step>;

/** A session's text, grown from `steps`. */
export function sessionOf(steps: readonly Step[]): string {
	const entries: Record<string, unknown>[] = [];
	const path: string[] = [];
	let parent: string | null = null;
	let time = T0;
	let read = 0;
	const add = (fields: Record<string, unknown>): string => {
		const id = `e${String(entries.length).padStart(4, "0")}`;
		time += 7_000;
		entries.push({ ...fields, id, parentId: parent, timestamp: new Date(time).toISOString() });
		parent = id;
		path.push(id);
		return id;
	};
	const message = (message: Record<string, unknown>) =>
		add({ type: "message", message: { ...message, timestamp: time + 7_000 } });
	for (const step of steps) {
		const text = (letter: string, size: number) => letter.repeat(size * 4);
		switch (step.kind) {
			case "user":
				message({ role: "user", content: text("u", step.size) });
				break;
			case "tool":
				message({
					role: "toolResult",
					toolCallId: "c",
					toolName: "read",
					content: [{ type: "text", text: text("r", step.size) }],
					isError: false,
				});
				break;
			case "custom":
				add({ type: "custom_message", customType: "note", content: text("n", step.size), display: true });
				break;
			case "bash":
				message({
					role: "bashExecution",
					command: "ls",
					output: text("o", step.size),
					exitCode: 0,
					cancelled: false,
					truncated: false,
				});
				break;
			case "system":
				message({ role: "system", content: "", sections: { rules: text("s", step.size) } });
				break;
			case "thinking":
				add({ type: "thinking_level_change", thinkingLevel: step.size % 2 === 0 ? "high" : "off" });
				break;
			case "model":
				add({
					type: "model_change",
					provider: "anthropic",
					modelId: step.size % 2 === 0 ? "claude-opus-4-5" : "claude-sonnet-4-5",
				});
				break;
			case "assistant": {
				read += 100 + step.size;
				message({
					role: "assistant",
					content: [{ type: "text", text: text("a", step.size) }],
					api: "anthropic-messages",
					provider: "anthropic",
					model: "claude-sonnet-4-5",
					usage: step.billed ? usage(3, read, 50 + step.size) : undefined,
					stopReason: step.stop,
				});
				break;
			}
			case "compaction": {
				const kept = path[Math.max(0, path.length - 1 - step.keep)];
				if (kept === undefined) break;
				add({ type: "compaction", summary: "So far.", firstKeptEntryId: kept, tokensBefore: 1000 });
				break;
			}
			case "edit": {
				const target = path[Math.max(0, path.length - 1 - step.back)];
				if (target === undefined) break;
				add({ type: "context_edit", targetId: target, replacement: step.hide ? null : { content: "[edited]" } });
				break;
			}
			case "branch": {
				const at = path.length - 1 - step.back;
				if (at < 0) break;
				path.length = at + 1;
				parent = path[at] as string;
				add({ type: "branch_summary", fromId: parent, summary: "Went back." });
				break;
			}
		}
	}
	return sessionText(entries);
}

/** Sessions of up to `max` steps. */
export const arbSession = (max = 40): fc.Arbitrary<string> => fc.array(arbStep, { maxLength: max }).map(sessionOf);
