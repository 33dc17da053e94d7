/**
 * `trimMessageList(messages, options)`: LangChain's call shape over a pi-ai `Message[]`. Checked
 * against the real `@langchain/core` `trimMessages` with the options it shares beyond the plugin's
 * differential (`strategy: "first"`, `endOn`, `startOn` lists): the same messages kept wherever
 * LangChain cuts no tool call from its result; where it does (it ends on a call whose result it cut,
 * starts on a result whose call it cut, or, with `"last"`, drops the trailing messages up to an
 * `endOn` one between a call and its result), pi's rule instead. Then the
 * function's own contract: the plugin's output, problems thrown or handed over, the refusals.
 */

import type { Message } from "@earendil-works/pi-ai";
import { trimMessages } from "@langchain/core/messages";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { estimateTokens } from "../../src/filters/estimate-tokens.js";
import { type TrimMessageListOptions, trimMessageList } from "../../src/filters/trim-message-list.js";
import {
	TRIM_TO_TOKENS_PLUGIN,
	type TrimEndRole,
	type TrimToTokensOptions,
	trimToTokens,
} from "../../src/filters/trim-to-tokens.js";
import { type ConvertToLlmError, InvalidMessageError, InvalidPluginError } from "../../src/index.js";
import { createDefaultRegistry } from "../../src/preset.js";
import { deepFreeze } from "../support/arbitraries.js";
import { arbHistory } from "../support/filter-histories.js";
import { assistant, user } from "../support/fixtures.js";
import { keptIndices, LANGCHAIN_TYPE, langChainCounter, toLangChain } from "../support/langchain-messages.js";

const RUNS = 2000;
const isSystem = (message: Message) => (message.role as string) === "system";

type Counter = (message: Message) => number;
const COUNTERS: Record<string, Counter> = { "pi's estimate": estimateTokens, "one per message": () => 1 };

/** Whether the kept indices hold every call with its result and every result with its call (of those the history pairs). */
function keepsPairs(history: readonly Message[], kept: ReadonlySet<number>): boolean {
	const callAt = new Map<string, number>();
	for (let i = 0; i < history.length; i++) {
		const message = history[i] as Message;
		if (message.role === "assistant") {
			for (const block of message.content) if (block.type === "toolCall") callAt.set(block.id, i);
		} else if (message.role === "toolResult") {
			const call = callAt.get(message.toolCallId);
			if (call !== undefined && kept.has(call) !== kept.has(i)) return false;
		}
	}
	return true;
}

const arbCase = fc
	.record({
		history: fc.oneof(arbHistory({ system: "leading" }, 20), arbHistory({ system: "none" }, 20)),
		counter: fc.constantFrom(...Object.keys(COUNTERS)),
		permille: fc.integer({ min: 0, max: 1100 }),
		strategy: fc.constantFrom("first" as const, "last" as const),
		startOn: fc.subarray(["user", "assistant"] as const, { minLength: 1 }),
		endOn: fc.option(fc.subarray(["user", "assistant", "toolResult"] as const, { minLength: 1 }), {
			nil: undefined,
			freq: 2,
		}),
	})
	.map(({ history, counter, permille, strategy, startOn, endOn }) => {
		const count = COUNTERS[counter] as Counter;
		const maxTokens = Math.floor((history.reduce((sum, m) => sum + count(m), 0) * permille) / 1000);
		return { history, count, maxTokens, strategy, startOn, endOn };
	});

describe("trimMessageList", () => {
	it(`should keep what LangChain's trimMessages keeps with strategy, startOn and endOn on ${RUNS} histories, or pi's pairs`, async () => {
		const tally = { same: 0, pairs: 0, systemOnly: 0 };
		await fc.assert(
			fc.asyncProperty(arbCase, async ({ history, count, maxTokens, strategy, startOn, endOn }) => {
				const lcTypes = (roles: readonly TrimEndRole[] | undefined) => roles?.map((role) => LANGCHAIN_TYPE[role]);
				const lc = keptIndices(
					await trimMessages(toLangChain(history), {
						maxTokens,
						strategy,
						tokenCounter: langChainCounter(history, count),
						...(strategy === "last" ? { includeSystem: true, startOn: lcTypes(startOn) } : {}),
						...(endOn === undefined ? {} : { endOn: lcTypes(endOn) }),
					}),
				);
				const problems: ConvertToLlmError[] = [];
				const options: TrimMessageListOptions = {
					maxTokens,
					strategy,
					tokenCounter: count,
					onProblem: (problem) => problems.push(problem),
					...(strategy === "last" ? { startOn } : {}),
					...(endOn === undefined ? {} : { endOn }),
				};
				const kept = trimMessageList(history, options).map((message) => history.indexOf(message));
				const systems = history.flatMap((m, i) => (isSystem(m) ? [i] : []));
				const lcKept = lc.filter((i): i is number => i !== undefined);
				if (!lc.includes(undefined) && kept.length === lc.length && kept.every((i, at) => i === lc[at])) {
					tally.same++;
					return;
				}
				// With "last", LangChain first drops the messages after the last endOn one: that cut counts too.
				let lcEnd = history.length;
				if (strategy === "last" && endOn !== undefined)
					while (lcEnd > 0 && !(endOn as readonly string[]).includes((history[lcEnd - 1] as Message).role))
						lcEnd--;
				const beforeEnd = new Set(history.flatMap((_, i) => (i < lcEnd ? [i] : [])));
				const lcSplits = !keepsPairs(history, beforeEnd) || !keepsPairs(history, new Set(lcKept));
				if (
					!lcSplits &&
					(lc.includes(undefined) || systems.some((i) => !lcKept.includes(i)) || lcKept.length === systems.length)
				) {
					// LangChain kept nothing but the system message, or dropped it: pi keeps the system messages alone.
					tally.systemOnly++;
					expect(kept).toEqual(systems);
					expect(problems.filter((p) => p.plugin === TRIM_TO_TOKENS_PLUGIN)).toHaveLength(1);
					return;
				}
				// Anywhere else, they differ only where LangChain split a call from its result: pi cut elsewhere,
				// within budget, every pair whole.
				expect(lcSplits).toBe(true);
				tally.pairs++;
				expect(keepsPairs(history, new Set(kept))).toBe(true);
				const others = kept.filter((i) => !systems.includes(i));
				if (others.length > 0)
					expect(kept.reduce((sum, i) => sum + count(history[i] as Message), 0)).toBeLessThanOrEqual(maxTokens);
			}),
			{ numRuns: RUNS },
		);
		expect(tally.same).toBeGreaterThan(RUNS / 2);
		expect(tally.pairs).toBeGreaterThan(0);
		expect(tally.systemOnly).toBeGreaterThan(0);
	});

	it("should keep what the trimToTokens plugin keeps, step included, and leave its input unchanged", () => {
		fc.assert(
			fc.property(
				arbHistory({ system: "anywhere" }),
				fc.nat({ max: 400 }),
				fc.option(fc.double({ min: 0.05, max: 1, noNaN: true }), { nil: undefined }),
				(history, maxTokens, share) => {
					const options: TrimToTokensOptions =
						share === undefined || maxTokens === 0
							? { maxTokens }
							: { maxTokens, step: Math.max(1, Math.floor(maxTokens * share)) };
					const frozen = deepFreeze(structuredClone(history));
					const { output, problems } = createDefaultRegistry().use(trimToTokens(options)).run(frozen);
					const handed: ConvertToLlmError[] = [];
					const listed = trimMessageList(frozen, { ...options, onProblem: (problem) => handed.push(problem) });
					expect(listed).toEqual(output);
					expect(listed).not.toBe(frozen);
					expect(handed.map((p) => p.message)).toEqual(problems.map((p) => p.message));
				},
			),
			{ numRuns: 500 },
		);
	});

	it("should throw the problem when no onProblem is given", () => {
		const system = { role: "system", content: "x".repeat(400), timestamp: 0 } as unknown as Message;
		expect(() => trimMessageList([system, user("hi")], { maxTokens: 10 })).toThrow("budget of 10 tokens");
		expect(() =>
			trimMessageList([user("hi")], {
				maxTokens: 10,
				tokenCounter: () => {
					throw new Error("no tokenizer");
				},
			}),
		).toThrow("no tokenizer");
	});

	it("should keep the first messages with strategy first, ending where no call loses its result", () => {
		const history: Message[] = [
			user("read a and b"),
			assistant([
				{ type: "toolCall", id: "a", name: "read", arguments: {} },
				{ type: "toolCall", id: "b", name: "read", arguments: {} },
			]),
			{ role: "toolResult", toolCallId: "a", toolName: "read", content: [], isError: false, timestamp: 0 },
			{ role: "toolResult", toolCallId: "b", toolName: "read", content: [], isError: false, timestamp: 0 },
			user("thanks"),
		];
		const one = () => 1;
		expect(trimMessageList(history, { maxTokens: 3, strategy: "first", tokenCounter: one })).toEqual([history[0]]);
		expect(trimMessageList(history, { maxTokens: 4, strategy: "first", tokenCounter: one })).toEqual(
			history.slice(0, 4),
		);
		expect(trimMessageList(history, { maxTokens: 9, strategy: "first", endOn: "user", tokenCounter: one })).toEqual(
			history,
		);
	});

	it.each([
		[{ maxTokens: 10, includeSystem: false }, "every system message is kept"],
		[{ maxTokens: 10, allowPartial: true }, "kept whole or not at all"],
		[{ maxTokens: 10, startOn: "human" }, `LangChain's "human" is pi's "user"`],
		[{ maxTokens: 10, endOn: "tool" }, `LangChain's "tool" is pi's "toolResult"`],
		[{ maxTokens: 10, strategy: "first", startOn: "user" }, 'startOn applies to strategy "last" only'],
		[{ maxTokens: 10, strategy: "middle" }, 'use "last" or "first"'],
		[{ maxTokens: 10, onProblem: "log" }, "onProblem is"],
	])("should refuse %j and say why", (options, why) => {
		expect(() => trimMessageList([user("hi")], options as unknown as TrimMessageListOptions)).toThrow(
			InvalidPluginError,
		);
		expect(() => trimMessageList([user("hi")], options as unknown as TrimMessageListOptions)).toThrow(why);
	});

	it("should accept LangChain's includeSystem true and allowPartial false, which are what it does", () => {
		const history = [user("hi")];
		expect(trimMessageList(history, { maxTokens: 10, includeSystem: true, allowPartial: false })).toEqual(history);
	});

	it.each([[undefined], [null], ["hi"], [{ role: "user" }]])(
		"should throw InvalidMessageError for messages %j",
		(messages) => {
			expect(() => trimMessageList(messages as unknown as Message[], { maxTokens: 10 })).toThrow(
				InvalidMessageError,
			);
		},
	);
});

describe("trimToTokens", () => {
	it.each([
		["a messages key", { messages: [user("hi")], maxTokens: 10 }],
		["a list of messages", [user("hi")]],
	])("should throw InvalidPluginError naming trimMessageList when given %s", (_what, options) => {
		expect(() => trimToTokens(options as unknown as TrimToTokensOptions)).toThrow(InvalidPluginError);
		expect(() => trimToTokens(options as unknown as TrimToTokensOptions)).toThrow("trimMessageList(messages");
	});
});
