/**
 * `pruneMessages({ …, step })`: every `toolCalls` window starts on a multiple of `step` messages, at
 * least N from the end, so a growing history keeps what was pruned as it was between steps. Checked:
 * the window by hand, the AI SDK's decisions on the widened window (the same as the plain rule with
 * that window), nothing pruned inside the last N, and on growing histories at most one prefix break
 * per `step` messages.
 */
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { Message } from "@earendil-works/pi-ai";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { measureRun } from "../../scripts/filter-cache-table.mjs";
import { estimateTokens } from "../../src/filters/estimate-tokens.js";
import { steppedKeepLast } from "../../src/filters/prune-list.js";
import { type PruneMessagesOptions, pruneMessages } from "../../src/filters/prune-messages.js";
import { InvalidPluginError } from "../../src/index.js";
import { createDefaultRegistry } from "../../src/preset.js";
import { arbHistory } from "../support/filter-histories.js";

const prune = (history: readonly Message[], options: PruneMessagesOptions) =>
	createDefaultRegistry({ strict: true })
		.use(pruneMessages(options))
		.convert(history as AgentMessage[]);

const arbWindow = fc.record({ keepLast: fc.integer({ min: 1, max: 6 }), step: fc.integer({ min: 1, max: 8 }) });

describe("steppedKeepLast", () => {
	it.each([
		// keepLast, step, length, spared
		[2, 3, 1, 2],
		[2, 3, 2, 2],
		[2, 3, 4, 4],
		[2, 3, 5, 2],
		[2, 3, 7, 4],
		[2, 3, 8, 2],
		[10, 20, 29, 29],
		[10, 20, 30, 10],
		[10, 20, 49, 29],
		[10, 20, 50, 10],
	])("should spare, of keepLast %i with step %i in %i messages, the last %i", (keepLast, step, length, spared) => {
		expect(steppedKeepLast(keepLast, length, step)).toBe(spared);
	});

	it.each([
		[undefined, 5],
		[0, 5],
		[3, undefined],
	])("should leave keepLast %s as it is with step %s", (keepLast, step) => {
		expect(steppedKeepLast(keepLast, 50, step)).toBe(keepLast);
	});
});

describe("pruneMessages with step", () => {
	it("should prune as the plain rule over the widened window, and never inside the last N messages", () => {
		fc.assert(
			fc.property(
				arbHistory({ system: "anywhere" }),
				arbWindow,
				fc.constantFrom("keep" as const, "remove" as const),
				(history, { keepLast, step }, emptyMessages) => {
					const output = prune(history, { toolCalls: `before-last-${keepLast}-messages`, step, emptyMessages });
					const spared = steppedKeepLast(keepLast, history.length, step) as number;
					expect(output).toEqual(prune(history, { toolCalls: `before-last-${spared}-messages`, emptyMessages }));
					const last = history.slice(Math.max(0, history.length - keepLast));
					if (emptyMessages === "keep") expect(output.slice(output.length - last.length)).toEqual(last);
				},
			),
			{ numRuns: 1000 },
		);
	});

	it("should break the prefix of a growing history converted at each model call at most once per step messages", () => {
		fc.assert(
			fc.property(arbHistory({ system: "anywhere" }, 40), arbWindow, (history, { keepLast, step }) => {
				// A model call after each message, as pi makes them: not between the results of one batch of calls.
				const calls = history.flatMap((_, i) => (history[i + 1]?.role === "toolResult" ? [] : [i + 1]));
				const registry = createDefaultRegistry().use(
					pruneMessages({ toolCalls: `before-last-${keepLast}-messages`, step }),
				);
				const { breaks } = measureRun(registry.convert, { history, calls }, estimateTokens);
				expect(breaks).toBeLessThanOrEqual(Math.max(0, Math.floor((history.length - keepLast) / step)));
			}),
			{ numRuns: 500 },
		);
	});

	it.each([[0], [-1], [1.5], [Number.NaN], ["10"]])("should throw InvalidPluginError for step %s", (step) => {
		expect(() => pruneMessages({ toolCalls: "before-last-2-messages", step: step as number })).toThrow(
			InvalidPluginError,
		);
	});
});
