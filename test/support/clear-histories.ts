/**
 * Generated converted histories for `clearToolResults`: tool-heavy assistant turns whose results vary
 * in size, carry images now and then, are named like their call or not (`toolName` empty or another
 * tool), already read as a placeholder, answer a call id another message shares, come after an
 * interrupting user message, or answer nothing (orphans, also results that come before their call);
 * `system` messages anywhere (pi 1.x). Timestamps grow by a random gap (some longer than a cache
 * lifetime). The options generator covers the option space against a history's own totals.
 */
import type { AssistantMessage, Message } from "@earendil-works/pi-ai";
import fc from "fast-check";
import type { ClearToolResultsOptions, ClearTrigger } from "../../src/filters/clear-tool-results.js";
import { estimateTokens } from "../../src/filters/estimate-tokens.js";
import { usage } from "./fixtures.js";

export const CLEAR_TOOLS = ["read", "bash", "edit", "grep"] as const;

const IMAGE = { type: "image" as const, data: "aGVsbG8=", mimeType: "image/png" };

type Call = {
	tool: number;
	/** `shared<n>`: an id other calls and results may share; else a fresh one. */
	shared: number | undefined;
	answered: boolean;
	size: number;
	images: number;
	isError: boolean;
	name: "same" | "empty" | "other";
	preCleared: boolean;
	argSize: number;
};

type Step =
	| { kind: "user"; size: number; blocks: boolean }
	| { kind: "system"; size: number }
	| { kind: "assistant"; text: number; thinking: number; calls: Call[]; interrupt: boolean; gap: number }
	| { kind: "orphan"; tool: number; shared: number | undefined; size: number };

const arbShared = fc.option(fc.nat({ max: 3 }), { nil: undefined, freq: 8 });

const arbCall: fc.Arbitrary<Call> = fc.record({
	tool: fc.nat({ max: CLEAR_TOOLS.length - 1 }),
	shared: arbShared,
	answered: fc.oneof({ weight: 9, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
	size: fc.oneof(fc.nat({ max: 40 }), fc.nat({ max: 2_000 })),
	images: fc.oneof({ weight: 6, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 2 }) }),
	isError: fc.boolean(),
	name: fc.constantFrom("same", "same", "same", "same", "empty", "other"),
	preCleared: fc.oneof({ weight: 15, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
	argSize: fc.oneof(fc.nat({ max: 30 }), fc.nat({ max: 200 })),
});

const arbStep: fc.Arbitrary<Step> = fc.oneof(
	{
		weight: 3,
		arbitrary: fc.record({ kind: fc.constant("user" as const), size: fc.nat({ max: 200 }), blocks: fc.boolean() }),
	},
	{ weight: 1, arbitrary: fc.record({ kind: fc.constant("system" as const), size: fc.nat({ max: 100 }) }) },
	{
		weight: 7,
		arbitrary: fc.record({
			kind: fc.constant("assistant" as const),
			text: fc.nat({ max: 100 }),
			thinking: fc.nat({ max: 60 }),
			calls: fc.array(arbCall, { maxLength: 4 }),
			interrupt: fc.oneof(
				{ weight: 19, arbitrary: fc.constant(false) },
				{ weight: 1, arbitrary: fc.constant(true) },
			),
			gap: fc.oneof(
				{ weight: 5, arbitrary: fc.nat({ max: 60_000 }) },
				{ weight: 1, arbitrary: fc.nat({ max: 900_000 }) },
			),
		}),
	},
	{
		weight: 1,
		arbitrary: fc.record({
			kind: fc.constant("orphan" as const),
			tool: fc.nat({ max: CLEAR_TOOLS.length - 1 }),
			shared: arbShared,
			size: fc.nat({ max: 300 }),
		}),
	},
);

function resultText(id: string, size: number): string {
	return `out ${id} ${"o".repeat(size)}`;
}

/** Builds the messages of a list of steps; every call id is unique unless it is `shared<n>`. */
export function clearHistoryOf(steps: readonly Step[]): Message[] {
	const messages: Message[] = [];
	let fresh = 0;
	let time = 1_700_000_000_000;
	const idOf = (shared: number | undefined): string => (shared === undefined ? `call${fresh++}` : `shared${shared}`);
	for (const step of steps) {
		const at = messages.length;
		time += 1_000;
		if (step.kind === "user") {
			const text = `u${at} ${"w".repeat(step.size)}`;
			messages.push({ role: "user", content: step.blocks ? [{ type: "text", text }] : text, timestamp: time });
		} else if (step.kind === "system") {
			messages.push({
				role: "system",
				content: `s${at} ${"p".repeat(step.size)}`,
				timestamp: time,
			} as unknown as Message);
		} else if (step.kind === "orphan") {
			const id = step.shared === undefined ? `orphan${fresh++}` : `shared${step.shared}`;
			messages.push(
				result(
					id,
					CLEAR_TOOLS[step.tool] as string,
					[{ type: "text", text: resultText(id, step.size) }],
					false,
					time,
				),
			);
		} else {
			time += step.gap;
			const content: AssistantMessage["content"] = [];
			if (step.thinking > 0)
				content.push({ type: "thinking", thinking: "r".repeat(step.thinking), thinkingSignature: `sig${at}` });
			if (step.text > 0) content.push({ type: "text", text: `a${at} ${"t".repeat(step.text)}` });
			const results: Message[] = [];
			for (const call of step.calls) {
				const id = idOf(call.shared);
				const tool = CLEAR_TOOLS[call.tool] as string;
				const args: Record<string, string> =
					call.tool % 2 === 0
						? { path: `src/${id}${"p".repeat(call.argSize)}.ts` }
						: { command: `run ${"c".repeat(call.argSize)}` };
				content.push({ type: "toolCall", id, name: tool, arguments: args });
				if (!call.answered) continue;
				const toolName =
					call.name === "same"
						? tool
						: call.name === "empty"
							? ""
							: (CLEAR_TOOLS[(call.tool + 1) % CLEAR_TOOLS.length] as string);
				const blocks: Array<{ type: "text"; text: string } | typeof IMAGE> = call.preCleared
					? [
							{
								type: "text",
								text: call.size % 2 === 0 ? "[cleared]" : `[cleared: ${tool}, ${call.size} characters]`,
							},
						]
					: call.size === 0 && call.images > 0
						? []
						: [{ type: "text", text: resultText(id, call.size) }];
				for (let i = 0; i < call.images; i++) blocks.push(IMAGE);
				results.push(result(id, toolName, blocks, call.isError, time + 1));
			}
			messages.push({
				role: "assistant",
				content,
				api: "faux",
				provider: "faux",
				model: "faux-1",
				usage,
				stopReason: step.calls.length > 0 ? "toolUse" : "stop",
				timestamp: time,
			});
			if (step.interrupt && results.length > 0)
				messages.push({ role: "user", content: "wait", timestamp: time + 1 });
			for (const message of results) messages.push(message);
		}
	}
	return messages;
}

function result(id: string, toolName: string, content: unknown[], isError: boolean, timestamp: number): Message {
	return { role: "toolResult", toolCallId: id, toolName, content, isError, timestamp } as Message;
}

export const arbClearHistory = (maxSteps = 24): fc.Arbitrary<Message[]> =>
	fc.array(arbStep, { maxLength: maxSteps }).map(clearHistoryOf);

/** The counters the differential runs with: pi's estimate, one per message, and one that weighs JSON. */
export const CLEAR_COUNTERS: Record<string, (message: Message) => number> = {
	"pi's estimate": estimateTokens,
	"one per message": () => 1,
	"JSON length / 7": (message) => Math.floor(JSON.stringify(message).length / 7),
};

/** Options over the whole space but `clearAtLeast` and `when`, sized against the history's own totals. */
export function arbClearOptions(
	history: readonly Message[],
	counter: (message: Message) => number,
): fc.Arbitrary<ClearToolResultsOptions> {
	const total = history.reduce((sum, m) => sum + counter(m), 0);
	const share = (max: number) => fc.double({ min: 0, max, noNaN: true }).map((s) => Math.floor(total * s) + 1);
	const arbCondition = (contextWindow: number): fc.Arbitrary<ClearTrigger> =>
		fc
			.record(
				{
					// The history's own total now and then: the trigger holds at exactly its threshold.
					tokens: fc.oneof(share(1.2), fc.constant(Math.max(1, total))),
					messages: fc.oneof(
						fc.integer({ min: 1, max: history.length + 2 }),
						fc.constant(Math.max(1, history.length)),
					),
					// Thousandths, never so small that floor(contextWindow * fraction) is 0 (pi refuses that one).
					fraction: fc
						.integer({ min: Math.min(1000, Math.ceil(1000 / contextWindow) + 1), max: 1000 })
						.map((k) => k / 1000),
				},
				{ requiredKeys: [] },
			)
			.filter((c) => Object.keys(c).length > 0);
	return share(2).chain((window) => {
		const contextWindow = window + 100;
		return fc.record(
			{
				trigger: fc.oneof(
					arbCondition(contextWindow),
					fc.array(arbCondition(contextWindow), { minLength: 1, maxLength: 3 }),
				),
				keep: fc.oneof(
					fc.record({ messages: fc.nat({ max: 6 }) }),
					fc.record({ tokens: fc.nat({ max: Math.max(0, Math.floor(total * 0.6)) }) }),
				),
				excludeTools: fc.subarray([...CLEAR_TOOLS]),
				clearToolInputs: fc.boolean(),
				placeholder: fc.constantFrom("[cleared]", "gone (see the file)"),
				contextWindow: fc.constant(contextWindow),
			},
			{ requiredKeys: ["trigger", "contextWindow"] },
		);
	});
}
