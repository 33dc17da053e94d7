/**
 * The steps of the extension's window switches: `maxTokens` trims in steps of a quarter of its budget
 * and `prune` in steps of 10 messages unless `maxTokensStep` / `pruneStep` say otherwise (`0`: no
 * step, as before steps existed), from settings.json or the flag; a step that does not fit what it
 * steps is a configuration problem. The host's request registry runs the filters with those steps.
 */
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { Message } from "@earendil-works/pi-ai";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { estimateTokens, pruneMessageList, trimMessageList } from "../../src/filters/index.js";
import type { Conversion } from "../../src/index.js";
import { createHost } from "../../src/pi/host.js";
import type { PiExtensionApi } from "../../src/pi/pi-api.js";
import {
	DEFAULT_HARDENING,
	DEFAULT_PRUNE_STEP,
	hardeningText,
	type PiHardening,
	pruneStepOf,
	readHardening,
	trimStepOf,
} from "../../src/pi/settings.js";
import { convertToLlm } from "../../src/preset.js";
import { readTurns } from "../support/fixtures.js";

function piReading(flag: unknown, settings?: unknown): PiExtensionApi {
	const pi = { getFlag: () => flag } as unknown as PiExtensionApi;
	if (settings !== undefined) pi.getSettings = () => settings;
	return pi;
}
const on = (switches: Partial<PiHardening>): PiHardening => ({ ...DEFAULT_HARDENING, ...switches });
const PRUNE = { toolCalls: "before-last-2-messages" } as const;

describe("readHardening's steps", () => {
	it.each([
		[
			"maxTokensStep in settings.json",
			undefined,
			{ maxTokens: 40_000, maxTokensStep: 5000 },
			{ maxTokensStep: 5000 },
		],
		["maxTokensStep in the flag", "maxTokens=40000,maxTokensStep=0", undefined, { maxTokensStep: 0 }],
		["pruneStep in settings.json", undefined, { prune: PRUNE, pruneStep: 20 }, { pruneStep: 20 }],
		["pruneStep in the flag over the settings", "pruneStep=0", { prune: PRUNE, pruneStep: 20 }, { pruneStep: 0 }],
	])("should read %s", (_name, flag, settings, expected) => {
		const { hardening, problems } = readHardening(
			piReading(flag, settings === undefined ? undefined : { convertToLlm: settings }),
		);
		expect(problems).toEqual([]);
		expect(hardening).toMatchObject(expected);
	});

	it.each([
		[
			"a step that is not a whole number",
			{ maxTokens: 100, maxTokensStep: 2.5 },
			'settings "convertToLlm.maxTokensStep" is number 2.5: maxTokensStep takes a whole number >= 0',
		],
		["a negative step", { prune: PRUNE, pruneStep: -1 }, "pruneStep takes a whole number >= 0"],
		[
			"a trim step over the budget",
			{ maxTokens: 100, maxTokensStep: 101 },
			"maxTokensStep (101) is larger than maxTokens (100): it takes 0 (no step) to maxTokens",
		],
		[
			"two different prune steps",
			{ prune: { ...PRUNE, step: 5 }, pruneStep: 20 },
			'the prune step is set twice, as pruneStep (20) and as "step" in prune (5): keep one',
		],
		["a misspelled step", { maxTokens: 100, maxTokenStep: 10 }, '(did you mean "maxTokensStep"?)'],
	])(
		"should report %s as a problem that withholds requests, and leave the step at its default",
		(_name, settings, problem) => {
			const { hardening, problems } = readHardening(piReading(undefined, { convertToLlm: settings }));
			expect(problems).toHaveLength(1);
			expect(problems[0]).toContain(problem);
			expect(problems[0]).toContain("every request is withheld until it is fixed");
			expect(hardening.maxTokensStep).toBeUndefined();
			expect(hardening.pruneStep).toBeUndefined();
		},
	);

	it.each([
		[
			"maxTokensStep=1.5",
			"maxTokensStep takes maxTokensStep=<a whole number of tokens>, such as maxTokensStep=30000",
		],
		["pruneStep", "pruneStep takes pruneStep=<a whole number of messages>, such as pruneStep=10"],
	])("should not understand the flag token %s", (flag, problem) => {
		const { problems } = readHardening(piReading(flag));
		expect(problems).toHaveLength(1);
		expect(problems[0]).toContain(problem);
	});
});

describe("trimStepOf and pruneStepOf", () => {
	it.each([
		[{ maxTokens: 120_000 }, 30_000],
		[{ maxTokens: 40_001 }, 10_000],
		[{ maxTokens: 120_000, maxTokensStep: 5000 }, 5000],
		[{ maxTokens: 120_000, maxTokensStep: 0 }, undefined],
		[{ maxTokens: 3 }, undefined],
		[{ maxTokensStep: 5000 }, undefined],
	])("should give the trim of %j the step %s", (switches, step) => {
		expect(trimStepOf(on(switches))).toBe(step);
	});

	it.each([
		[{ prune: PRUNE }, DEFAULT_PRUNE_STEP],
		[{ prune: { ...PRUNE, step: 4 } }, 4],
		[{ prune: PRUNE, pruneStep: 40 }, 40],
		[{ prune: { ...PRUNE, step: 4 }, pruneStep: 0 }, undefined],
		[{ pruneStep: 40 }, undefined],
	])("should give the prune of %j the step %s", (switches, step) => {
		expect(pruneStepOf(on(switches))).toBe(step);
	});

	it("should show each step in /llm-context's header beside its switch", () => {
		expect(hardeningText(on({ maxTokens: 120_000, prune: PRUNE }))).toBe(
			"maxTokens=120000 (step 30000 tokens), prune (step 10 messages)",
		);
		expect(hardeningText(on({ maxTokens: 120_000, maxTokensStep: 0, prune: PRUNE, pruneStep: 0 }))).toBe(
			"maxTokens=120000 (no step), prune (no step)",
		);
	});
});

/** A history of `turns` turns: a prompt, a tool call and its result of 400 to 1,600 characters. */
const history = (turns: number, seed: number): AgentMessage[] =>
	readTurns(turns, (t) => "x".repeat(400 + ((seed * 7919 + t * 104_729) % 1200)));

describe("createHost's window switches", () => {
	const pi = piReading(undefined);

	it("should trim and prune a request with the steps the switches give, as the list functions do with them", () => {
		fc.assert(
			fc.property(
				fc.integer({ min: 1, max: 40 }),
				fc.integer({ min: 0, max: 1000 }),
				fc.integer({ min: 100, max: 6000 }),
				fc.constantFrom(undefined, 0, 50),
				fc.constantFrom(undefined, 0, 3),
				(turns, seed, maxTokens, maxTokensStep, pruneStep) => {
					const messages = history(turns, seed);
					const switches = on({
						maxTokens,
						prune: PRUNE,
						...(maxTokensStep === undefined ? {} : { maxTokensStep }),
						...(pruneStep === undefined ? {} : { pruneStep }),
					});
					const host = createHost(pi, switches);
					const sent = host.build().registry.run(messages).output;
					const trimStep = trimStepOf(switches);
					const step = pruneStepOf(switches);
					const pruned = pruneMessageList({
						messages: convertToLlm(messages) as Message[],
						...PRUNE,
						...(step === undefined ? {} : { step }),
					});
					const expected = trimMessageList(pruned, {
						maxTokens,
						onProblem: () => {},
						...(trimStep === undefined ? {} : { step: trimStep }),
					});
					expect(sent).toEqual(expected);
				},
			),
			{ numRuns: 200 },
		);
	});

	it("should break the prompt prefix once per step of growth by default, and with every turn with maxTokensStep 0", () => {
		const breaks = (switches: PiHardening) => {
			const registry = createHost(pi, switches).build().registry;
			let previous: Conversion | undefined;
			let count = 0;
			for (let turns = 1; turns <= 60; turns++) {
				const conversion = registry.run(history(turns, 1), { previous });
				if (conversion.prefix?.breakAt != null) count++;
				previous = conversion;
			}
			return count;
		};
		const growth = history(60, 1).reduce((sum, message) => sum + estimateTokens(message as Message), 0) - 4000;
		const stepped = breaks(on({ maxTokens: 4000 }));
		const plain = breaks(on({ maxTokens: 4000, maxTokensStep: 0 }));
		// One break when trimming starts, then one per step (1,000 tokens) of growth at most.
		expect(stepped).toBeLessThanOrEqual(1 + Math.ceil(growth / 1000));
		expect(plain).toBeGreaterThan(2 * stepped);
	});
});
