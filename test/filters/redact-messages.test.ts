/**
 * `redactMessages`: `redactSecrets` as a function over a pi-ai `Message[]`; and the plugin factory,
 * given a `messages` key or an option it does not take, refusing it by name.
 */
import type { Message } from "@earendil-works/pi-ai";
import { describe, expect, it } from "vitest";
import { redactMessages } from "../../src/filters/index.js";
import { REDACT_SECRETS_PLUGIN, redactSecrets } from "../../src/filters/redact-secrets.js";
import { ConversionError, InvalidPluginError } from "../../src/index.js";
import { assistant, user } from "../support/fixtures.js";
import { SECRETS } from "../support/secret-corpus.js";

const stripe = SECRETS.find((s) => s.kind === "stripe-live-secret-key") as (typeof SECRETS)[number];

describe("redactMessages", () => {
	it("should redact a plain Message[] and leave it as it was", async () => {
		const messages: Message[] = [
			user(`deploy with ${stripe.text}`),
			assistant([
				{ type: "toolCall", id: "c1", name: "bash", arguments: { env: { STRIPE_SECRET_KEY: stripe.value } } },
			]),
		];
		const before = JSON.stringify(messages);
		const redacted = await redactMessages(messages);
		expect(JSON.stringify(redacted)).not.toContain(stripe.value);
		expect(redacted[0]?.content).toBe("deploy with STRIPE_SECRET_KEY=[REDACTED:stripe-secret-key-live#1]");
		expect(JSON.stringify(messages)).toBe(before);
	});

	it("should take the options of redactSecrets", async () => {
		const [message] = await redactMessages([user("pw hunter2hunter2")], { values: ["hunter2hunter2"] });
		expect(message?.content).toBe("pw [REDACTED:secret#1]");
	});

	it("should reject with the problem when the scanner fails, rather than resolve with less", async () => {
		const failing = redactMessages([user("hello")], {
			loadScanner: () => Promise.reject(new Error("not installed")),
		});
		await expect(failing).rejects.toBeInstanceOf(ConversionError);
		await expect(failing).rejects.toThrow(/not installed/);
	});
});

describe("redactSecrets options", () => {
	it("should refuse a messages key and name the function to call", () => {
		const call = () => redactSecrets({ messages: [user("x")] } as never);
		expect(call).toThrow(InvalidPluginError);
		expect(call).toThrow(/redactMessages\(messages, options\)/);
	});

	it.each([
		[{ replacemnt: "[x]" }, /unknown option "replacemnt"; the options are patterns, allow, replacement/],
		[{ patterns: [{ id: "x", pattern: "abc" }] }, /pattern .* is not \{ id: string, pattern: RegExp \}/],
		[{ allow: "AKIA" }, /allow is .*, not a list of strings and RegExps/],
		[{ replacement: 42 }, /replacement is .*, not a string or a function/],
		[{ values: [1, 2] }, /values is .*, not a list of strings or a function/],
		[{ env: "yes" }, /env is .*, not true, false or an environment object/],
		[{ envFiles: ".env" }, /envFiles is .*, not true, false or a list of paths/],
		[[], /the options are .*, not an object/],
	])("should refuse %j", (options, message) => {
		let thrown: unknown;
		try {
			redactSecrets(options as never);
		} catch (error) {
			thrown = error;
		}
		expect(thrown).toBeInstanceOf(InvalidPluginError);
		expect((thrown as InvalidPluginError).plugin).toBe(REDACT_SECRETS_PLUGIN);
		expect((thrown as Error).message).toMatch(message);
	});
});
