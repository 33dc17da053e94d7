/** The built-in `custom` plugin: extension messages sent as user messages, as pi does. */
import type { UserMessage } from "@earendil-works/pi-ai";
import type { CustomMessage } from "../messages.js";
import type { Plugin } from "../registry/index.js";

/** Name of the built-in `custom` plugin. */
export const CUSTOM_PLUGIN = "convert-to-llm:custom";

/**
 * pi's conversion of an extension message: a `user` message; string content becomes one text block,
 * array content is passed on as the same array. Every custom message is sent, as in every pi version
 * (0.73.1 to 1.6.0); an `excludeFromContext` field is not pi's and is ignored here.
 *
 * Contract: byte-identical to pi 0.73.1 (keys in pi's order); a new message on every call, but array
 * content is the input's own array (`isolate: true` copies it); `customType`, `display` and `details`
 * never reach the model; never `undefined`.
 *
 * @example
 * convertCustom(createCustomMessage("ci", "green", true, undefined, 0));
 * // { role: "user", content: [{ type: "text", text: "green" }], timestamp: 0 }
 */
export function convertCustom(message: CustomMessage): UserMessage | null {
	const content =
		typeof message.content === "string" ? [{ type: "text" as const, text: message.content }] : message.content;
	return { role: "user", content, timestamp: message.timestamp };
}

/**
 * Built-in plugin for role `custom`. Converters registered with `{ customType }` run before it; it is
 * the fallback for every custom message they pass on.
 *
 * Contract: registers {@link convertCustom} as `convert-to-llm:custom`; part of `defaultPreset`; one
 * shared object, so using it twice on a registry does nothing; on a registry that already has a
 * generic `custom` converter, `use()` throws `DuplicateConverterError` (`customType` converters do not
 * count).
 *
 * @example
 * const registry = createRegistry().use(modelRoles).use(custom);
 */
export const custom: Plugin = Object.freeze<Plugin>({
	name: CUSTOM_PLUGIN,
	apply(registry) {
		registry.register("custom", convertCustom, { name: CUSTOM_PLUGIN });
	},
});
