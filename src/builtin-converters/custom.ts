import type { UserMessage } from "@mariozechner/pi-ai";
import type { CustomMessage } from "../messages.js";
import type { Plugin } from "../registry/types.js";

/** Name of the built-in `custom` plugin. */
export const CUSTOM_PLUGIN = "convert-to-llm:custom";

/**
 * pi's conversion of an extension message: a `user` message; string content becomes one text block,
 * array content is passed on as the same array; `null` (dropped) when `excludeFromContext` is truthy
 * (pi after 0.73.1; 0.73.1 histories never carry the field).
 */
export function convertCustom(message: CustomMessage): UserMessage | null {
	if (message.excludeFromContext) return null;
	const content =
		typeof message.content === "string" ? [{ type: "text" as const, text: message.content }] : message.content;
	return { role: "user", content, timestamp: message.timestamp };
}

/**
 * Built-in plugin for role `custom`. Converters registered with `{ customType }` run before it; it is
 * the fallback for every custom message they pass on.
 */
export const custom: Plugin = Object.freeze<Plugin>({
	name: CUSTOM_PLUGIN,
	apply(registry) {
		registry.register("custom", convertCustom, { name: CUSTOM_PLUGIN });
	},
});
