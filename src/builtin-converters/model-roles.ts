import { passThrough } from "../registry/dispatch.js";
import type { Plugin } from "../registry/types.js";

/** Name of the plugin that passes pi-ai's own roles through. */
export const MODEL_ROLES_PLUGIN = "convert-to-llm:model-roles";

/** The roles the model understands as they are. */
export const MODEL_ROLES = Object.freeze(["user", "assistant", "toolResult"] as const);

export { passThrough };

/**
 * Passes `user`, `assistant` and `toolResult` messages through as the same objects, as pi does.
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
		for (const role of MODEL_ROLES) registry.register(role, passThrough, { name: MODEL_ROLES_PLUGIN });
	},
});
