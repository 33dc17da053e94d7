/**
 * A request the pi extension lets out is the whole conversion, or nothing: never the system prompt
 * alone, never no message at all. `maxTokens` below the newest prompt and a `redactSecrets` scanner
 * that cannot load withhold the request (pi's run aborted, an error saying why and what to change),
 * as any plugin that leaves nothing of the conversation does; a summary that would be made of nothing
 * is cancelled. The real pi CLIs are test/pi/fail-closed-e2e.test.ts.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { redactSecrets } from "../../src/filters/index.js";
import type { Plugin } from "../../src/index.js";
import { createHost } from "../../src/pi/host.js";
import type { PiExtensionApi } from "../../src/pi/pi-api.js";
import { createReporter } from "../../src/pi/report.js";
import { convertRequest, leavesConversation, WITHHELD_TEXT } from "../../src/pi/request.js";
import { DEFAULT_HARDENING, type PiHardening } from "../../src/pi/settings.js";
import { hardenCompaction } from "../../src/pi/summaries.js";
import { recordingCtx } from "../support/pi-context.js";

const pi = { getFlag: () => undefined } as unknown as PiExtensionApi;
const on = (switches: Partial<PiHardening>): PiHardening => ({ ...DEFAULT_HARDENING, ...switches });

const system = { role: "system", content: "You are pi.", timestamp: 1 };
const user = (text: string, timestamp = 2) => ({ role: "user", content: text, timestamp });
const PROMPT = `Please refactor the parser: ${"the dates need seconds; ".repeat(20)}`;
/** pi 1.x's request history (the system message first) and pi 0.73.1's (no system message). */
const HISTORIES = [
	["pi 1.x", [system, user("earlier"), user(PROMPT, 3)]],
	["pi 0.73.1", [user("earlier"), user(PROMPT, 3)]],
] as const;

/** Another extension's plugin that drops every message after the conversion. */
const emptier: Plugin = {
	name: "other-ext:emptier",
	apply: (registry) => {
		registry.hooks.afterConvert.tap("other-ext:emptier", () => []);
	},
};

/** `redactSecrets` whose scanner cannot load, as when @secretlint/core is missing. */
const brokenRedaction: Plugin = redactSecrets({
	loadScanner: () => Promise.reject(new Error("Cannot find package '@secretlint/core'")),
});

async function request(host: ReturnType<typeof createHost>, history: readonly unknown[]) {
	const { ctx, shown, aborted } = recordingCtx();
	const result = await convertRequest(host, createReporter(), [...history], ctx);
	return { result, shown, aborted: aborted() };
}

describe("convertRequest", () => {
	describe.each(HISTORIES)("with a %s history", (_line, history) => {
		it("should withhold the request, abort pi's run and say to raise maxTokens, when maxTokens is below the newest prompt", async () => {
			const { result, shown, aborted } = await request(createHost(pi, on({ maxTokens: 20 })), history);
			expect(aborted).toBe(1);
			expect(JSON.stringify(result.messages)).not.toContain("refactor the parser");
			expect(result.messages.at(-1)).toMatchObject({ content: [{ text: WITHHELD_TEXT }] });
			expect(shown).toHaveLength(1);
			expect(shown[0]?.level).toBe("error");
			const text = shown[0]?.text ?? "";
			expect(text).toContain("request withheld (fail closed): the conversion left nothing of the conversation");
			expect(text).toContain("fits the budget of 20 tokens");
			expect(text).toContain("raise maxTokens");
			expect(text).toContain("It is set with the maxTokens switch");
			expect(text).not.toContain("to withhold such a request instead");
		});

		it("should send the newest prompt and what fits when maxTokens holds it", async () => {
			const { result, shown, aborted } = await request(createHost(pi, on({ maxTokens: 200 })), history);
			expect(aborted).toBe(0);
			expect(shown).toEqual([]);
			expect(result.messages.at(-1)).toEqual(user(PROMPT, 3));
		});

		it.each([
			["redactSecrets whose scanner cannot load", brokenRedaction, "the secret scanner failed"],
			["another extension's plugin that drops everything", emptier, "the conversation"],
		])("should withhold the request when %s leaves no conversation", async (_name, plugin, why) => {
			const host = createHost(pi, DEFAULT_HARDENING);
			host.offer({ from: "other-ext", plugins: [plugin] });
			const { result, shown, aborted } = await request(host, history);
			expect(aborted).toBe(1);
			expect(JSON.stringify(result.messages)).not.toContain("refactor the parser");
			expect(shown.map(({ level }) => level)).toEqual(["error"]);
			expect(shown[0]?.text).toContain(why);
		});
	});

	it("should send a history that holds no conversation as pi would (there was nothing to leave out)", async () => {
		const { result, aborted } = await request(createHost(pi, on({ maxTokens: 5 })), []);
		expect(aborted).toBe(0);
		expect(result.messages).toEqual([]);
	});
});

describe("leavesConversation", () => {
	const roles = fc.constantFrom("system", "user", "assistant", "toolResult", "custom");
	const messages = fc.array(roles.map((role) => ({ role })));

	it("should be false exactly when the output holds only system messages and the history held another", () => {
		fc.assert(
			fc.property(messages, messages, (history, output) => {
				const conversational = (list: { role: string }[]) => list.some((message) => message.role !== "system");
				expect(leavesConversation(history, output)).toBe(conversational(output) || !conversational(history));
			}),
		);
	});

	it("should count a message whose role cannot be read as conversation, and never throw", () => {
		const hostile = new Proxy(
			{},
			{
				get() {
					throw new Error("no");
				},
			},
		);
		expect(leavesConversation([user("hi")], [hostile])).toBe(true);
		expect(leavesConversation([hostile], [])).toBe(false);
	});
});

describe("hardenCompaction", () => {
	it("should cancel a compaction whose messages a failing plugin left out, rather than summarize nothing", async () => {
		const host = createHost(pi, DEFAULT_HARDENING);
		host.offer({ from: "other-ext", plugins: [brokenRedaction] });
		const { ctx, shown } = recordingCtx();
		const preparation = { messagesToSummarize: [user("remember the deploy key")], turnPrefixMessages: [] };
		const result = await hardenCompaction(host, createReporter(), { preparation }, ctx);
		expect(result).toEqual({ cancel: true });
		expect(preparation.messagesToSummarize).toEqual([user("remember the deploy key")]);
		expect(shown[0]?.text).toContain("compaction cancelled (fail closed): the conversion left nothing");
		expect(shown[0]?.text).toContain("the secret scanner failed");
	});

	it("should summarize nothing where a plugin hid every message on purpose, reporting no problem", async () => {
		const host = createHost(pi, DEFAULT_HARDENING);
		host.offer({ from: "other-ext", plugins: [emptier] });
		const { ctx, shown } = recordingCtx();
		const preparation = { messagesToSummarize: [user("my token is sk-live-123")], turnPrefixMessages: [] };
		expect(await hardenCompaction(host, createReporter(), { preparation }, ctx)).toBeUndefined();
		expect(preparation.messagesToSummarize).toEqual([]);
		expect(shown).toEqual([]);
	});
});
