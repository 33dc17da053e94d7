/**
 * The context window on the report's chart: the session's model looked up in pi-ai's model table, and
 * a reason, never a guess, for a model it does not know or a history that does not say.
 */
import { describe, expect, it } from "vitest";
import { contextWindowOf, lastModel } from "../../src/report/context-window.js";

describe("contextWindowOf", () => {
	it("should give the window of a model pi-ai knows, saying where the figure comes from", async () => {
		expect(await contextWindowOf({ provider: "anthropic", modelId: "claude-sonnet-4-5" })).toEqual({
			tokens: 200_000,
			model: "anthropic/claude-sonnet-4-5",
			source: "pi-ai's model table",
		});
	});

	it.each([
		[
			{ provider: "acme", modelId: "house-model-7" },
			"acme/house-model-7, the session's model, is not in pi-ai's model table (or no pi-ai is installed)",
		],
		[null, "the history does not say which model it is for"],
		[undefined, "the history does not say which model it is for"],
	])("should say why there is no window for %j", async (model, why) => {
		const window = await contextWindowOf(model);
		expect(window.tokens).toBeUndefined();
		expect(window.why).toBe(why);
	});
});

describe("lastModel", () => {
	it("should take the model of the last assistant message of a history", () => {
		expect(
			lastModel([
				{ role: "assistant", provider: "openai", model: "gpt-5" },
				{ role: "user", content: "x" },
				{ role: "assistant", provider: "anthropic", model: "claude-sonnet-4-5" },
				{ role: "toolResult" },
			]),
		).toEqual({ provider: "anthropic", modelId: "claude-sonnet-4-5" });
		expect(lastModel([{ role: "user", content: "x" }, null])).toBeUndefined();
	});
});
