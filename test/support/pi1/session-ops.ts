/**
 * fast-check generators of the steps that build a pi session through its own `SessionManager`:
 * `arbOps073` for pi 0.73.1 (the steps of test/differential/session-differential.test.ts, with the same weights),
 * `arbOps16` for pi 1.6.0, which adds system messages (a leading one often, later patches of
 * `sections` and tools), messages and custom message entries without content (`null` or absent),
 * `appendContextEdit` (omit or replace), `appendUsage`, and compactions whose
 * `firstKeptEntryId` is `null` (the compaction's own id: keep nothing), an entry on the path, any
 * entry of the file, or an unknown id. The steps are data: the 1.6 ones are played in the pi 1.x
 * child (session.mjs), the 0.73.1 ones in the vitest process.
 */
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import fc from "fast-check";
import {
	arbAgentMessage,
	arbAgentMessage16,
	arbBlocks,
	arbLeadingSystemMessage,
	arbName,
	arbSections,
	arbSystemMessage,
	arbText,
	arbToolDeclaration,
	arbUsage,
	type Pi1HistoryMessage,
} from "../arbitraries.js";

/** One step of building a session; `pick` chooses among existing entries (modulo their number). */
export type SessionOp =
	| { op: "message"; message: AgentMessage | Pi1HistoryMessage }
	| { op: "customMessage"; customType: string; content: string | unknown[]; display: boolean; details: unknown }
	| { op: "compaction"; summary: string; pick: number; tokensBefore: number; unknownId: boolean }
	| {
			op: "compaction16";
			summary: string;
			pick: number;
			tokensBefore: number;
			kept: "path" | "any" | "unknown" | "self";
	  }
	| { op: "branch"; pick: number }
	| { op: "branchWithSummary"; pick: number; summary: string; fromRoot: boolean }
	| { op: "label"; pick: number; label: string | undefined }
	| { op: "sessionInfo"; name: string }
	| { op: "model"; provider: string; modelId: string }
	| { op: "thinking"; level: string }
	| { op: "customEntry"; customType: string; data: unknown }
	| { op: "resetLeaf" }
	| { op: "contextEdit"; pick: number; replacement: null | { content: string | unknown[] } }
	| { op: "usage"; kind: string; provider: string; model: string; usage: unknown; note: string | undefined };

export const arbPick = fc.nat({ max: 1000 });

/** The steps of the 0.73.1 session differential, with its weights. */
const ops073 = [
	{ weight: 12, arbitrary: fc.record({ op: fc.constant("message"), message: arbAgentMessage }) },
	{
		weight: 2,
		arbitrary: fc.record({
			op: fc.constant("message"),
			// Roles nobody converts: an extension's own, and v2's name of `custom` in a v3 file.
			message: fc
				.record({ role: fc.constantFrom("ticket", "hookMessage"), text: arbText, timestamp: fc.nat() })
				.map((message) => message as unknown as AgentMessage),
		}),
	},
	{
		weight: 2,
		arbitrary: fc.record({
			op: fc.constant("customMessage"),
			customType: arbName,
			content: fc.oneof(arbText, arbBlocks),
			display: fc.boolean(),
			details: fc.option(fc.jsonValue({ maxDepth: 2 }), { nil: undefined }),
		}),
	},
	{
		weight: 2,
		arbitrary: fc.record({
			op: fc.constant("compaction"),
			summary: arbText,
			pick: arbPick,
			tokensBefore: fc.nat(),
			unknownId: fc.nat({ max: 9 }).map((n) => n === 0),
		}),
	},
	{ weight: 2, arbitrary: fc.record({ op: fc.constant("branch"), pick: arbPick }) },
	{
		weight: 2,
		arbitrary: fc.record({
			op: fc.constant("branchWithSummary"),
			pick: arbPick,
			summary: fc.oneof(fc.constant(""), arbText),
			fromRoot: fc.nat({ max: 9 }).map((n) => n === 0),
		}),
	},
	{
		weight: 1,
		arbitrary: fc.record({ op: fc.constant("label"), pick: arbPick, label: fc.option(arbName, { nil: undefined }) }),
	},
	{ weight: 1, arbitrary: fc.record({ op: fc.constant("sessionInfo"), name: arbText }) },
	{ weight: 1, arbitrary: fc.record({ op: fc.constant("model"), provider: arbName, modelId: arbName }) },
	{
		weight: 1,
		arbitrary: fc.record({ op: fc.constant("thinking"), level: fc.constantFrom("off", "low", "medium", "high") }),
	},
	{
		weight: 1,
		arbitrary: fc.record({
			op: fc.constant("customEntry"),
			customType: arbName,
			data: fc.jsonValue({ maxDepth: 2 }),
		}),
	},
	{ weight: 1, arbitrary: fc.constant({ op: "resetLeaf" } as const) },
] as fc.WeightedArbitrary<SessionOp>[];

/** One step of a 0.73.1 session. */
export const arbOp073: fc.Arbitrary<SessionOp> = fc.oneof(...ops073);

/** A 0.73.1 session: what test/differential/session-differential.test.ts generates. */
export const arbOps073: fc.Arbitrary<SessionOp[]> = fc.array(arbOp073, { minLength: 1, maxLength: 80, size: "large" });

/** A system patch as pi 1.x persists one: empty content, changed `sections`, sometimes tools. */
const arbSystemPatch = fc.record(
	{
		role: fc.constant("system"),
		content: fc.oneof({ weight: 3, arbitrary: fc.constant("") }, { weight: 1, arbitrary: arbText }),
		sections: arbSections,
		toolsAdded: fc.array(arbToolDeclaration, { minLength: 1, maxLength: 2 }),
		toolsRemoved: fc.array(fc.record({ name: arbName }), { minLength: 1, maxLength: 2 }),
		timestamp: fc.nat(),
	},
	{ requiredKeys: ["role", "content", "sections", "timestamp"] },
);

const ops16 = [
	...ops073.filter((_, i) => i !== 0 && i !== 3),
	{ weight: 12, arbitrary: fc.record({ op: fc.constant("message"), message: arbAgentMessage16 }) },
	{
		weight: 3,
		arbitrary: fc.record({ op: fc.constant("message"), message: fc.oneof(arbSystemPatch, arbSystemMessage) }),
	},
	{
		weight: 1,
		arbitrary: fc.record({
			op: fc.constant("message"),
			// What older versions and hand edits leave: no content, or null (pi 1.x reads [] or "" for system).
			message: fc
				.record(
					{
						role: fc.constantFrom("user", "assistant", "toolResult", "system"),
						content: fc.constantFrom(null, undefined),
						timestamp: fc.nat(),
					},
					{ requiredKeys: ["role", "timestamp"] },
				)
				.map((message) => message as unknown as AgentMessage),
		}),
	},
	{
		weight: 1,
		arbitrary: fc.record({
			op: fc.constant("customMessage"),
			customType: arbName,
			content: fc.constant(null as unknown as string),
			display: fc.boolean(),
			details: fc.constant(undefined),
		}),
	},
	{
		weight: 3,
		arbitrary: fc.record({
			op: fc.constant("compaction16"),
			summary: arbText,
			pick: arbPick,
			tokensBefore: fc.nat(),
			kept: fc.constantFrom("path", "path", "path", "any", "unknown", "self"),
		}),
	},
	{
		weight: 3,
		arbitrary: fc.record({
			op: fc.constant("contextEdit"),
			pick: arbPick,
			replacement: fc.oneof(
				fc.constant(null),
				fc.record({ content: fc.oneof(fc.constant("[elided]"), arbText, arbBlocks) }),
			),
		}),
	},
	{
		weight: 1,
		arbitrary: fc.record({
			op: fc.constant("usage"),
			kind: fc.constantFrom("cache_warm", "summary", "classifier"),
			provider: arbName,
			model: arbName,
			usage: arbUsage,
			note: fc.option(arbText, { nil: undefined }),
		}),
	},
] as fc.WeightedArbitrary<SessionOp>[];

/** One step of a 1.6 session (every 0.73.1 step, 1.x messages, compactions, context edits, usage). */
export const arbOp16: fc.Arbitrary<SessionOp> = fc.oneof(...ops16);

/**
 * A 1.6 session: usually the head pi writes (model and thinking level, then the leading system
 * message with the prompt sections and tools), then up to 80 steps.
 */
export const arbOps16: fc.Arbitrary<SessionOp[]> = fc
	.tuple(
		fc.oneof(
			{ weight: 2, arbitrary: fc.constant("none" as const) },
			{ weight: 3, arbitrary: fc.constant("system" as const) },
			{ weight: 3, arbitrary: fc.constant("model, thinking, system" as const) },
		),
		arbLeadingSystemMessage,
		arbName,
		fc.array(arbOp16, { minLength: 1, maxLength: 80, size: "large" }),
	)
	.map(([head, system, modelId, rest]): SessionOp[] => {
		const prefix: SessionOp[] = [];
		if (head === "model, thinking, system") {
			prefix.push({ op: "model", provider: "faux", modelId }, { op: "thinking", level: "medium" });
		}
		if (head !== "none") prefix.push({ op: "message", message: system });
		return [...prefix, ...rest];
	});
