/** The types of `redactSecrets` and `redactMessages`: the call shape beside the plugin, and misuse refused by the compiler. */
import type { Message } from "@earendil-works/pi-ai";
import { describe, expectTypeOf, it } from "vitest";
import { type RedactSecretsOptions, redactMessages, redactSecrets } from "../../src/filters/index.js";
import type { Plugin } from "../../src/index.js";

describe("redactSecrets types", () => {
	it("should make a plugin, and redactMessages a promise of messages", () => {
		expectTypeOf(redactSecrets({ env: true, envFiles: [".env"], values: () => ["k"] })).toEqualTypeOf<Plugin>();
		expectTypeOf(redactMessages).returns.toEqualTypeOf<Promise<Message[]>>();
		expectTypeOf<RedactSecretsOptions["replacement"]>().toExtend<
			string | ((kind: string, secret: string, number: number) => string) | undefined
		>();
	});

	it("should refuse messages and options it does not take", () => {
		// @ts-expect-error: a plugin factory takes no messages; call redactMessages(messages, options).
		redactSecrets({ messages: [] });
		// @ts-expect-error: a misspelled option.
		redactSecrets({ replacemnt: "[x]" });
	});
});
