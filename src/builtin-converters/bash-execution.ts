/** The built-in `bashExecution` plugin: pi's `!` runs as user text, `!!` runs excluded. */
import type { UserMessage } from "@earendil-works/pi-ai";
import { type BashExecutionMessage, bashExecutionToText } from "../messages.js";
import type { Plugin } from "../registry/index.js";
import { bashTextMemo } from "./bash-text-memo.js";
import { userText } from "./text-message.js";

/** Name of the built-in `bashExecution` plugin. */
export const BASH_EXECUTION_PLUGIN = "convert-to-llm:bash-execution";

/**
 * pi's conversion of a `!` command: one `user` text block from {@link bashExecutionToText};
 * `null` (dropped) when `excludeFromContext` is truthy (`!!`), for direct callers: in a registry, the
 * plugin's exclusion drops such runs before any converter is asked.
 *
 * Contract: byte-identical to pi 0.73.1 (keys in pi's order); a new message on every call; never
 * `undefined`, so as the fallback of an override it has the last word.
 *
 * @example
 * convertBashExecution({ role: "bashExecution", command: "ls", output: "a.txt", exitCode: 0,
 *   cancelled: false, truncated: false, timestamp: 0 });
 * // { role: "user", content: [{ type: "text", text: "Ran `ls`\n```\na.txt\n```" }], timestamp: 0 }
 */
export function convertBashExecution(message: BashExecutionMessage): UserMessage | null {
	if (message.excludeFromContext) return null;
	return userText(bashExecutionToText(message), message.timestamp);
}

/**
 * Built-in plugin for role `bashExecution`: registers {@link convertBashExecution} as
 * `convert-to-llm:bash-execution` (each registry with its own memo of the runs' texts, see
 * {@link bashTextMemo}: the same output, built once per run), and excludes the role's `!!` runs (`excludeFromContext` truthy)
 * with `registry.exclude`, so the registry drops them before any converter runs: an override such
 * as `safeFences()`, or one of your own, never sees them, nor do taps in `ctx.input`.
 *
 * Contract: part of `defaultPreset`; one shared object, so using it twice on a registry does nothing;
 * on a registry that already converts the role, `use()` throws `DuplicateConverterError`. Replace its
 * output with an override (as `safeFences()` does): it stays the fallback.
 *
 * @example
 * const registry = createRegistry().use(modelRoles).use(bashExecution);
 */
export const bashExecution: Plugin = Object.freeze<Plugin>({
	name: BASH_EXECUTION_PLUGIN,
	apply(registry) {
		registry.exclude("bashExecution", { name: BASH_EXECUTION_PLUGIN });
		const textOf = bashTextMemo();
		registry.register(
			"bashExecution",
			function convertBashExecution(message: BashExecutionMessage): UserMessage | null {
				if (message.excludeFromContext) return null;
				return userText(textOf(message), message.timestamp);
			},
			{ name: BASH_EXECUTION_PLUGIN },
		);
	},
});
