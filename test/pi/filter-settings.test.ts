/**
 * The pi extension's filter settings: `"convertToLlm": { "redactSecrets": true, "maxTokens": N,
 * "prune": { … } }` in settings.json (and `redactSecrets`, `maxTokens=N` in the flag) add the
 * filters to the registry every request goes through; bad values are problems and stay off.
 */
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { describe, expect, it } from "vitest";
import { createHost } from "../../src/pi/host.js";
import type { PiExtensionApi } from "../../src/pi/pi-api.js";
import { DEFAULT_HARDENING, hardeningText, readHardening } from "../../src/pi/settings.js";
import { assistant, bashExecution, user } from "../support/fixtures.js";
import { SECRETS } from "../support/secret-corpus.js";

function piReading(flag: unknown, settings?: unknown): PiExtensionApi {
	const pi = { getFlag: () => flag } as unknown as PiExtensionApi;
	if (settings !== undefined) pi.getSettings = () => settings;
	return pi;
}

describe("readHardening (filters)", () => {
	it("should read redactSecrets, maxTokens and prune from settings.json", () => {
		const prune = { reasoning: "before-last-message", toolCalls: "before-last-2-messages" };
		const { hardening, problems } = readHardening(
			piReading(undefined, { convertToLlm: { redactSecrets: true, maxTokens: 120000, prune } }),
		);
		expect(problems).toEqual([]);
		expect(hardening).toEqual({ ...DEFAULT_HARDENING, redactSecrets: true, maxTokens: 120000, prune });
		expect(hardeningText(hardening)).toBe(
			"redactSecrets, maxTokens=120000 (step 30000 tokens), prune (step 10 messages)",
		);
	});

	it("should read redactSecrets and maxTokens=N from the flag", () => {
		const { hardening, problems } = readHardening(piReading("redactSecrets,maxTokens=5000"));
		expect(problems).toEqual([]);
		expect(hardening).toMatchObject({ redactSecrets: true, maxTokens: 5000 });
	});

	it.each([
		[{ redactSecrets: "yes" }, "redactSecrets"],
		[{ maxTokens: -1 }, "maxTokens"],
		[{ prune: { reasoning: "some" } }, "prune"],
	])("should report %j and leave that filter off", (settings, key) => {
		const { hardening, problems } = readHardening(piReading(undefined, { convertToLlm: settings }));
		expect(hardening).toEqual(DEFAULT_HARDENING);
		expect(problems).toEqual([expect.stringContaining(`convertToLlm.${key}`)]);
	});
});

describe("createHost (filters)", () => {
	it("should redact, prune and trim what every request sends", async () => {
		const hardening = {
			...DEFAULT_HARDENING,
			redactSecrets: true,
			maxTokens: 10_000,
			prune: { reasoning: "all" as const },
		};
		const { registry } = createHost(piReading(undefined), hardening).build();
		const history: AgentMessage[] = [
			user("deploy"),
			assistant([
				{ type: "thinking", thinking: "hm", thinkingSignature: "s" },
				{ type: "text", text: "ok" },
			]),
			bashExecution({ command: "cat .env", output: SECRETS[0]?.text ?? "" }),
		];
		const explanation = await registry.explainAsync(history);
		const sent = JSON.stringify(explanation.output);
		expect(sent).not.toContain(SECRETS[0]?.value);
		expect(sent).toContain("[REDACTED:aws-secret-access-key#1]");
		expect(sent).not.toContain('"thinking"');
		expect(explanation.taps.map((tap) => tap.plugin)).toEqual([
			"convert-to-llm:prune-messages",
			"convert-to-llm:trim-to-tokens",
			"convert-to-llm:redact-secrets",
		]);
	});
});
