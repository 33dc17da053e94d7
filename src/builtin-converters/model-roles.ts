/** The built-in `modelRoles` plugin: pi-ai's own roles passed through unchanged. */
import { MODEL_ROLES } from "../messages.js";
import { type Plugin, passThrough } from "../registry/index.js";

/** Name of the plugin that passes pi-ai's own roles through. */
export const MODEL_ROLES_PLUGIN = "convert-to-llm:model-roles";

export { MODEL_ROLES, passThrough };

/**
 * Passes `user`, `assistant`, `toolResult` and `system` messages through as the same objects, as pi
 * does (`system` since pi 0.86: the system prompt and the tool list; 0.73.1 histories have none).
 *
 * Contract: part of `defaultPreset`; a bare `createRegistry()` does not include it. Override a role
 * with `registry.register("user", fn, { name, override: true })`; this stays the fallback.
 *
 * @example
 * const user = { role: "user" as const, content: "hi", timestamp: 0 };
 * createRegistry().use(modelRoles).convert([user])[0] === user; // true
 */
export const modelRoles: Plugin = Object.freeze<Plugin>({
	name: MODEL_ROLES_PLUGIN,
	apply(registry) {
		// `system` is a role of pi 1.x's types only; every model role takes `passThrough` alike.
		for (const role of MODEL_ROLES) registry.register(role as "user", passThrough, { name: MODEL_ROLES_PLUGIN });
	},
});
