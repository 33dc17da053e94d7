/**
 * `pruneMessages` against the real Vercel AI SDK `pruneMessages` (npm `ai`): each generated pi
 * history is mapped to AI SDK model messages (a `thinking` block is a reasoning part, a `toolCall` a
 * tool-call part, a `toolResult` one tool message with one tool result), pruned by both, and the
 * kept messages and blocks compared. pi's documented differences are applied to the AI SDK's answer
 * before comparing: a tool message left empty goes (pi sends no orphan results), and `user` and
 * `system` messages stay even when empty. Both call shapes are compared: the plugin and
 * `pruneMessageList({ messages, … })`, the AI SDK's own.
 */
import type { Message } from "@earendil-works/pi-ai";
import { pruneMessages as aiPruneMessages, type ModelMessage } from "ai";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { pruneMessageList } from "../../src/filters/prune-message-list.js";
import { PRUNE_MESSAGES_PLUGIN, type PruneMessagesOptions, pruneMessages } from "../../src/filters/prune-messages.js";
import { InvalidPluginError } from "../../src/index.js";
import { createDefaultRegistry } from "../../src/preset.js";
import { arbHistory, TOOL_NAMES } from "../support/filter-histories.js";
import { assistant, collectErrors, user } from "../support/fixtures.js";

const RUNS = 2500;

type Tagged = ModelMessage & { index: number };

/** The key of a pi block: its text, thinking or id (unique in generated histories). */
function blockKey(block: unknown): string {
	const b = block as { type: string; text?: string; thinking?: string; id?: string };
	return b.type === "text" ? (b.text as string) : b.type === "thinking" ? (b.thinking as string) : (b.id as string);
}

function toModelMessages(messages: readonly Message[]): Tagged[] {
	return messages.map((message, index): Tagged => {
		if (message.role === "system")
			return { role: "system", content: String((message as { content: unknown }).content), index };
		if (message.role === "user") {
			const content =
				typeof message.content === "string"
					? message.content
					: message.content.map((block) => ({
							type: "text" as const,
							text: blockKey(block),
							key: blockKey(block),
						}));
			return { role: "user", content, index } as Tagged;
		}
		if (message.role === "toolResult")
			return {
				role: "tool",
				content: [
					{
						type: "tool-result",
						toolCallId: message.toolCallId,
						toolName: message.toolName,
						output: { type: "text", value: "x" },
						key: message.toolCallId,
					},
				],
				index,
			} as unknown as Tagged;
		const content = message.content.map((block) => {
			const key = blockKey(block);
			if (block.type === "text") return { type: "text", text: key, key };
			if (block.type === "thinking") return { type: "reasoning", text: key, key };
			return { type: "tool-call", toolCallId: block.id, toolName: block.name, input: block.arguments, key };
		});
		return { role: "assistant", content, index } as Tagged;
	});
}

/** What a pruned history keeps: each message's input index and the keys of its blocks. */
type Kept = [number, string[] | string][];

function keptOfModel(messages: readonly ModelMessage[]): Kept {
	return messages.map((message) => {
		const { index, content } = message as Tagged;
		return [
			index,
			typeof content === "string" ? content : (content as unknown as { key: string }[]).map((part) => part.key),
		];
	});
}

function keptOfPi(output: readonly Message[], input: readonly Message[]): Kept {
	return output.map((message) => {
		const index = input.findIndex((m) => m.timestamp === message.timestamp && m.role === message.role);
		const { content } = message as { content: unknown };
		if (message.role === "toolResult") return [index, [message.toolCallId]];
		return [index, typeof content === "string" ? content : (content as unknown[]).map(blockKey)];
	});
}

/** The AI SDK's answer with pi's rules applied: an empty tool message goes, an empty user/system one stays. */
function expected(input: readonly Message[], options: PruneMessagesOptions): Kept {
	const model = toModelMessages(input);
	const pruned = aiPruneMessages({ messages: model, ...(options as object) }) as Tagged[];
	const byIndex = new Map(pruned.map((message) => [message.index, message]));
	const result: ModelMessage[] = [];
	for (const message of model) {
		const kept = byIndex.get(message.index);
		if ((message.role === "user" || message.role === "system") && kept === undefined) result.push(message);
		else if (kept !== undefined && !(kept.role === "tool" && kept.content.length === 0)) result.push(kept);
	}
	return keptOfModel(result);
}

const arbScope = fc.oneof(
	fc.constantFrom("all" as const, "before-last-message" as const),
	fc.nat({ max: 7 }).map((n) => `before-last-${n}-messages` as const),
);

const arbOptions: fc.Arbitrary<PruneMessagesOptions> = fc.record(
	{
		reasoning: fc.constantFrom("all" as const, "before-last-message" as const, "none" as const),
		toolCalls: fc.oneof(
			fc.constant("none" as const),
			arbScope,
			fc.array(
				fc.record({ type: arbScope, tools: fc.subarray([...TOOL_NAMES, "unknown"]) }, { requiredKeys: ["type"] }),
				{ maxLength: 3 },
			),
		),
		emptyMessages: fc.constantFrom("keep" as const, "remove" as const),
	},
	{ requiredKeys: [] },
);

function prune(history: readonly Message[], options: PruneMessagesOptions): Message[] {
	return createDefaultRegistry({ strict: true })
		.use(pruneMessages(options))
		.convert(history as never);
}

/** The two call shapes: the plugin in a strict registry, and the list function in the AI SDK's shape. */
const SHAPES: Record<string, typeof prune> = {
	"the pruneMessages plugin": prune,
	pruneMessageList: (history, options) => pruneMessageList({ messages: history, ...options }),
};

describe("pruneMessages", () => {
	it.each(Object.keys(SHAPES))(
		`should keep the same messages and blocks as the AI SDK's pruneMessages on ${RUNS} generated histories: %s`,
		(shape) => {
			const prune = SHAPES[shape] as (typeof SHAPES)[string];
			let compared = 0;
			fc.assert(
				fc.property(arbHistory({ system: "anywhere" }), arbOptions, (history, options) => {
					expect(keptOfPi(prune(history, options), history)).toEqual(expected(history, options));
					compared++;
				}),
				{ numRuns: RUNS },
			);
			expect(compared).toBe(RUNS);
		},
	);

	it("should never leave a tool result without its call, nor a call without its result", () => {
		fc.assert(
			fc.property(arbHistory({ system: "anywhere" }), arbOptions, (history, options) => {
				const output = prune(history, options);
				const calls = new Set<string>();
				for (const m of output)
					if (m.role === "assistant") for (const b of m.content) if (b.type === "toolCall") calls.add(b.id);
				const answered = new Set(
					history.filter((m) => m.role === "toolResult").map((m) => (m as { toolCallId: string }).toolCallId),
				);
				for (const m of output)
					if (m.role === "toolResult" && !m.toolCallId.startsWith("orphan")) expect(calls).toContain(m.toolCallId);
				const results = new Set(
					output.filter((m) => m.role === "toolResult").map((m) => (m as { toolCallId: string }).toolCallId),
				);
				for (const id of calls) if (answered.has(id)) expect(results).toContain(id);
			}),
			{ numRuns: 500 },
		);
	});

	it("should pass the history through untouched with the default options", () => {
		const history = [
			user("hi"),
			assistant([
				{ type: "thinking", thinking: "hm", thinkingSignature: "s" },
				{ type: "text", text: "ok" },
			]),
		];
		const output = prune(history, {});
		expect(output).toEqual(history);
		expect(output[1]).toBe(history[1]);
	});

	it("should remove a thinking block with its signature", () => {
		const history = [
			user("hi"),
			assistant([
				{ type: "thinking", thinking: "hm", thinkingSignature: "sig" },
				{ type: "text", text: "ok" },
			]),
			user("next"),
		];
		const [, answer] = prune(history, { reasoning: "before-last-message" });
		expect(answer?.role === "assistant" && answer.content).toEqual([{ type: "text", text: "ok" }]);
	});

	it("should remove a pruned tool result even with emptyMessages keep", () => {
		const history: Message[] = [
			user("read it"),
			assistant([{ type: "toolCall", id: "c1", name: "read", arguments: {} }]),
			{
				role: "toolResult",
				toolCallId: "c1",
				toolName: "read",
				content: [{ type: "text", text: "data" }],
				isError: false,
				timestamp: 1,
			},
			user("thanks"),
		];
		const output = prune(history, { toolCalls: "before-last-message", emptyMessages: "keep" });
		expect(output.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
		expect(output[1]?.content).toEqual([]);
	});

	it("should keep empty user and system messages under emptyMessages remove", () => {
		const history = [user(""), { role: "system", content: "", timestamp: 0 } as unknown as Message, user([])];
		expect(prune(history, { emptyMessages: "remove" })).toEqual(history);
	});

	it("should remove an assistant message that was already empty under emptyMessages remove", () => {
		expect(prune([user("a"), assistant([]), user("b")], {}).map((m) => m.role)).toEqual(["user", "user"]);
		expect(prune([user("a"), assistant([]), user("b")], { emptyMessages: "keep" })).toHaveLength(3);
	});

	it.each([
		[{ reasoning: "some" }],
		[{ emptyMessages: "drop" }],
		[{ toolCalls: "before-last-x-messages" }],
		[{ toolCalls: [{ type: "all", tools: "read" }] }],
	])("should throw InvalidPluginError for the options %j", (options) => {
		expect(() => pruneMessages(options as PruneMessagesOptions)).toThrow(InvalidPluginError);
	});

	it("should drop and report a message it cannot read", () => {
		const registry = createDefaultRegistry().use(pruneMessages({ toolCalls: "all" }));
		const errors = collectErrors(registry);
		const hostile = assistant([]);
		Object.defineProperty(hostile, "content", {
			get: () => {
				throw new Error("trap");
			},
			enumerable: true,
		});
		registry.hooks.beforeConvert.tap("plant", (messages) => messages);
		const output = registry.convert([user("a"), hostile]);
		expect(output.every((m) => m.role !== "assistant")).toBe(true);
		expect(errors.some((e) => e.plugin === PRUNE_MESSAGES_PLUGIN || e.code !== undefined)).toBe(true);
	});
});
