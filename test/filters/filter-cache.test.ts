/**
 * The goals of the cache-stable modes, on the 120-turn history of scripts/filter-cache-table.mjs (a
 * system message first, tool results of 2,000 to 5,000 characters, converted at each of the 240
 * model calls), measured by that script's `measureRun` on the sources: with `step` a quarter of
 * `maxTokens`, at least 90% of each request's characters are the previous request's, one break per
 * `step` tokens of growth at most, never over budget; `pruneMessages` with `step` breaks once per
 * `step` messages.
 */
import type { Message } from "@earendil-works/pi-ai";
import { describe, expect, it } from "vitest";
import { cacheHistory, MAX_TOKENS, measureRun, PRUNE_WINDOW } from "../../scripts/filter-cache-table.mjs";
import { estimateTokens } from "../../src/filters/estimate-tokens.js";
import { type PruneMessagesOptions, pruneMessages } from "../../src/filters/prune-messages.js";
import { type TrimToTokensOptions, trimToTokens } from "../../src/filters/trim-to-tokens.js";
import { createDefaultRegistry } from "../../src/preset.js";

const run = cacheHistory();

function measure(trim: TrimToTokensOptions | undefined, prune?: PruneMessagesOptions) {
	const registry = createDefaultRegistry();
	if (prune !== undefined) registry.use(pruneMessages(prune));
	if (trim !== undefined) registry.use(trimToTokens(trim));
	return measureRun(registry.convert, run, (message: Message) => estimateTokens(message));
}

describe("trimToTokens with step on a 120-turn agent run", () => {
	const step = MAX_TOKENS / 4;
	const plain = measure({ maxTokens: MAX_TOKENS });
	const stepped = measure({ maxTokens: MAX_TOKENS, step });

	it("should keep at least 90% of the previous request as the prefix, against well under that without step", () => {
		expect(stepped.prefixKept).toBeGreaterThanOrEqual(0.9);
		expect(plain.prefixKept).toBeLessThan(0.7);
	});

	it("should break once when it starts trimming, then at most once per step tokens of growth", () => {
		expect(stepped.growth).toBeGreaterThan(4 * step);
		expect(stepped.breaks).toBeLessThanOrEqual(1 + Math.ceil(stepped.growth / step));
		expect(plain.breaks).toBeGreaterThan(3 * stepped.breaks);
	});

	it("should never send more than maxTokens", () => {
		expect(stepped.largest).toBeLessThanOrEqual(MAX_TOKENS);
		expect(plain.largest).toBeLessThanOrEqual(MAX_TOKENS);
	});

	it("should bill less at cache prices than trimming without step, and than not trimming", () => {
		expect(stepped.billed).toBeLessThan(plain.billed / 2);
		expect(stepped.billed).toBeLessThan(measure(undefined).billed);
	});
});

describe("pruneMessages with step on a 120-turn agent run", () => {
	it("should break the prefix once per step messages", () => {
		const toolCalls = `before-last-${PRUNE_WINDOW}-messages` as const;
		const plain = measure(undefined, { toolCalls });
		const stepped = measure(undefined, { toolCalls, step: 10 });
		// Without step, a call and its result leave the window at every turn.
		expect(plain.breaks).toBeGreaterThan(run.calls.length / 2 - 5);
		expect(stepped.breaks).toBeLessThanOrEqual(Math.ceil(run.history.length / 10));
		expect(stepped.prefixKept).toBeGreaterThan(plain.prefixKept);
		expect(stepped.billed).toBeLessThan(plain.billed);
	});
});
