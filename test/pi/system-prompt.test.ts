/**
 * The system prompt guard of pi 0.73.1 (`before_agent_start`), in-process: the prompt pi passes on
 * is returned redacted while `redactSecrets` is on, and a prompt that cannot be scanned withholds the
 * turn. The same guard in the real pi CLIs: test/pi/filters-e2e.test.ts (a secret in AGENTS.md).
 */
import { describe, expect, it } from "vitest";
import type { Plugin } from "../../src/index.js";
import { createHost } from "../../src/pi/host.js";
import type { PiContext, PiExtensionApi } from "../../src/pi/pi-api.js";
import { createReporter } from "../../src/pi/report.js";
import { DEFAULT_HARDENING, type PiHardening } from "../../src/pi/settings.js";
import { systemPromptGuard, WITHHELD_SYSTEM_PROMPT } from "../../src/pi/system-prompt.js";
import { recordingCtx } from "../support/pi-context.js";
import { SECRETS } from "../support/secret-corpus.js";

const pi = { getFlag: () => undefined } as unknown as PiExtensionApi;
const on = (switches: Partial<PiHardening>): PiHardening => ({ ...DEFAULT_HARDENING, ...switches });
const github = SECRETS.find((s) => s.kind === "github-classic-token") as (typeof SECRETS)[number];

const PROMPT = `You are a coding agent.\n\n# AGENTS.md\nDeploy with ${github.text}\nBe brief.`;

describe("systemPromptGuard", () => {
	it("should return the prompt with its secrets redacted while redactSecrets is on", async () => {
		const guard = systemPromptGuard(createHost(pi, on({ redactSecrets: true })), createReporter(), 10_000);
		const { ctx, shown } = recordingCtx();
		const result = await guard.handle({ systemPrompt: PROMPT }, ctx);
		expect(result?.systemPrompt).not.toContain(github.value);
		expect(result?.systemPrompt).toBe(PROMPT.replace(github.value, "[REDACTED:github-token#1]"));
		expect(guard.withheld()).toBeUndefined();
		expect(shown).toEqual([]);
	});

	it.each([
		["the switch is off", DEFAULT_HARDENING, PROMPT],
		["the prompt has no secret", on({ redactSecrets: true }), "You are a coding agent. Be brief."],
		["the prompt is empty", on({ redactSecrets: true }), ""],
		["the prompt is not a string", on({ redactSecrets: true }), 42],
	])("should leave pi's prompt as it is when %s", async (_name, hardening, prompt) => {
		const guard = systemPromptGuard(createHost(pi, hardening), createReporter(), 10_000);
		const { ctx, shown } = recordingCtx();
		expect(await guard.handle({ systemPrompt: prompt }, ctx)).toBeUndefined();
		expect(shown).toEqual([]);
	});

	it("should withhold the turn, say why, and abort when the prompt cannot be scanned; the next turn is scanned again", async () => {
		let fail = true;
		const flaky = (): Plugin => ({
			name: "test:flaky-scanner",
			apply(registry) {
				registry.hooks.afterConvertAsync.tapPromise("test:flaky-scanner", async (messages) => {
					if (fail) throw new Error("scanner not installed");
					return messages;
				});
			},
		});
		const guard = systemPromptGuard(createHost(pi, on({ redactSecrets: true })), createReporter(), 10_000, flaky);
		const { ctx, shown, aborted } = recordingCtx();
		expect(await guard.handle({ systemPrompt: PROMPT }, ctx)).toEqual({ systemPrompt: WITHHELD_SYSTEM_PROMPT });
		expect(aborted()).toBe(1);
		expect(guard.withheld()).toContain("its system prompt could not be scanned for secrets");
		expect(shown).toHaveLength(1);
		expect(shown[0]?.level).toBe("error");
		expect(shown[0]?.text).toContain("request withheld (fail closed)");
		expect(shown[0]?.text).toContain("scanner not installed");
		fail = false;
		expect(await guard.handle({ systemPrompt: "No secret here." }, ctx)).toBeUndefined();
		expect(guard.withheld()).toBeUndefined();
	});

	it("should withhold the turn when the scan does not finish in time", async () => {
		const never = (): Plugin => ({
			name: "test:never",
			apply(registry) {
				registry.hooks.afterConvertAsync.tapPromise("test:never", () => new Promise(() => {}));
			},
		});
		const guard = systemPromptGuard(createHost(pi, on({ redactSecrets: true })), createReporter(), 50, never);
		const { ctx } = recordingCtx();
		expect(await guard.handle({ systemPrompt: PROMPT }, ctx)).toEqual({ systemPrompt: WITHHELD_SYSTEM_PROMPT });
		expect(guard.withheld()).toBeDefined();
	});

	describe("check, before each request", () => {
		const withPrompt = (prompt: unknown) => ({ ...recordingCtx().ctx, getSystemPrompt: () => prompt }) as PiContext;

		it("should pass the prompt it redacted, and a clean prompt it never saw", async () => {
			const guard = systemPromptGuard(createHost(pi, on({ redactSecrets: true })), createReporter(), 10_000);
			const result = await guard.handle({ systemPrompt: PROMPT }, recordingCtx().ctx);
			await expect(guard.check(withPrompt(result?.systemPrompt))).resolves.toBeUndefined();
			await expect(guard.check(withPrompt("A prompt no handler saw, with no secret."))).resolves.toBeUndefined();
		});

		it("should reject a prompt holding a secret that did not pass through before_agent_start", async () => {
			const guard = systemPromptGuard(createHost(pi, on({ redactSecrets: true })), createReporter(), 10_000);
			await expect(guard.check(withPrompt(PROMPT))).rejects.toThrow("its system prompt holds a secret");
		});

		it("should reject every request of a turn whose prompt was withheld", async () => {
			const failing = (): Plugin => ({
				name: "test:failing",
				apply(registry) {
					registry.hooks.afterConvertAsync.tapPromise("test:failing", async () => {
						throw new Error("no scanner");
					});
				},
			});
			const guard = systemPromptGuard(
				createHost(pi, on({ redactSecrets: true })),
				createReporter(),
				10_000,
				failing,
			);
			await guard.handle({ systemPrompt: PROMPT }, recordingCtx().ctx);
			await expect(guard.check(withPrompt(WITHHELD_SYSTEM_PROMPT))).rejects.toThrow("could not be scanned");
		});

		it("should ask nothing with the switch off, or where pi gives no system prompt", async () => {
			const off = systemPromptGuard(createHost(pi, DEFAULT_HARDENING), createReporter(), 10_000);
			await expect(off.check(withPrompt(PROMPT))).resolves.toBeUndefined();
			const on_ = systemPromptGuard(createHost(pi, on({ redactSecrets: true })), createReporter(), 10_000);
			await expect(on_.check(recordingCtx().ctx)).resolves.toBeUndefined();
		});
	});
});
