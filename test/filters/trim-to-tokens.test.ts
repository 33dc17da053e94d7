/**
 * `trimToTokens` against the real LangChain `trimMessages` (npm `@langchain/core`) with
 * `strategy: "last"`, `includeSystem: true`, `allowPartial: false`, `startOn: "human"`, on generated
 * histories whose only system message (if any) leads; where LangChain returns `[undefined]` (nothing
 * but the system message fits, or the system message alone is over budget), pi's rule is checked
 * instead: the system messages alone, and one problem. Both call shapes are compared: the plugin and
 * `trimMessageList`. Properties cover system messages anywhere.
 */

import type { Message } from "@earendil-works/pi-ai";
import { trimMessages } from "@langchain/core/messages";
import { estimateTokens as piEstimateTokens } from "@mariozechner/pi-coding-agent";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { estimateTokens } from "../../src/filters/estimate-tokens.js";
import { trimMessageList } from "../../src/filters/trim-message-list.js";
import { TRIM_TO_TOKENS_PLUGIN, type TrimToTokensOptions, trimToTokens } from "../../src/filters/trim-to-tokens.js";
import { type ConvertToLlmError, InvalidPluginError } from "../../src/index.js";
import { createDefaultRegistry } from "../../src/preset.js";
import { deepFreeze } from "../support/arbitraries.js";
import { arbHistory } from "../support/filter-histories.js";
import { assistant, user } from "../support/fixtures.js";
import { langChainCounter, toLangChain } from "../support/langchain-messages.js";

const RUNS = 2500;

type Counter = (message: Message) => number;

const COUNTERS: Record<string, Counter> = {
	"pi's estimate": estimateTokens,
	"one per message": () => 1,
	"JSON length / 7": (message) => Math.floor(JSON.stringify(message).length / 7),
};

type Trim = (
	history: readonly Message[],
	options: TrimToTokensOptions,
) => { output: Message[]; errors: ConvertToLlmError[] };

function trim(history: readonly Message[], options: TrimToTokensOptions): ReturnType<Trim> {
	const registry = createDefaultRegistry().use(trimToTokens(options));
	const { output, problems } = registry.run(history as never);
	return { output, errors: [...problems] };
}

/** The two call shapes: the plugin in a registry, and the list function (its problems collected). */
const SHAPES: Record<string, Trim> = {
	"the trimToTokens plugin": trim,
	trimMessageList: (history, options) => {
		const errors: ConvertToLlmError[] = [];
		const output = trimMessageList(history, { ...options, onProblem: (error) => errors.push(error) });
		return { output, errors };
	},
};

const arbCase = fc
	.tuple(
		fc.oneof(arbHistory({ system: "leading" }), arbHistory({ system: "none" })),
		fc.constantFrom(...Object.keys(COUNTERS)),
		fc.double({ min: 0, max: 1.1, noNaN: true }),
	)
	.map(([history, counterName, share]) => {
		const counter = COUNTERS[counterName] as Counter;
		const total = history.reduce((sum, m) => sum + counter(m), 0);
		return { history, counterName, maxTokens: Math.floor(total * share) };
	});

describe("trimToTokens", () => {
	it.each(Object.keys(SHAPES))(
		`should keep the same messages as LangChain's trimMessages on ${RUNS} generated histories: %s`,
		async (shape) => {
			const trim = SHAPES[shape] as Trim;
			let compared = 0;
			let overBudget = 0;
			await fc.assert(
				fc.asyncProperty(arbCase, async ({ history, counterName, maxTokens }) => {
					const counter = COUNTERS[counterName] as Counter;
					const lc = await trimMessages(toLangChain(history), {
						maxTokens,
						strategy: "last",
						includeSystem: true,
						allowPartial: false,
						startOn: "human",
						tokenCounter: langChainCounter(history, counter),
					});
					const { output, errors } = trim(history, { maxTokens, tokenCounter: counter });
					const kept = output.map((message) => history.indexOf(message));
					if (lc.length === 1 && lc[0] === undefined) {
						overBudget++;
						expect(kept).toEqual(history.flatMap((m, i) => ((m.role as string) === "system" ? [i] : [])));
						expect(errors.filter((e) => e.plugin === TRIM_TO_TOKENS_PLUGIN)).toHaveLength(1);
					} else {
						expect(kept).toEqual(lc.map((m) => Number(m.id)));
					}
					compared++;
				}),
				{ numRuns: RUNS },
			);
			expect(compared).toBe(RUNS);
			expect(overBudget).toBeGreaterThan(0);
		},
	);

	it("should keep every system message, stay within budget, keep pairs intact and leave its input unchanged", () => {
		fc.assert(
			fc.property(
				arbHistory({ system: "anywhere" }),
				fc.constantFrom(...Object.keys(COUNTERS)),
				fc.nat({ max: 400 }),
				(history, name, maxTokens) => {
					const counter = COUNTERS[name] as Counter;
					const frozen = deepFreeze(structuredClone(history));
					const { output, errors } = trim(frozen, { maxTokens, tokenCounter: counter });
					expect(frozen).toEqual(history);
					const systems = frozen.filter((m) => (m.role as string) === "system");
					expect(output.filter((m) => (m.role as string) === "system")).toEqual(systems);
					const others = output.filter((m) => (m.role as string) !== "system");
					const systemTokens = systems.reduce((s, m) => s + counter(m), 0);
					if (others.length > 0) {
						expect(systemTokens + others.reduce((s, m) => s + counter(m), 0)).toBeLessThanOrEqual(maxTokens);
						expect(others[0]?.role).toBe("user");
						// A contiguous run: the kept non-system messages are the last ones of the history.
						const all = frozen.filter((m) => (m.role as string) !== "system");
						expect(all.slice(all.length - others.length)).toEqual(others);
					} else if (frozen.length > 0) {
						expect(errors.filter((e) => e.plugin === TRIM_TO_TOKENS_PLUGIN)).toHaveLength(1);
					}
					const calls = new Set(
						others.flatMap((m) =>
							m.role === "assistant" ? m.content.flatMap((b) => (b.type === "toolCall" ? [b.id] : [])) : [],
						),
					);
					for (const m of others)
						if (m.role === "toolResult" && !m.toolCallId.startsWith("orphan"))
							expect(calls).toContain(m.toolCallId);
				},
			),
			{ numRuns: 1000 },
		);
	});

	it("should count as pi's compaction estimateTokens does", () => {
		fc.assert(
			fc.property(arbHistory({ system: "none" }), (history) => {
				for (const message of history) expect(estimateTokens(message)).toBe(piEstimateTokens(message as never));
			}),
			{ numRuns: 300 },
		);
	});

	it("should start on a user message whatever the budget", () => {
		const history = [
			assistant([{ type: "text", text: "hello" }]),
			user("hi"),
			assistant([{ type: "text", text: "yes" }]),
		];
		expect(trim(history, { maxTokens: 1_000 }).output).toEqual(history.slice(1));
		expect(trim(history, { maxTokens: 1_000, startOn: ["user", "assistant"] }).output).toEqual(history);
	});

	it("should keep the system messages alone and report the need when they exceed the budget", () => {
		const system = { role: "system", content: "x".repeat(400), timestamp: 0 } as unknown as Message;
		const { output, errors } = trim([system, user("hi")], { maxTokens: 10 });
		expect(output).toEqual([system]);
		expect(errors).toHaveLength(1);
		expect(errors[0]?.message).toContain("budget of 10 tokens");
		expect(errors[0]?.message).toContain("need 100 tokens");
	});

	it("should count a message whose counter throws as never fitting, and report it once", () => {
		const history = [user("a"), user("b"), user("c")];
		const { output, errors } = trim(history, {
			maxTokens: 100,
			tokenCounter: (m) => {
				if (m === history[0]) throw new Error("boom");
				return 1;
			},
		});
		expect(output).toEqual(history.slice(1));
		expect(errors.map((e) => e.message).join()).toContain("boom");
	});

	it.each([
		[{ maxTokens: -1 }],
		[{ maxTokens: Number.NaN }],
		[{ maxTokens: 5, startOn: "toolResult" }],
		[{ maxTokens: 5, tokenCounter: 3 }],
	])("should throw InvalidPluginError for %j", (options) => {
		expect(() => trimToTokens(options as unknown as TrimToTokensOptions)).toThrow(InvalidPluginError);
	});
});
