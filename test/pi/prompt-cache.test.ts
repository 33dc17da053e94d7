/**
 * The words of the prompt-cache notice and of `/llm-context`'s section: every token figure names its
 * counter, and the advice names the step of the switch that set the plugin (or who offered it).
 */
import type { Message } from "@earendil-works/pi-ai";
import { describe, expect, it } from "vitest";
import {
	CLEAR_TOOL_RESULTS_PLUGIN,
	calibratedCounter,
	PRUNE_MESSAGES_PLUGIN,
	TRIM_TO_TOKENS_PLUGIN,
} from "../../src/filters/index.js";
import { BLOCK_IMAGES_PLUGIN } from "../../src/hooks/index.js";
import { figure, type Outlook, outlookLines, stepAdvice, tokensFrom } from "../../src/pi/prompt-cache.js";
import { DEFAULT_HARDENING, type PiHardening } from "../../src/pi/settings.js";

const on = (switches: Partial<PiHardening>): PiHardening => ({ ...DEFAULT_HARDENING, ...switches });
const PRUNE = { toolCalls: "before-last-10-messages" } as const;
const none = new Map<string, string>();
const user = (text: string) => ({ role: "user", content: text, timestamp: 1 }) as Message;

describe("stepAdvice", () => {
	it.each([
		[
			"maxTokens with its default step",
			TRIM_TO_TOKENS_PLUGIN,
			on({ maxTokens: 40_000 }),
			none,
			"maxTokens moves its window in steps of 10,000 tokens (maxTokensStep), so this happens once per 10,000 tokens the conversation grows; a larger maxTokensStep (up to maxTokens) breaks it less often.",
		],
		[
			"maxTokens with maxTokensStep 0",
			TRIM_TO_TOKENS_PLUGIN,
			on({ maxTokens: 40_000, maxTokensStep: 0 }),
			none,
			'maxTokens moves its window with every message because maxTokensStep is 0: leave maxTokensStep out (a quarter of maxTokens, 10000) or set one, e.g. "maxTokensStep": 10000 under "convertToLlm" in settings.json, or maxTokensStep=10000 in --convert-to-llm, so that it moves in steps and keeps the prefix in between.',
		],
		[
			"a budget too small to step",
			TRIM_TO_TOKENS_PLUGIN,
			on({ maxTokens: 3 }),
			none,
			"maxTokens (3) is too small to move in steps.",
		],
		[
			"prune with its default step",
			PRUNE_MESSAGES_PLUGIN,
			on({ prune: PRUNE }),
			none,
			"prune moves its toolCalls windows in steps of 10 messages (pruneStep), so this happens once per 10 messages; a larger pruneStep breaks it less often.",
		],
		[
			"prune with pruneStep 0",
			PRUNE_MESSAGES_PLUGIN,
			on({ prune: PRUNE, pruneStep: 0 }),
			none,
			'prune moves its toolCalls windows with every message because pruneStep is 0: leave pruneStep out (10 messages) or set one, e.g. "pruneStep": 10 under "convertToLlm" in settings.json, or pruneStep=10 in --convert-to-llm, so that they move in steps.',
		],
		[
			"clearToolResults",
			CLEAR_TOOL_RESULTS_PLUGIN,
			on({ clearToolResults: {} }),
			none,
			'clearToolResults moves its cleared boundary only when that clears at least clearAtLeast tokens (by default a tenth of the smallest token trigger), so this happens once per move; a larger "clearAtLeast", or "when": "cache-cold"',
		],
		[
			"trimToTokens another extension offered",
			TRIM_TO_TOKENS_PLUGIN,
			on({}),
			new Map([[TRIM_TO_TOKENS_PLUGIN, "other-ext"]]),
			"It was offered by other-ext, which has no step switch here: if it changes earlier messages on every turn, it should move in steps, as trimToTokens and pruneMessages do with their step option",
		],
		[
			"a switch's plugin without a step",
			BLOCK_IMAGES_PLUGIN,
			on({ blockImages: true }),
			none,
			"It has no step switch here: if it changes earlier messages on every turn, it should move in steps, as trimToTokens and pruneMessages do with their step option; a break now and then comes from a change in what it does (a setting turned on or off).",
		],
	])("should advise on %s", (_name, cause, hardening, offeredBy, advice) => {
		expect(stepAdvice(cause, { hardening, offeredBy })).toContain(advice);
	});
});

describe("figure and tokensFrom", () => {
	it("should name pi's estimate before a bill, and the calibration after one", () => {
		const counter = calibratedCounter();
		const request = [user("a".repeat(400)), user("b".repeat(800))];
		expect(figure(tokensFrom(counter, request, 1, "p/m"))).toBe("~200 tokens by pi's estimate (chars/4)");
		counter.observe(request, { input: 450, cacheRead: 0, cacheWrite: 0 }, { model: "p/m" });
		counter.observe(
			[...request, user("c".repeat(400))],
			{ input: 650, cacheRead: 0, cacheWrite: 0 },
			{ model: "p/m" },
		);
		expect(figure(tokensFrom(counter, request, 1, "p/m"))).toBe("~400 tokens, calibrated on 2 billed requests");
		expect(figure(tokensFrom(counter, request, 1, "p/other"))).toBe(
			"~200 tokens by pi's estimate (chars/4; calibrated on p/m, not on p/other)",
		);
	});

	it("should not make a number of a message it cannot count", () => {
		const cyclic: Record<string, unknown> = { type: "toolCall", name: "x" };
		cyclic.arguments = cyclic;
		const request = [user("a"), { role: "assistant", content: [cyclic], timestamp: 1 } as unknown as Message];
		expect(figure(tokensFrom(calibratedCounter(), request, 1, undefined))).toBe(
			"an uncountable number of tokens by pi's estimate (chars/4)",
		);
	});
});

describe("outlookLines", () => {
	const base: Omit<Outlook, "next" | "previousLength"> = {
		counter: calibratedCounter(),
		model: "p/m",
		lastBill: undefined,
		context: { hardening: DEFAULT_HARDENING, offeredBy: none },
		beside: false,
	};

	it("should say a conversion that failed leaves nothing to say of the prefix", () => {
		expect(outlookLines({ ...base, next: { failed: "a tap threw" }, previousLength: 3 })).toEqual([
			"── Prompt cache and billed tokens",
			"next request: its conversion failed (a tap threw): nothing to say of its prefix.",
			"last request: no bill seen in this session yet.",
		]);
	});

	it("should give the reason a response's usage could not be read, and what pi 0.73.1 sends beside the messages", () => {
		const counter = calibratedCounter();
		const observation = counter.observe([user("a")], { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 });
		const lines = outlookLines({
			...base,
			counter,
			beside: true,
			lastBill: { messages: 1, observation },
			next: { output: [user("a".repeat(40))], prefix: { kept: 1, breakAt: null, cause: null } },
			previousLength: 1,
		});
		expect(lines).toEqual([
			"── Prompt cache and billed tokens",
			"reuse: the next request repeats the 1 message the last one sent (~10 tokens by pi's estimate (chars/4)) as its prefix: the provider can read them from its cache, and only what follows is new.",
			"next request: ~10 tokens by pi's estimate (chars/4) of the messages · no calibrated count yet: no bill seen in this session (it starts with the first response's usage)",
			"last request (1 message): its usage could not be read (the usage is all zeros: the provider reported none (e.g. the request was aborted before it answered)).",
			"pi 0.73.1 sends its system prompt and tools beside the messages: pi's estimate above counts the messages only; the bill and the calibrated count include them.",
		]);
	});

	it("should say a history that changed under the last request breaks it, without advice", () => {
		const lines = outlookLines({
			...base,
			next: {
				output: [user("x".repeat(40)), user("y".repeat(80))],
				prefix: { kept: 0, breakAt: 0, cause: "history" },
			},
			previousLength: 4,
		});
		expect(lines[1]).toBe(
			"reuse: the next request repeats 0 of the 4 messages the last one sent (~0 tokens by pi's estimate (chars/4)), then differs at #0 (the history changed there (a compaction, /tree, an edit, or new system messages)): the rest (~30 tokens by pi's estimate (chars/4)) goes as a cache write (about 1.25× the input price) instead of a cache read (about 0.1×).",
		);
	});
});
