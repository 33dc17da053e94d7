/**
 * The default preset: pi-coding-agent 0.73.1's conversion, as ordinary plugins.
 */
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { Message } from "@earendil-works/pi-ai";
import { bashExecution, branchSummary, compactionSummary, custom, modelRoles } from "./builtin-converters/index.js";
import { createRegistry, type Plugin, type Registry, type RegistryOptions } from "./registry/index.js";

/**
 * The built-in plugins, as data: pi-ai's roles passed through, then `bashExecution`, `custom`,
 * `branchSummary` and `compactionSummary` converted as pi 0.73.1 does.
 *
 * Contract: `createDefaultRegistry()` is `createRegistry()` plus `use()` of each, in this order; the
 * list is frozen, so build your own list (`[...defaultPreset, mine]`) to change it.
 *
 * @example
 * const registry = createRegistry({ strict: true });
 * for (const plugin of [...defaultPreset, artifacts]) registry.use(plugin);
 */
export const defaultPreset: readonly Plugin[] = Object.freeze([
	modelRoles,
	bashExecution,
	custom,
	branchSummary,
	compactionSummary,
]);

/**
 * Options of {@link createDefaultRegistry}: those of `createRegistry`, plus plugins to use.
 *
 * Contract: `strict` and `isolate` apply to the whole registry, preset included; `plugins` are
 * `use()`d after the preset, in order, so they can override its converters (`override: true`).
 *
 * @example
 * createDefaultRegistry({ isolate: true, plugins: [escapeSummaries(), safeFences()] });
 */
export interface DefaultRegistryOptions extends RegistryOptions {
	/** Plugins to `use()` after the preset. */
	plugins?: readonly Plugin[];
}

/**
 * A registry with the default preset: converts exactly as pi-coding-agent 0.73.1's `convertToLlm`.
 *
 * Contract: a new registry on every call, sharing nothing: `createRegistry(options)`, then `use()` of
 * each plugin of `defaultPreset`, then of each of `options.plugins`, in order. Throws at once what
 * `use()` throws (`InvalidPluginError` for a nameless plugin, `DuplicateConverterError` for a second
 * converter of a role without `override`).
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
 * history.
 *
 * Contract: never throws, whatever it is given: malformed entries and unknown roles are dropped
 * silently, as pi's `switch` drops unknown roles. Every call goes through one lenient registry, made
 * when the module loads, that nothing can extend; `user`, `assistant` and `toolResult` messages come
 * back as the same objects. Use `createDefaultRegistry()` to add plugins, isolate the output or see
 * problems on `hooks.error`.
 *
 * @example
 * const messages = convertToLlm(agent.state.messages); // pi-ai Message[], as pi 0.73.1 would send them
 */
export const convertToLlm = (messages: AgentMessage[]): Message[] => shared.convert(messages);
