/**
 * The default preset: pi-coding-agent 0.73.1's conversion, as ordinary plugins.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import type { Message } from "@mariozechner/pi-ai";
import { bashExecution, branchSummary, compactionSummary, custom, modelRoles } from "./builtin-converters/index.js";
import { createRegistry } from "./registry/create-registry.js";
import type { Plugin, Registry, RegistryOptions } from "./registry/types.js";

/**
 * The built-in plugins, as data: pi-ai's roles passed through, then `bashExecution`, `custom`,
 * `branchSummary` and `compactionSummary` converted as pi 0.73.1 does.
 *
 * Contract: `createDefaultRegistry()` is `createRegistry()` plus `use()` of each, in this order; the
 * list is frozen, so build your own list (`[...defaultPreset, mine]`) to change it.
 */
export const defaultPreset: readonly Plugin[] = Object.freeze([
	modelRoles,
	bashExecution,
	custom,
	branchSummary,
	compactionSummary,
]);

/** Options of {@link createDefaultRegistry}. */
export interface DefaultRegistryOptions extends RegistryOptions {
	/** Plugins to `use()` after the preset. */
	plugins?: readonly Plugin[];
}

/**
 * A registry with the default preset: converts exactly as pi-coding-agent 0.73.1's `convertToLlm`.
 *
 * @example
 * const registry = createDefaultRegistry().use(blockImages({ enabled: () => settings.blockImages }));
 * const agent = new Agent({ convertToLlm: registry.convert });
 */
export function createDefaultRegistry(options: DefaultRegistryOptions = {}): Registry {
	const registry = createRegistry(options);
	for (const plugin of defaultPreset) registry.use(plugin);
	for (const plugin of options.plugins ?? []) registry.use(plugin);
	return registry;
}

const shared = createDefaultRegistry();

/**
 * pi-coding-agent 0.73.1's `convertToLlm`, on the default preset: same output on every well-typed
 * history. Never throws: malformed entries and unknown roles are dropped, as pi's `switch` drops
 * unknown roles. Use `createDefaultRegistry()` to add plugins or see problems on `hooks.error`.
 */
export const convertToLlm = (messages: AgentMessage[]): Message[] => shared.convert(messages);
