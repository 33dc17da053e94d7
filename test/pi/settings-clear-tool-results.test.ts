/**
 * The extension's `clearToolResults` switch: read from settings.json (`true` or an object of the
 * filter's options) and from the flag (`clearToolResults[=<trigger>]`), with bad options a problem
 * that withholds every request; the host's registry counts with the session's counter, takes the
 * model's context window for a `fraction` trigger, never clears for a summary, and clears a history
 * the same way whether it converted it turn by turn or all at once (a resumed session).
 */
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { Message } from "@earendil-works/pi-ai";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Conversion } from "../../src/index.js";
import { createHost } from "../../src/pi/host.js";
import type { PiExtensionApi } from "../../src/pi/pi-api.js";
import { createReporter } from "../../src/pi/report.js";
import { convertRequest, WITHHELD_TEXT } from "../../src/pi/request.js";
import {
	DEFAULT_HARDENING,
	flagTrigger,
	hardeningText,
	type PiHardening,
	readHardening,
} from "../../src/pi/settings.js";
import { arbClearHistory } from "../support/clear-histories.js";
import { readTurns } from "../support/fixtures.js";
import { recordingCtx } from "../support/pi-context.js";

function piReading(flag: unknown, settings?: unknown): PiExtensionApi {
	const pi = { getFlag: () => flag } as unknown as PiExtensionApi;
	if (settings !== undefined) pi.getSettings = () => settings;
	return pi;
}
const on = (switches: Partial<PiHardening>): PiHardening => ({ ...DEFAULT_HARDENING, ...switches });
const pi = piReading(undefined);

/** `turns` turns of a prompt, a `read` call and its result of 4,000 characters (~1,000 tokens by pi's estimate). */
const history = (turns: number): AgentMessage[] => readTurns(turns, (t) => `${t}`.padEnd(4000, "x"));

/** The texts of the tool results of an output. */
const results = (output: readonly Message[]): string[] =>
	output.flatMap((message) =>
		message.role === "toolResult"
			? [(message.content as { type: string; text?: string }[]).map((block) => block.text ?? "").join("")]
			: [],
	);
const cleared = (output: readonly Message[]): number =>
	results(output).filter((text) => text.startsWith("[cleared:")).length;

describe("readHardening's clearToolResults", () => {
	it.each([
		["true in settings.json", undefined, { clearToolResults: true }, {}],
		[
			"an object of options in settings.json",
			undefined,
			{ clearToolResults: { trigger: { fraction: 0.5 }, keep: { messages: 2 }, excludeTools: ["todo"] } },
			{ trigger: { fraction: 0.5 }, keep: { messages: 2 }, excludeTools: ["todo"] },
		],
		["the bare flag", "clearToolResults", undefined, {}],
		["a trigger in the flag", "clearToolResults=80000", undefined, { trigger: { tokens: 80_000 } }],
		[
			"a trigger of several conditions in the flag",
			"clearToolResults=fraction:0.5+messages:40",
			undefined,
			{ trigger: { fraction: 0.5, messages: 40 } },
		],
		[
			"the flag over the settings",
			"clearToolResults=messages:10",
			{ clearToolResults: { keep: { messages: 1 } } },
			{ trigger: { messages: 10 } },
		],
	])("should read %s", (_name, flag, settings, expected) => {
		const { hardening, problems } = readHardening(
			piReading(flag, settings === undefined ? undefined : { convertToLlm: settings }),
		);
		expect(problems).toEqual([]);
		expect(hardening.clearToolResults).toEqual(expected);
	});

	it.each([
		["false in settings.json", undefined, { clearToolResults: false }],
		["false in the flag over the settings", "clearToolResults=false", { clearToolResults: true }],
	])("should leave it off with %s", (_name, flag, settings) => {
		const { hardening, problems } = readHardening(piReading(flag, { convertToLlm: settings }));
		expect(problems).toEqual([]);
		expect(hardening.clearToolResults).toBeUndefined();
		expect(hardeningText(hardening)).toBe("none");
	});

	it.each([
		[
			"a negative keep",
			{ clearToolResults: { keep: { messages: -1 } } },
			'settings "convertToLlm.clearToolResults" is an object without a string role: clearToolResults is not taken: clearToolResults: keep.messages is number -1; give a whole number >= 0',
		],
		[
			"an unknown option",
			{ clearToolResults: { trigger: { tokens: 1000 }, keeps: 3 } },
			'clearToolResults: unknown option "keeps"',
		],
		[
			"a token counter, which is the extension's",
			{ clearToolResults: { tokenCounter: "tiktoken" } },
			'clearToolResults sets tokenCounter itself (the calibrated counter, the clock); leave "tokenCounter" out',
		],
		["a string", { clearToolResults: "yes" }, "clearToolResults takes true, false or an object"],
		["a misspelled switch", { clearToolResult: true }, '(did you mean "clearToolResults"?)'],
	])("should report %s as a problem that withholds requests, and leave clearing off", (_name, settings, problem) => {
		const { hardening, problems } = readHardening(piReading(undefined, { convertToLlm: settings }));
		expect(problems).toHaveLength(1);
		expect(problems[0]).toContain(problem);
		expect(problems[0]).toContain("every request is withheld until it is fixed");
		expect(hardening.clearToolResults).toBeUndefined();
	});

	it.each(["clearToolResults=lots", "clearToolResults=fraction:2", "clearToolResults=tokens:1+tokens:2"])(
		"should not understand the flag token %s, and say the forms it takes",
		(flag) => {
			const { hardening, problems } = readHardening(piReading(flag));
			expect(problems).toHaveLength(1);
			expect(problems[0]).toContain("clearToolResults takes clearToolResults, clearToolResults=false or");
			expect(hardening.clearToolResults).toBeUndefined();
		},
	);

	it("should read a flag trigger as the CLI's --clear-tool-results trigger, and nothing else", () => {
		expect(flagTrigger("120000")).toEqual({ tokens: 120_000 });
		expect(flagTrigger("tokens:5+messages:4+fraction:0.25")).toEqual({ tokens: 5, messages: 4, fraction: 0.25 });
		for (const bad of ["", "1e5", "-3", "fraction:", "window:4", "tokens:1+tokens:1", "5 "])
			expect(flagTrigger(bad)).toBeUndefined();
	});

	it("should show it in /llm-context's header with its options", () => {
		expect(hardeningText(on({ clearToolResults: {} }))).toBe("clearToolResults");
		expect(hardeningText(on({ clearToolResults: { trigger: { fraction: 0.5 } } }))).toBe(
			'clearToolResults {"trigger":{"fraction":0.5}}',
		);
	});
});

describe("createHost's clearToolResults", () => {
	it("should clear all but the kept results once the request reaches a fraction of the model's context window", () => {
		const host = createHost(pi, on({ clearToolResults: { trigger: { fraction: 0.5 }, keep: { messages: 2 } } }));
		const messages = history(8);
		// 8 results of ~1,000 tokens: over half of a 10,000-token window, under half of a 100,000 one.
		const small = host.build("request", 10_000).registry.run(messages).output;
		const large = host.build("request", 100_000).registry.run(messages).output;
		expect(cleared(small)).toBe(6);
		expect(results(small).slice(-2)).toEqual(results(large).slice(-2));
		expect(results(small)[0]).toMatch(/^\[cleared: read f0\.ts, 4,000 characters\]$/);
		expect(cleared(large)).toBe(0);
	});

	it("should withhold the request when a fraction trigger has no context window (neither the options nor pi's model give one)", async () => {
		const host = createHost(pi, on({ clearToolResults: { trigger: { fraction: 0.5 } } }));
		const { ctx, shown, aborted } = recordingCtx();
		const result = await convertRequest(host, createReporter(), history(3), ctx);
		expect(JSON.stringify(result.messages)).toContain(WITHHELD_TEXT);
		expect(aborted()).toBe(1);
		expect(shown.map((notice) => notice.text).join("\n")).toContain("trigger.fraction needs contextWindow");
	});

	it("should take the context window of pi's model in a request", async () => {
		const host = createHost(pi, on({ clearToolResults: { trigger: { fraction: 0.5 }, keep: { messages: 1 } } }));
		const { ctx, aborted } = recordingCtx();
		(ctx as { model?: unknown }).model = { provider: "p", id: "m", contextWindow: 8000 };
		const result = await convertRequest(host, createReporter(), history(6), ctx);
		expect(aborted()).toBe(0);
		expect(cleared(result.messages as Message[])).toBe(5);
	});

	it("should count with the host's token counter, asked for on every count", () => {
		let perMessage = 1;
		const host = createHost(
			pi,
			on({ clearToolResults: { trigger: { tokens: 5000 }, keep: { messages: 1 }, clearAtLeast: 0 } }),
			10_000,
			{ tokenCounter: () => () => perMessage },
		);
		const registry = host.build().registry;
		expect(cleared(registry.run(history(4)).output)).toBe(0);
		// The counter of the session changes (a bill calibrated it): the same registry counts with the new one.
		perMessage = 2000;
		expect(cleared(registry.run(history(4)).output)).toBe(3);
	});

	it("should not clear for a summary, which would leave the results out of the session for good", () => {
		const host = createHost(pi, on({ clearToolResults: { trigger: { tokens: 100 }, keep: { messages: 1 } } }));
		expect(cleared(host.build("request").registry.run(history(4)).output)).toBe(3);
		expect(cleared(host.build("summary").registry.run(history(4)).output)).toBe(0);
	});

	it("should give a resumed session (a fresh host, the whole history at once) the cleared prefix the session sent turn by turn", () => {
		fc.assert(
			fc.property(arbClearHistory(24), fc.constantFrom(300, 2000, 6000), (whole, trigger) => {
				const switches = on({ clearToolResults: { trigger: { tokens: trigger }, keep: { messages: 2 } } });
				const turnByTurn = createHost(pi, switches).build().registry;
				let previous: Conversion | undefined;
				// Each request pi sends ends where the model answers: before each assistant message, and the whole.
				const ends = whole.flatMap((message, i) => (message.role === "assistant" ? [i] : []));
				for (const end of [...ends, whole.length]) {
					previous = turnByTurn.run(whole.slice(0, end) as AgentMessage[], { previous });
				}
				const resumed = createHost(pi, switches)
					.build()
					.registry.run(whole as AgentMessage[]);
				expect(resumed.output).toEqual(previous?.output);
			}),
			{ numRuns: 150 },
		);
	});
});
