/**
 * The shared registry of one pi runtime: pi's default preset, the plugins other extensions offered
 * (in offer order, by name), then the hardening plugins the user turned on. Built when first needed
 * and again only when an offer or the configuration changes; every request then just calls it.
 */

import { pruneMessages, redactSecrets, trimToTokens } from "../filters/index.js";
import { blockImages, escapeSummaries, lint, safeFences } from "../hooks/index.js";
import type { Plugin, Registry } from "../index.js";
import { createDefaultRegistry } from "../preset.js";
import { errorText, isPluginShape, isRecord } from "../values.js";
import type { PiExtensionApi } from "./pi-api.js";
import { type PiHardening, piBlocksImages } from "./settings.js";

/** Name of the extension, in warnings and in the view's header. */
export const EXTENSION_NAME = "convert-to-llm";

/** A plugin another extension offered, and who offered it. */
export interface OfferedPlugin {
	plugin: Plugin;
	from: string;
}

/** The registry and what went wrong building it. */
export interface BuiltRegistry {
	registry: Registry;
	/** The offered plugins in use, in order (one that failed to apply is left out and named in `problems`). */
	plugins: readonly OfferedPlugin[];
	problems: readonly string[];
}

/**
 * The extension's registry host.
 *
 * Contract: `offer` validates what another extension sent (anything may arrive on `pi.events`) and
 * returns the problems with it; `build` returns the same registry until `offer` or `configure`
 * changes something. A plugin whose `apply` throws is left out (the registry is rebuilt without it)
 * and reported; the others still apply.
 *
 * @example
 * const host = createHost(pi); host.configure(hardening); const { registry } = host.build();
 */
export interface Host {
	offer(data: unknown): string[];
	configure(hardening: PiHardening): void;
	hardening(): PiHardening;
	build(): BuiltRegistry;
}

/**
 * How long an `afterConvertAsync` tap may take before the request is withheld (it may be the one
 * that redacts); without a limit a tap that never settles would hang pi's request.
 */
export const ASYNC_TAP_LIMIT_MS = 10_000;

export function createHost(pi: PiExtensionApi, initial: PiHardening, asyncTimeoutMs = ASYNC_TAP_LIMIT_MS): Host {
	const offered = new Map<string, OfferedPlugin>();
	let hardening = initial;
	let built: BuiltRegistry | undefined;
	const imagesBlocked = () => hardening.blockImages || piBlocksImages(pi);

	const build = (): BuiltRegistry => {
		const failed = new Set<OfferedPlugin>();
		const problems: string[] = [];
		for (;;) {
			const registry = createDefaultRegistry({ asyncTimeoutMs });
			const plugins: OfferedPlugin[] = [];
			let retry = false;
			for (const item of offered.values()) {
				if (failed.has(item)) continue;
				try {
					registry.use(item.plugin);
					plugins.push(item);
				} catch (error) {
					failed.add(item);
					problems.push(
						`${item.from}'s plugin is not used (the registry was rebuilt without it): ${errorText(error)}`,
					);
					retry = true;
					break;
				}
			}
			if (retry) continue;
			for (const plugin of hardeningPlugins(hardening, imagesBlocked)) registry.use(plugin);
			return { registry, plugins, problems };
		}
	};

	return {
		offer(data) {
			const read = readOffer(data);
			if ("problem" in read) return [read.problem];
			for (const [name, plugin] of read.plugins) {
				offered.delete(name);
				offered.set(name, { plugin, from: read.from });
			}
			built = undefined;
			return [];
		},
		configure(next) {
			hardening = next;
			built = undefined;
		},
		hardening: () => hardening,
		build() {
			built ??= build();
			return built;
		},
	};
}

/** The hardening plugins for a configuration, in the order they apply. */
function hardeningPlugins(hardening: PiHardening, imagesBlocked: () => boolean): Plugin[] {
	const plugins: Plugin[] = [];
	if (hardening.escapeSummaries) plugins.push(escapeSummaries());
	if (hardening.safeFences) plugins.push(safeFences());
	if (hardening.blockImages || hardening.strictImages) {
		plugins.push(blockImages({ enabled: imagesBlocked, strictImages: hardening.strictImages }));
	}
	if (hardening.lint !== "off") plugins.push(lint({ mode: hardening.lint, imagesBlocked }));
	if (hardening.prune !== undefined) plugins.push(pruneMessages(hardening.prune));
	if (hardening.maxTokens !== undefined) plugins.push(trimToTokens({ maxTokens: hardening.maxTokens }));
	if (hardening.redactSecrets === true) plugins.push(redactSecrets());
	return plugins;
}

/**
 * An offer `{ from: string, plugins: Plugin[] }` read once (each plugin with the name it had when it
 * was checked), or what is wrong with it. Never throws: anything may arrive on `pi.events`, and a
 * throw here would surface in the offering extension's `emit`.
 */
function readOffer(data: unknown): { from: string; plugins: [string, Plugin][] } | { problem: string } {
	const ignored = { problem: "an offer on pi.events must be { from, plugins }; it was ignored." };
	let from: unknown;
	let list: unknown[] | undefined;
	try {
		if (!isRecord(data)) return ignored;
		from = data.from;
		const plugins = data.plugins;
		list = Array.isArray(plugins) ? [...plugins] : undefined;
	} catch {
		return { problem: "an offer on pi.events could not be read; it was ignored." };
	}
	const who = typeof from === "string" && from !== "" ? from : "an extension that did not say its name";
	if (list === undefined) return { problem: `${who} offered no plugins list; the offer was ignored.` };
	const plugins: [string, Plugin][] = [];
	for (const plugin of list) {
		if (!isPluginShape(plugin)) {
			return {
				problem: `${who} offered something that is not a plugin { name, apply(registry) }; the offer was ignored.`,
			};
		}
		let name: string;
		try {
			name = plugin.name;
		} catch {
			return { problem: `${who} offered a plugin whose name cannot be read; the offer was ignored.` };
		}
		plugins.push([name, plugin as unknown as Plugin]);
	}
	if (typeof from !== "string" || from === "") {
		return { problem: `${who}: an offer must name its extension (from); it was ignored.` };
	}
	return { from, plugins };
}
