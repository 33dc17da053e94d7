/** The `excludeCustomMessages` plugin: drops `custom` messages marked `excludeFromContext` before any converter runs. */
import type { Plugin } from "../registry/index.js";

/** Name of the {@link excludeCustomMessages} plugin (the `plugin` of every message it excludes). */
export const EXCLUDE_CUSTOM_MESSAGES_PLUGIN = "convert-to-llm:exclude-custom-messages";

/**
 * Excludes from context every `custom` message whose `excludeFromContext` is truthy, as pi excludes
 * a `!!` bash run: shown and stored, never sent.
 *
 * Contract: no published pi version has the field on custom messages (pi sends them all), so this is
 * opt-in and the default preset keeps pi's behaviour. With it, the registry drops such a message
 * before any converter runs (`customType` and override converters included: none can forget the
 * rule), hides it from `ctx.input` and `ctx.messages` (as `undefined`), reports nothing, and
 * `explain` lists it as `dropped: "excluded"` by this plugin. It is `registry.exclude("custom", { name })`.
 *
 * @example
 * const registry = createDefaultRegistry().use(excludeCustomMessages());
 * registry.convert([{ ...createCustomMessage("vault", "token=…", true, undefined, 0), excludeFromContext: true }]); // []
 */
export function excludeCustomMessages(): Plugin {
	return {
		name: EXCLUDE_CUSTOM_MESSAGES_PLUGIN,
		apply(registry) {
			registry.exclude("custom", { name: EXCLUDE_CUSTOM_MESSAGES_PLUGIN });
		},
	};
}
