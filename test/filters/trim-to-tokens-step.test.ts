/**
 * `trimToTokens({ maxTokens, step })`: the kept run starts on a grid of `step` tokens of the history,
 * so a growing history keeps the previous request as its prefix between grid lines. Checked: the grid
 * by hand, the fallback that never empties a request, the rules of the plain trim (budget, system
 * messages, `startOn`, a contiguous run at the end), and on generated agent runs converted at every
 * model call, at most one prefix break per `step` tokens of growth.
 */
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { Message } from "@earendil-works/pi-ai";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { measureRun } from "../../scripts/filter-cache-table.mjs";
import { estimateTokens } from "../../src/filters/estimate-tokens.js";
import { TRIM_TO_TOKENS_PLUGIN, type TrimToTokensOptions, trimToTokens } from "../../src/filters/trim-to-tokens.js";
import { InvalidPluginError } from "../../src/index.js";
import { createDefaultRegistry } from "../../src/preset.js";
import { arbHistory } from "../support/filter-histories.js";
import { assistant, user } from "../support/fixtures.js";

const trim = (history: readonly Message[], options: TrimToTokensOptions) =>
	createDefaultRegistry()
		.use(trimToTokens(options))
		.run(history as AgentMessage[]);

const isSystem = (message: Message) => (message.role as string) === "system";

describe("trimToTokens with step", () => {
	// Twelve user messages of 10 tokens, a budget of 50: the plain trim starts at n - 5; with step 20
	// the tokens to cut, 10n - 50, are rounded up to a multiple of 20.
	it.each([
		[5, 0, 0],
		[6, 1, 2],
		[7, 2, 2],
		[8, 3, 4],
		[9, 4, 4],
		[10, 5, 6],
		[12, 7, 8],
	])("should start %i messages of 10 tokens at %i plainly and at %i with step 20", (n, plain, stepped) => {
		const history = Array.from({ length: n }, (_, i) => user(`m${i}`, i));
		const options = { maxTokens: 50, tokenCounter: () => 10, startOn: ["user", "assistant"] } as const;
		expect(trim(history, options).output).toEqual(history.slice(plain));
		expect(trim(history, { ...options, step: 20 }).output).toEqual(history.slice(stepped));
	});

	it("should fall back to the plain start when the grid leaves no message to start on", () => {
		const history = [
			user("u0", 0),
			assistant([{ type: "text", text: "a1" }]),
			user("u2", 2),
			assistant([{ type: "text", text: "a3" }]),
		];
		const sizes = new Map<Message, number>([[history[3] as Message, 35]]);
		const tokenCounter = (message: Message) => sizes.get(message) ?? 10;
		// 65 tokens, 15 to cut, rounded up to 50: the grid line is past the last user message.
		const { output, problems } = trim(history, { maxTokens: 50, step: 50, tokenCounter });
		expect(output).toEqual(history.slice(2));
		expect(problems).toEqual([]);
	});

	it("should keep every system message, stay within budget and keep a run at the end that starts on startOn", () => {
		fc.assert(
			fc.property(
				arbHistory({ system: "anywhere" }),
				fc.nat({ max: 400 }),
				fc.double({ min: 0.01, max: 1, noNaN: true }),
				(history, maxTokens, share) => {
					const step = Math.max(1, Math.floor(Math.max(1, maxTokens) * share));
					const options = { maxTokens: Math.max(1, maxTokens), step };
					const { output, problems } = trim(history, options);
					const systems = history.filter(isSystem);
					expect(output.filter(isSystem)).toEqual(systems);
					const others = output.filter((m) => !isSystem(m));
					if (others.length === 0) {
						if (history.length > 0) expect(problems.some((p) => p.plugin === TRIM_TO_TOKENS_PLUGIN)).toBe(true);
						return;
					}
					const tokens = output.reduce((sum, m) => sum + estimateTokens(m), 0);
					expect(tokens).toBeLessThanOrEqual(options.maxTokens);
					expect(others[0]?.role).toBe("user");
					const all = history.filter((m) => !isSystem(m));
					expect(all.slice(all.length - others.length)).toEqual(others);
				},
			),
			{ numRuns: 1000 },
		);
	});

	it("should break the prefix once when it starts trimming, then at most once per step tokens of growth, never over budget", () => {
		// Turns of a user prompt, a tool call, its result and an answer; a request after the prompt and
		// after the result. Each turn fits the budget less a step, so the grid always has a start.
		const arbRun = fc
			.record({
				maxTokens: fc.integer({ min: 400, max: 3_000 }),
				share: fc.double({ min: 0.05, max: 0.5, noNaN: true }),
				turns: fc.array(fc.tuple(fc.nat({ max: 40 }), fc.nat({ max: 600 }), fc.nat({ max: 100 })), {
					minLength: 5,
					maxLength: 40,
				}),
			})
			.map(({ maxTokens, share, turns }) => {
				const step = Math.max(1, Math.floor(maxTokens * share));
				const room = Math.floor((maxTokens - step - 20) / 2) * 4;
				const history: Message[] = [
					{ role: "system", content: "s".repeat(40), timestamp: 0 } as unknown as Message,
				];
				const calls: number[] = [];
				turns.forEach(([prompt, result, answer], turn) => {
					const scale = (n: number) => Math.min(n * 4, Math.floor(room / 4));
					history.push(user(`t${turn} ${"p".repeat(scale(prompt))}`, turn));
					calls.push(history.length);
					history.push(assistant([{ type: "toolCall", id: `c${turn}`, name: "read", arguments: {} }]));
					history.push({
						role: "toolResult",
						toolCallId: `c${turn}`,
						toolName: "read",
						content: [{ type: "text", text: "r".repeat(scale(result)) }],
						isError: false,
						timestamp: turn,
					});
					calls.push(history.length);
					history.push(assistant([{ type: "text", text: "a".repeat(scale(answer)) }]));
				});
				return { maxTokens, step, run: { history, calls } };
			});
		fc.assert(
			fc.property(arbRun, ({ maxTokens, step, run }) => {
				const registry = createDefaultRegistry().use(trimToTokens({ maxTokens, step }));
				const measured = measureRun(registry.convert, run, estimateTokens);
				expect(measured.largest).toBeLessThanOrEqual(maxTokens);
				// The first trim, then one break per grid line the history's tokens cross.
				expect(measured.breaks).toBeLessThanOrEqual(1 + Math.ceil(measured.growth / step));
			}),
			{ numRuns: 200 },
		);
	});

	it.each([
		[{ maxTokens: 100, step: 0 }],
		[{ maxTokens: 100, step: -5 }],
		[{ maxTokens: 100, step: Number.NaN }],
		[{ maxTokens: 100, step: 101 }],
		[{ maxTokens: 100, step: "10" }],
		[{ maxTokens: 100, step: 10, strategy: "first" }],
	])("should throw InvalidPluginError for %j", (options) => {
		expect(() => trimToTokens(options as unknown as TrimToTokensOptions)).toThrow(InvalidPluginError);
	});
});
