/** The registry a CLI run converts with: pi's default preset, the `--plugin` modules, `--block-images` and the filters. */
import { REDACT_SECRETS_PLUGIN } from "../filters/redact-secrets.js";
import { blockImages } from "../hooks/block-images.js";
import { createDefaultRegistry } from "../preset.js";
import type { Plugin, Registry } from "../registry/types.js";
import { textOf } from "../values.js";
import type { CliOptions } from "./args.js";
import { CliError, thrownText } from "./cli-error.js";
import { type CliPlace, filterPlugins } from "./filter-options.js";
import type { LoadedPlugins } from "./plugins.js";

/**
 * A new registry with the options' plugins, in the order they apply, and the `redactSecrets` plugin
 * it uses, if any (the report redacts its own text with it); a plugin that fails to apply is a
 * {@link CliError}.
 */
export function createRegistryFor(
	options: CliOptions,
	loaded: readonly LoadedPlugins[],
	place: CliPlace,
): { registry: Registry; redaction: Plugin | undefined } {
	const registry = createDefaultRegistry({ strict: options.strict, asyncTimeoutMs: options.timeout });
	let redaction: Plugin | undefined;
	for (const { spec, plugins } of loaded) {
		for (const plugin of plugins) {
			try {
				registry.use(plugin);
			} catch (error) {
				throw new CliError(`plugin "${nameOf(plugin)}" from "${spec}" failed to apply: ${thrownText(error)}`);
			}
			if (nameOf(plugin) === REDACT_SECRETS_PLUGIN) redaction = plugin;
		}
	}
	if (options.blockImages) registry.use(blockImages({ enabled: true }));
	for (const plugin of filterPlugins(options, place)) {
		registry.use(plugin);
		if (plugin.name === REDACT_SECRETS_PLUGIN) redaction = plugin;
	}
	return { registry, redaction };
}

/** Whether the options convert otherwise than pi's default preset (a plugin, `--block-images`, a filter). */
export function changesConversion(options: CliOptions): boolean {
	return (
		options.plugins.length > 0 ||
		options.blockImages ||
		options.prune !== undefined ||
		options.clearToolResults !== undefined ||
		options.maxTokens !== undefined ||
		options.redactSecrets ||
		options.redactEnv === true ||
		(options.redactEnvFiles?.length ?? 0) > 0
	);
}

/** A plugin's name, read again after it was checked: a getter may throw now. */
function nameOf(plugin: { name: unknown }): string {
	try {
		return textOf(plugin.name);
	} catch {
		return "(a name that cannot be read)";
	}
}
