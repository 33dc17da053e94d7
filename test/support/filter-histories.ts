/**
 * Generated converted histories (pi-ai `Message[]`, `system` messages included) for the filter
 * differentials: assistant turns with text, thinking and tool calls, each call followed (or not) by
 * its result, named consistently, as pi's agent loop writes them; orphan results now and then.
 * Every block carries a unique `key` in its text (or id) so that a test can tell blocks apart.
 */
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { AssistantMessage, Message, TextContent, ThinkingContent, ToolCall } from "@earendil-works/pi-ai";
import fc from "fast-check";
import {
	arbAssistantMessage,
	arbBashExecution,
	arbBranchSummary,
	arbCompactionSummary,
	arbCustomMessage,
	arbSystemMessage,
	arbUserMessage,
} from "./arbitraries.js";
import { usage } from "./fixtures.js";

export const TOOL_NAMES = ["read", "bash", "edit"] as const;

type Step =
	| { kind: "user"; text: string; blocks: boolean }
	| { kind: "system"; text: string }
	| {
			kind: "assistant";
			blocks: { type: "text" | "thinking" | "toolCall"; size: number; tool: number }[];
			answered: boolean[];
	  }
	| { kind: "orphan"; tool: number };

const arbSize = fc.nat({ max: 60 });

const arbStep: fc.Arbitrary<Step> = fc.oneof(
	{
		weight: 3,
		arbitrary: fc.record({
			kind: fc.constant("user" as const),
			text: fc.string({ maxLength: 40 }),
			blocks: fc.boolean(),
		}),
	},
	{
		weight: 1,
		arbitrary: fc.record({ kind: fc.constant("system" as const), text: fc.string({ minLength: 1, maxLength: 40 }) }),
	},
	{
		weight: 4,
		arbitrary: fc
			.array(
				fc.record({
					type: fc.constantFrom("text" as const, "thinking" as const, "toolCall" as const),
					size: arbSize,
					tool: fc.nat({ max: TOOL_NAMES.length - 1 }),
				}),
				{ maxLength: 5 },
			)
			.chain((blocks) =>
				fc.record({
					kind: fc.constant("assistant" as const),
					blocks: fc.constant(blocks),
					answered: fc.array(
						fc.oneof({ weight: 4, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
						{
							minLength: blocks.length,
							maxLength: blocks.length,
						},
					),
				}),
			),
	},
	{
		weight: 1,
		arbitrary: fc.record({ kind: fc.constant("orphan" as const), tool: fc.nat({ max: TOOL_NAMES.length - 1 }) }),
	},
);

export interface HistoryShape {
	/** Whether system messages may appear (anywhere), and whether the first one leads. */
	system: "none" | "leading" | "anywhere";
}

/** Builds the messages of a list of steps; keys are `m<index>b<block>` (text) or `call<n>` (ids). */
export function historyOf(steps: readonly Step[], shape: HistoryShape): Message[] {
	const messages: Message[] = [];
	let calls = 0;
	const add = (message: Message) => messages.push(message);
	for (const step of steps) {
		const at = messages.length;
		if (step.kind === "user") {
			add({
				role: "user",
				content: step.blocks
					? [{ type: "text", text: `u${at} ${step.text}` }]
					: step.text === ""
						? ""
						: `u${at} ${step.text}`,
				timestamp: at,
			});
		} else if (step.kind === "system") {
			if (shape.system === "anywhere")
				add({ role: "system", content: `s${at} ${step.text}`, timestamp: at } as unknown as Message);
		} else if (step.kind === "orphan") {
			const name = TOOL_NAMES[step.tool] as string;
			add(toolResult(`orphan${calls++}`, name, at));
		} else {
			const results: Message[] = [];
			const content = step.blocks.map((block, b): TextContent | ThinkingContent | ToolCall => {
				const key = `m${at}b${b}`;
				if (block.type === "text") return { type: "text", text: `${key} ${"t".repeat(block.size)}` };
				if (block.type === "thinking")
					return {
						type: "thinking",
						thinking: `${key} ${"r".repeat(block.size)}`,
						thinkingSignature: `sig-${key}`,
					};
				const id = `call${calls++}`;
				const name = TOOL_NAMES[block.tool] as string;
				if (step.answered[b]) results.push(toolResult(id, name, 0));
				return { type: "toolCall", id, name, arguments: { path: `${key}${"a".repeat(block.size)}` } };
			});
			add(assistantMessage(content, at));
			for (const result of results) add({ ...result, timestamp: messages.length } as Message);
		}
	}
	if (shape.system === "leading")
		messages.unshift({ role: "system", content: "You are pi.", timestamp: -1 } as unknown as Message);
	return messages;
}

function toolResult(id: string, name: string, at: number): Message {
	return {
		role: "toolResult",
		toolCallId: id,
		toolName: name,
		content: [{ type: "text", text: `result of ${id} ${"o".repeat(id.length * 3)}` }],
		isError: false,
		timestamp: at,
	};
}

function assistantMessage(content: AssistantMessage["content"], at: number): AssistantMessage {
	return {
		role: "assistant",
		content,
		api: "faux",
		provider: "faux",
		model: "faux-1",
		usage,
		stopReason: "stop",
		timestamp: at,
	};
}

/** A generated history of up to `maxSteps` steps. */
export const arbHistory = (shape: HistoryShape, maxSteps = 12): fc.Arbitrary<Message[]> =>
	fc.array(arbStep, { maxLength: maxSteps }).map((steps) => historyOf(steps, shape));

type Interleaved =
	| { kind: "other"; message: AgentMessage }
	| { kind: "call"; calls: number; size: number; tool: number }
	| { kind: "result"; pick: number; size: number };

const arbInterleaved: fc.Arbitrary<Interleaved> = fc.oneof(
	{
		weight: 4,
		arbitrary: fc
			.oneof(
				arbUserMessage,
				arbBashExecution,
				arbCustomMessage,
				arbBranchSummary,
				arbCompactionSummary,
				arbSystemMessage as fc.Arbitrary<unknown> as fc.Arbitrary<AgentMessage>,
				arbAssistantMessage,
			)
			.map((message) => ({ kind: "other" as const, message })),
	},
	{
		weight: 3,
		arbitrary: fc.record({
			kind: fc.constant("call" as const),
			calls: fc.integer({ min: 1, max: 3 }),
			size: arbSize,
			tool: fc.nat({ max: TOOL_NAMES.length - 1 }),
		}),
	},
	{
		weight: 3,
		arbitrary: fc.record({ kind: fc.constant("result" as const), pick: fc.nat(), size: fc.nat({ max: 200 }) }),
	},
);

/**
 * A pi 1.x history (`AgentMessage[]` with `system` messages) in which every role sits between a tool
 * call and its result: assistant messages make calls (ids `pair<n>`, never reused), their results come
 * later in any order, with user, bash, custom, summary, system and other assistant messages (whose
 * own random calls and results never share a `pair` id) in between; calls left unanswered now and
 * then. No result ever comes without its call, so every `pair` result in a conversion must have its
 * call before it.
 */
export const arbInterleavedHistory = (maxEvents = 30): fc.Arbitrary<AgentMessage[]> =>
	fc.tuple(fc.array(arbInterleaved, { maxLength: maxEvents }), fc.boolean()).map(([events, flush]) => {
		const history: AgentMessage[] = [];
		const pending: { id: string; name: string }[] = [];
		let calls = 0;
		const answer = (at: number, size: number) => {
			const [call] = pending.splice(at % pending.length, 1) as [{ id: string; name: string }];
			history.push({
				...toolResult(call.id, call.name, history.length),
				content: [{ type: "text", text: `result of ${call.id} ${"o".repeat(size)}` }],
			} as AgentMessage);
		};
		for (const event of events) {
			if (event.kind === "other") history.push(event.message);
			else if (event.kind === "result") {
				if (pending.length > 0) answer(event.pick, event.size);
			} else {
				const content: AssistantMessage["content"] = [
					{ type: "text", text: `m${history.length} ${"t".repeat(event.size)}` },
				];
				for (let c = 0; c < event.calls; c++) {
					const call = { id: `pair${calls++}`, name: TOOL_NAMES[(event.tool + c) % TOOL_NAMES.length] as string };
					pending.push(call);
					content.push({
						type: "toolCall",
						id: call.id,
						name: call.name,
						arguments: { n: "a".repeat(event.size) },
					});
				}
				history.push(assistantMessage(content, history.length));
			}
		}
		while (flush && pending.length > 0) answer(0, 10);
		return history;
	});
