/**
 * `clearToolResults` with `clearAtLeast: 0` against the real LangChain `ClearToolUsesEdit` (npm
 * `langchain` 1.x) on generated histories over the option space (triggers of tokens, messages and
 * fractions, single and in lists; keep by messages and by tokens; excluded tools; cleared inputs;
 * placeholders), with three token counters: the same results cleared, the same inputs cleared, the
 * same placeholder, every other message passed on as the same object. pi's documented differences
 * (orphans kept, the run in progress spared, the placeholder marker) are applied by the oracle,
 * `test/support/clear-oracle.ts`.
 */
import type { Message } from "@earendil-works/pi-ai";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type ClearToolResultsOptions, clearToolResults } from "../../src/filters/clear-tool-results.js";
import { createDefaultRegistry } from "../../src/preset.js";
import { arbClearHistory, arbClearOptions, CLEAR_COUNTERS } from "../support/clear-histories.js";
import { langChainAnswer, normalizePlaceholders } from "../support/clear-oracle.js";

const RUNS = Number(process.env.CLEAR_RUNS ?? 2500);

const arbCase = fc
	.tuple(arbClearHistory(), fc.constantFrom(...Object.keys(CLEAR_COUNTERS)))
	.chain(([history, counterName]) =>
		arbClearOptions(history, CLEAR_COUNTERS[counterName] as (m: Message) => number).map((options) => ({
			history,
			counterName,
			options,
		})),
	);

function clear(history: readonly Message[], options: ClearToolResultsOptions): Message[] {
	return createDefaultRegistry()
		.use(clearToolResults(options))
		.run(history as never).output;
}

describe("clearToolResults", () => {
	it(`should clear what LangChain's ClearToolUsesEdit clears on ${RUNS} generated histories, but for pi's documented differences`, async () => {
		const tally = { compared: 0, clearing: 0, cleared: 0, spared: 0, orphans: 0, preCleared: 0, inputs: 0 };
		await fc.assert(
			fc.asyncProperty(arbCase, async ({ history, counterName, options }) => {
				const tokenCounter = CLEAR_COUNTERS[counterName] as (m: Message) => number;
				const exact = { ...options, clearAtLeast: 0, tokenCounter };
				const output = clear(history, exact);
				const answer = await langChainAnswer(history, exact, tokenCounter);
				const got = options.placeholder === undefined ? normalizePlaceholders(output, history) : output;
				expect(got).toEqual(answer.expected);
				for (let i = 0; i < history.length; i++)
					if (answer.expected[i] === history[i]) expect(output[i]).toBe(history[i]);
				tally.compared++;
				if (answer.cleared > 0) tally.clearing++;
				tally.cleared += answer.cleared;
				tally.spared += answer.spared;
				tally.orphans += answer.orphans;
				tally.preCleared += answer.preCleared;
				tally.inputs += answer.inputs;
			}),
			{ numRuns: RUNS },
		);
		console.info(`clearToolResults vs ClearToolUsesEdit: ${JSON.stringify(tally)}, 0 mismatches`);
		expect(tally.compared).toBe(RUNS);
		// The space is covered: LangChain cleared in many runs, and each difference occurred.
		expect(tally.clearing).toBeGreaterThan(RUNS / 5);
		expect(tally.spared).toBeGreaterThan(0);
		expect(tally.orphans).toBeGreaterThan(0);
		expect(tally.preCleared).toBeGreaterThan(0);
		expect(tally.inputs).toBeGreaterThan(0);
	});
});
