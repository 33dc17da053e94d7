/**
 * `calibratedCounter` on small requests whose figures are worked out by hand: pi's estimate before
 * any bill, the last bill plus the calibrated change after it, the ratio learnt from requests that
 * extend one another, turns pi-ai does not send, another model, and use as `trimToTokens`' counter.
 * Bad usage values are in calibrated-counter-usage.test.ts, the recorded sessions in
 * calibrated-counter-recorded.test.ts.
 */
import type { Message } from "@earendil-works/pi-ai";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { calibratedCounter, PI_ESTIMATE_LABEL } from "../../src/filters/calibrated-counter.js";
import { estimateTokens } from "../../src/filters/estimate-tokens.js";
import { isSentToProvider } from "../../src/filters/provider-facts.js";
import { trimToTokens } from "../../src/filters/trim-to-tokens.js";
import { createDefaultRegistry } from "../../src/preset.js";
import { assistant, user } from "../support/fixtures.js";

/** A user message of `tokens` × 4 characters: pi estimates it at exactly `tokens`. */
const ask = (tokens: number, letter = "u"): Message => user(letter.repeat(tokens * 4));
/** An assistant text reply pi estimates at exactly `tokens`. */
const reply = (tokens: number, fields: Parameters<typeof assistant>[1] = {}): Message =>
	assistant([{ type: "text", text: "a".repeat(tokens * 4) }], { stopReason: "stop", ...fields });
/** A tool result pi estimates at exactly `tokens`. */
const result = (tokens: number): Message => ({
	role: "toolResult",
	toolCallId: "call-1",
	toolName: "read",
	content: [{ type: "text", text: "r".repeat(tokens * 4) }],
	isError: false,
	timestamp: 0,
});
/** A usage that bills `tokens` prompt tokens (split as a provider with a cache would). */
const billed = (tokens: number) => ({ input: 3, output: 50, cacheRead: tokens - 10, cacheWrite: 7 });

// Three requests of one session: 100, then 400 (+300), then 500 (+100) estimated tokens.
const first = [ask(100)];
const second = [...first, reply(200), result(100)];
const third = [...second, ask(100, "v")];

describe("calibratedCounter", () => {
	it("should give pi's estimate, and say so, before any billed request", () => {
		const counter = calibratedCounter();

		expect(counter.count(second)).toEqual({
			tokens: 400,
			kind: "estimate",
			label: PI_ESTIMATE_LABEL,
			estimate: 400,
			observations: 0,
			fallback: "no billed request observed yet",
		});
		for (const message of second) expect(counter(message)).toBe(estimateTokens(message));
		expect(counter.state()).toEqual({
			observations: 0,
			ratio: 1,
			overhead: null,
			model: undefined,
			label: PI_ESTIMATE_LABEL,
		});
	});

	it("should anchor on the last bill: the bill itself for the same request, plus the estimate of what was added", () => {
		const counter = calibratedCounter();
		counter.observe(first, billed(1000));

		// 1000 billed for 100 estimated: 900 tokens of prompt and tools the history does not hold.
		expect(counter.count(first)).toMatchObject({ tokens: 1000, kind: "calibrated", estimate: 100 });
		expect(counter.count(second)).toEqual({
			tokens: 1300, // 1000 + 1 × 300: one request teaches no ratio yet
			kind: "calibrated",
			label: "calibrated on 1 billed request",
			estimate: 400,
			observations: 1,
		});
		expect(counter.state().overhead).toBe(900);
	});

	it("should learn the billed tokens per estimated token of what consecutive requests add", () => {
		const counter = calibratedCounter();
		counter.observe(first, billed(1000));
		const seen = counter.observe(second, billed(1390));

		// Predicted 1300, billed 1390: 6.5% short.
		expect(seen).toMatchObject({ accepted: true, billed: 1390, predicted: { tokens: 1300 } });
		expect(seen.accepted && seen.error).toBeCloseTo(-90 / 1390, 12);
		// (1390 - 1000) / (400 - 100) = 1.3 billed tokens per estimated token.
		expect(counter.state()).toEqual({
			observations: 2,
			ratio: 1.3,
			overhead: 1390 - 1.3 * 400,
			model: undefined,
			label: "calibrated on 2 billed requests",
		});
		expect(counter.count(third)).toMatchObject({ tokens: 1390 + 130, kind: "calibrated", estimate: 500 });
		expect(counter(ask(100))).toBe(130);
		// A request that drops messages (a compaction, a trim) is counted down by the same ratio.
		expect(counter.count(first).tokens).toBe(1390 - 390);
	});

	it("should make count(request) of its per-message counts plus the overhead", () => {
		const counter = calibratedCounter();
		counter.observe(first, billed(1000));
		counter.observe(second, billed(1390));
		const { overhead } = counter.state();
		const messages = third.reduce((sum, message) => sum + counter(message), 0);

		expect((overhead ?? Number.NaN) + messages).toBeCloseTo(counter.count(third).tokens, 6);
	});

	it("should count 0 for an errored or aborted turn, which pi-ai does not send, and keep it in pi's estimate", () => {
		const counter = calibratedCounter();
		counter.observe(first, billed(1000));
		counter.observe(second, billed(1390));
		const aborted = reply(1000, { stopReason: "aborted" });
		const errored = reply(1000, { stopReason: "error" });
		const request = [...second, aborted, errored, ask(100, "v")];

		expect([aborted, errored, reply(1), ask(1)].map(isSentToProvider)).toEqual([false, false, true, true]);
		expect(counter(aborted)).toBe(0);
		expect(counter.count(request)).toMatchObject({ tokens: 1390 + 130, estimate: 2500 });
	});

	it("should not learn a ratio from a request that does not extend the last one", () => {
		const counter = calibratedCounter();
		counter.observe(second, billed(1390));
		// A compaction: one summary instead of the history. Its bill re-anchors, but teaches no ratio.
		counter.observe([ask(50, "s")], billed(700));

		expect(counter.state()).toMatchObject({ observations: 2, ratio: 1, overhead: 650 });
	});

	it("should not learn a ratio no tokenizer has (the bill went down while the request grew)", () => {
		const counter = calibratedCounter();
		counter.observe(first, billed(1000));
		counter.observe(second, billed(990));

		expect(counter.state()).toMatchObject({ observations: 2, ratio: 1 });
		expect(counter.count(second).tokens).toBe(990);
	});

	it("should start over on another model, and give pi's estimate for a model it is not calibrated on", () => {
		const counter = calibratedCounter();
		counter.observe(first, billed(1000), { model: "anthropic/claude-opus-4-5" });
		counter.observe(second, billed(1390), { model: "anthropic/claude-opus-4-5" });

		expect(counter.count(third, { model: "openai/gpt-5" })).toMatchObject({
			tokens: 500,
			kind: "estimate",
			fallback: "calibrated on anthropic/claude-opus-4-5, not on openai/gpt-5",
		});
		const seen = counter.observe(third, billed(1600), { model: "openai/gpt-5" });

		expect(seen).toMatchObject({
			accepted: true,
			predicted: { kind: "estimate", tokens: 500 },
			restarted: "the model changed from anthropic/claude-opus-4-5 to openai/gpt-5",
		});
		expect(counter.state()).toMatchObject({ observations: 1, ratio: 1, model: "openai/gpt-5" });
		expect(counter.count(third, { model: "openai/gpt-5" }).tokens).toBe(1600);
	});

	it("should count a request with a message that cannot be estimated as never fitting, and learn nothing from it", () => {
		const counter = calibratedCounter();
		counter.observe(first, billed(1000));
		const cyclic: Record<string, unknown> = {};
		cyclic.self = cyclic;
		const unreadable = assistant([{ type: "toolCall", id: "c", name: "x", arguments: cyclic as never }]);

		expect(counter(unreadable)).toBe(Number.POSITIVE_INFINITY);
		expect(counter.count([...first, unreadable])).toMatchObject({
			tokens: Number.POSITIVE_INFINITY,
			kind: "estimate",
			fallback: "a message cannot be estimated",
		});
		expect(counter.observe([...first, unreadable], billed(2000))).toMatchObject({
			accepted: false,
			reason: "a message of the request cannot be estimated",
		});
		expect(counter.state().observations).toBe(1);
	});

	it("should serve as trimToTokens' tokenCounter, keeping what fits by calibrated counts", () => {
		const counter = calibratedCounter();
		counter.observe(first, billed(1000));
		counter.observe(second, billed(1390));
		const history = [ask(100), reply(100), ask(100, "v"), reply(100)];

		// Each message counts 130: 300 tokens keep the last two (by pi's estimate, 300 would keep three).
		const trimmed = createDefaultRegistry()
			.use(trimToTokens({ maxTokens: 300, tokenCounter: counter, startOn: ["user", "assistant"] }))
			.convert(history);
		const byEstimate = createDefaultRegistry()
			.use(trimToTokens({ maxTokens: 300, startOn: ["user", "assistant"] }))
			.convert(history);

		expect(trimmed).toEqual(history.slice(2));
		expect(byEstimate).toEqual(history.slice(1));
	});

	it("should predict a bill that is linear in the estimate exactly once two extending requests are seen", () => {
		fc.assert(
			fc.property(
				fc.integer({ min: 0, max: 20_000 }),
				fc.integer({ min: 2, max: 12 }).map((quarters) => quarters / 4),
				fc.array(
					fc.integer({ min: 1, max: 1_250 }).map((n) => n * 4),
					{ minLength: 3, maxLength: 12 },
				),
				(overhead, ratio, sizes) => {
					const counter = calibratedCounter();
					const request: Message[] = [];
					const bill = () => overhead + ratio * request.reduce((sum, m) => sum + estimateTokens(m), 0);
					for (const [i, size] of sizes.entries()) {
						request.push(i % 2 === 0 ? ask(size) : reply(size));
						const seen = counter.observe([...request], { input: bill(), cacheRead: 0, cacheWrite: 0 });
						if (!seen.accepted) return false;
						if (i >= 2 && seen.predicted.tokens !== bill()) return false;
					}
					return counter.state().ratio === ratio;
				},
			),
		);
	});

	it("should never throw nor learn from whatever is passed as a usage", () => {
		fc.assert(
			fc.property(fc.anything(), (usage) => {
				const counter = calibratedCounter();
				const seen = counter.observe(first, usage);
				return seen.accepted === counter.state().observations > 0 && (seen.accepted ? seen.billed > 0 : true);
			}),
		);
	});
});
