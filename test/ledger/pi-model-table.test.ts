/**
 * `piModelTable()`: pi-ai 1.x's catalog as the ledger's model table (prices, cache lifetime, context
 * window, whether a model keeps `system` messages in place), pi-ai 0.73.1's `getModel` when 1.x is missing, nothing
 * when neither knows the model; never a module named by a session's provider string.
 */
import { describe, expect, it } from "vitest";
import { piModelTable } from "../../src/ledger/index.js";

describe("piModelTable", () => {
	it("should read a model's prices, cache lifetime and context window from pi-ai 1.x's catalog", async () => {
		const lookup = piModelTable();

		expect(await lookup("anthropic", "claude-sonnet-4-5")).toEqual({
			cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
			cacheLifetimeSeconds: 300,
			contextWindow: 200_000,
		});
		expect(await lookup("anthropic", "no-such-model")).toBeUndefined();
		expect(await lookup("no-such-provider", "x")).toBeUndefined();
	});

	it("should load each provider's catalog once, and never a module a provider id could point elsewhere", async () => {
		const loaded: string[] = [];
		const lookup = piModelTable(async (specifier) => {
			loaded.push(specifier);
			return {
				ACME_IMAGE_MODELS: {},
				ACME_MODELS: { one: { cost: { input: 1, output: 2, cacheRead: 0.1, cacheWrite: 1.25 } } },
			};
		});

		expect(await lookup("acme", "one")).toEqual({ cost: { input: 1, output: 2, cacheRead: 0.1, cacheWrite: 1.25 } });
		expect(await lookup("acme", "two")).toBeUndefined();
		expect(await lookup("acme", "constructor")).toBeUndefined();
		for (const provider of ["../evil", "ACME", "a/b", ""]) expect(await lookup(provider, "one")).toBeUndefined();
		expect(loaded).toEqual(["@earendil-works/pi-ai/providers/acme.models"]);
	});

	it("should fall back to pi-ai 0.73.1's getModel, and to nothing when no pi-ai loads", async () => {
		const legacy = piModelTable(async (specifier) => {
			if (specifier !== "@mariozechner/pi-ai") throw new Error("not installed");
			return {
				getModel: (provider: string, id: string) => (id === "m" ? { provider, cost: { input: 2 } } : undefined),
			};
		});
		const none = piModelTable(async () => {
			throw new Error("not installed");
		});

		expect(await legacy("openai", "m")).toEqual({ cost: { input: 2 } });
		expect(await legacy("openai", "n")).toBeUndefined();
		expect(await none("anthropic", "claude-sonnet-4-5")).toBeUndefined();
	});
});
