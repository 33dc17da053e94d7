import type { UserMessage } from "@mariozechner/pi-ai";
import { type BashExecutionMessage, bashExecutionToText } from "../messages.js";
import type { Plugin } from "../registry/types.js";
import { userText } from "./text-message.js";

/** Name of the built-in `bashExecution` plugin. */
export const BASH_EXECUTION_PLUGIN = "convert-to-llm:bash-execution";

/**
 * pi's conversion of a `!` command: one `user` text block from {@link bashExecutionToText};
 * `null` (dropped) when `excludeFromContext` is truthy (`!!`).
 */
export function convertBashExecution(message: BashExecutionMessage): UserMessage | null {
	if (message.excludeFromContext) return null;
	return userText(bashExecutionToText(message), message.timestamp);
}

/** Built-in plugin for role `bashExecution`. */
export const bashExecution: Plugin = Object.freeze<Plugin>({
	name: BASH_EXECUTION_PLUGIN,
	apply(registry) {
		registry.register("bashExecution", convertBashExecution, { name: BASH_EXECUTION_PLUGIN });
	},
});
