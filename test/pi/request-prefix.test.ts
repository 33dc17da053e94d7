/**
 * The extension converts each request against the one it sent last in the session
 * (`runAsync(history, { previous })`): the first time a plugin breaks the prompt prefix it says which,
 * what it costs and the step that avoids it, once per plugin and session; a break never withholds a
 * request, strict or not. `/llm-context` says what the next request reuses and what it is billed.
 * The real pi CLIs are test/pi/prompt-cache-e2e.test.ts.
 */
import { describe, expect, it } from "vitest";
import { ErrorCode, type Plugin } from "../../src/index.js";
import { runCommand } from "../../src/pi/command.js";
import { createHost } from "../../src/pi/host.js";
import type { PiContext, PiExtensionApi } from "../../src/pi/pi-api.js";
import { createReporter } from "../../src/pi/report.js";
import { convertRequest } from "../../src/pi/request.js";
import { createSessionRequests } from "../../src/pi/session-requests.js";
import { DEFAULT_HARDENING, type PiHardening } from "../../src/pi/settings.js";
import { recordingCtx } from "../support/pi-context.js";

const pi = { getFlag: () => undefined } as unknown as PiExtensionApi;
const on = (switches: Partial<PiHardening>): PiHardening => ({ ...DEFAULT_HARDENING, ...switches });
const MODEL = { provider: "fake", id: "fake-model" };
const system = { role: "system", content: "You are pi.", timestamp: 0 };

/** pi 1.x's history after `turns` turns, each a prompt of 400 characters and a short answer. */
function history(turns: number): unknown[] {
	const messages: unknown[] = [system];
	for (let t = 0; t < turns; t++) {
		messages.push({ role: "user", content: `prompt ${t} ${"word ".repeat(80)}`, timestamp: t + 1 });
		messages.push({
			role: "assistant",
			content: [{ type: "text", text: `answer ${t}` }],
			usage: { input: 100 + t * 110, output: 5, cacheRead: 0, cacheWrite: 0 },
			stopReason: "stop",
			timestamp: t + 1,
		});
	}
	return messages;
}

/** A session of `turns` requests with `switches`: each prompt converted, then its answer billed. */
async function session(switches: Partial<PiHardening>, turns: number, offered: Plugin[] = []) {
	const host = createHost(pi, on(switches));
	if (offered.length > 0) host.offer({ from: "other-ext", plugins: offered });
	const reporter = createReporter();
	const requests = createSessionRequests();
	const { ctx, shown, aborted } = recordingCtx();
	(ctx as { model?: unknown }).model = MODEL;
	const sent: unknown[][] = [];
	for (let t = 1; t <= turns; t++) {
		const whole = history(t);
		const result = await convertRequest(host, reporter, whole.slice(0, -1), ctx, requests);
		sent.push(result.messages);
		requests.ended(whole.at(-1));
	}
	return { host, reporter, requests, ctx, shown, aborted: aborted(), sent };
}

const warnings = (shown: readonly { text: string; level: string | undefined }[]) =>
	shown.filter(({ level }) => level === "warning").map(({ text }) => text);

describe("convertRequest against the previous request", () => {
	it("should say once per session that maxTokens without a step breaks the prompt cache, with its cost and the step to set", async () => {
		const { shown, aborted, sent } = await session({ maxTokens: 600, maxTokensStep: 0 }, 12);
		expect(aborted).toBe(0);
		expect(sent).toHaveLength(12);
		const told = warnings(shown);
		expect(told).toHaveLength(1);
		expect(told[0]).toMatch(
			/^convert-to-llm: "convert-to-llm:trim-to-tokens" broke the prompt cache: it changed message #1 of the \d+ messages the previous request sent, so the provider bills this request from there on \(~[\d,]+ tokens, calibrated on \d+ billed requests\) as a cache write \(about 1\.25× the input price\) instead of a cache read \(about 0\.1×\)\. maxTokens moves its window with every message because maxTokensStep is 0: leave maxTokensStep out \(a quarter of maxTokens, 150\) or set one, e\.g\. "maxTokensStep": 150 under "convertToLlm" in settings\.json, or maxTokensStep=150 in --convert-to-llm/,
		);
	});

	it("should send every request under strict even when the prefix breaks on each", async () => {
		const { shown, aborted, sent } = await session({ maxTokens: 600, maxTokensStep: 0, strict: true }, 12);
		expect(aborted).toBe(0);
		expect(shown.filter(({ level }) => level === "error")).toEqual([]);
		expect(sent.every((messages) => JSON.stringify(messages).includes("prompt"))).toBe(true);
	});

	it("should keep the prefix with maxTokens' default step: fewer breaks, and the notice naming the step", async () => {
		const plain = await session({ maxTokens: 1200, maxTokensStep: 0 }, 30);
		const stepped = await session({ maxTokens: 1200 }, 30);
		const breaks = (sent: unknown[][]) => {
			let count = 0;
			for (let i = 1; i < sent.length; i++) {
				const before = (sent[i - 1] as unknown[]).map((m) => JSON.stringify(m));
				const now = (sent[i] as unknown[]).map((m) => JSON.stringify(m));
				if (before.some((message, k) => now[k] !== message)) count++;
			}
			return count;
		};
		expect(breaks(stepped.sent)).toBeLessThan(breaks(plain.sent) / 2);
		expect(warnings(stepped.shown)[0]).toContain(
			"maxTokens moves its window in steps of 300 tokens (maxTokensStep), so this happens once per 300 tokens the conversation grows",
		);
	});

	it("should say it again in a new session, and never for a break the history made", async () => {
		const { host, reporter, requests, ctx, shown } = await session({ maxTokens: 600, maxTokensStep: 0 }, 12);
		expect(warnings(shown)).toHaveLength(1);
		// The history changes under the last request (a compaction): a break, but not a filter's.
		const compacted = [system, { role: "user", content: "summary of it all", timestamp: 99 }];
		await convertRequest(host, reporter, compacted, ctx, requests);
		expect(warnings(shown)).toHaveLength(1);
		requests.reset();
		for (let t = 1; t <= 12; t++) {
			await convertRequest(host, reporter, history(t).slice(0, -1), ctx, requests);
			requests.ended(history(t).at(-1));
		}
		expect(warnings(shown)).toHaveLength(2);
	});

	it("should name the extension that offered a plugin that breaks the prefix", async () => {
		const stamp: Plugin = {
			name: "other-ext:stamp",
			apply(registry) {
				let n = 0;
				registry.hooks.afterConvert.tap("other-ext:stamp", (messages) =>
					messages.map((message, i) => (i === 1 ? { ...message, timestamp: n++ } : message)),
				);
			},
		};
		const { shown } = await session({}, 3, [stamp]);
		const told = warnings(shown);
		expect(told).toHaveLength(1);
		expect(told[0]).toContain('"other-ext:stamp" broke the prompt cache');
		expect(told[0]).toContain("It was offered by other-ext, which has no step switch here");
	});

	it("should not show the registry's prefix notice as a problem of the request", async () => {
		const { shown } = await session({ maxTokens: 600, maxTokensStep: 0 }, 12);
		expect(shown.map(({ text }) => text).join("\n")).not.toContain("The prompt prefix breaks at message");
		expect(ErrorCode.PREFIX_BREAK).toBe("CONVERT_TO_LLM_PREFIX_BREAK");
	});
});

describe("runCommand's prompt cache section", () => {
	async function view(
		requests: ReturnType<typeof createSessionRequests>,
		host: ReturnType<typeof createHost>,
		messages: unknown[],
	) {
		const shown: string[] = [];
		const ctx = {
			hasUI: true,
			mode: "rpc",
			cwd: "/",
			model: MODEL,
			ui: { notify: (text: string) => shown.push(text) },
			sessionManager: { getSessionFile: () => undefined, buildSessionContext: () => ({ messages }) },
			abort() {},
		} as unknown as PiContext;
		await runCommand(host, createReporter(), "", ctx, undefined, requests);
		const text = shown[0] ?? "";
		const lines = text.split("\n");
		// Just above the footer's counts, which stay the view's last two lines.
		const footer = lines.findIndex((line) => /^── \d+ model messages? from/.test(line));
		expect(footer).toBe(lines.length - 2);
		const headings = lines.slice(0, footer).flatMap((line, i) => (line.startsWith("── ") ? [i] : []));
		expect(headings.at(-1)).toBe(lines.indexOf("── Prompt cache and billed tokens"));
		return text.slice(text.indexOf("── Prompt cache and billed tokens")).split("\n   ").join(" ");
	}

	it("should say before the first request that nothing is known of the cache or the bill", async () => {
		const text = await view(createSessionRequests(), createHost(pi, DEFAULT_HARDENING), history(1).slice(0, -1));
		expect(text).toContain("reuse: the extension has sent no request in this session yet");
		expect(text).toMatch(
			/next request: ~[\d,]+ tokens by pi's estimate \(chars\/4\) · no calibrated count yet: no bill seen in this session/,
		);
		expect(text).toContain("last request: no bill seen in this session yet.");
	});

	it("should say the next request repeats the last one, with each counter's tokens and the last bill side by side", async () => {
		const { requests, host } = await session({}, 4);
		const text = await view(requests, host, history(4));
		expect(text).toMatch(
			/reuse: the next request repeats the 8 messages the last one sent \(~[\d,]+ tokens, calibrated on 4 billed requests\) as its prefix/,
		);
		expect(text).toMatch(
			/next request: ~[\d,]+ tokens by pi's estimate \(chars\/4\) · ~[\d,]+ tokens, calibrated on 4 billed requests/,
		);
		expect(text).toMatch(
			/last request \(8 messages\): billed 430 tokens \(input \+ cacheRead \+ cacheWrite\) · pi's estimate \(chars\/4\) [\d,]+ \([+-][\d.]+% from the bill\) · calibrated [\d,]+ \([+-][\d.]+% from the bill; calibrated on 3 billed requests\)/,
		);
	});

	it("should say where the next request breaks the prefix, which plugin breaks it, and the step that avoids it", async () => {
		const { requests, host } = await session({ maxTokens: 600, maxTokensStep: 0 }, 12);
		const text = await view(requests, host, [...history(12), ...history(13).slice(-2, -1)]);
		expect(text).toMatch(
			/reuse: the next request repeats 1 of the \d+ messages the last one sent \(~[\d,]+ tokens, calibrated on 12 billed requests\), then differs at #1 \("convert-to-llm:trim-to-tokens" changed it\): the rest \(~[\d,]+ tokens, calibrated on 12 billed requests\) goes as a cache write/,
		);
		expect(text).toContain("leave maxTokensStep out (a quarter of maxTokens, 150)");
	});

	it("should say nothing is known for another model than the one the last request went to", async () => {
		const { requests, host } = await session({}, 2);
		const shown: string[] = [];
		const ctx = {
			hasUI: true,
			mode: "rpc",
			cwd: "/",
			model: { provider: "fake", id: "other-model" },
			ui: { notify: (text: string) => shown.push(text) },
			sessionManager: { getSessionFile: () => undefined, buildSessionContext: () => ({ messages: history(2) }) },
			abort() {},
		} as unknown as PiContext;
		await runCommand(host, createReporter(), "", ctx, undefined, requests);
		const text = (shown[0] ?? "").split("\n   ").join(" ");
		expect(text).toContain(
			"reuse: the extension has sent no request in this session yet (or since /reload, or to this model)",
		);
		expect(text).toContain("no calibrated count (calibrated on fake/fake-model, not on fake/other-model)");
	});
});

it("should convert the same history to the same request whatever came before (no state in the conversion)", async () => {
	const { host, reporter, requests, ctx } = await session({ maxTokens: 600 }, 6);
	const again = await convertRequest(host, reporter, history(6).slice(0, -1), ctx, requests);
	const fresh = await convertRequest(host, createReporter(), history(6).slice(0, -1), recordingCtx().ctx);
	expect(again.messages).toEqual(fresh.messages);
});
