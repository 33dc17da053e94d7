/**
 * The shared registry of one pi runtime: pi's default preset, the plugins other extensions offered
 * (in offer order, by name), then the hardening plugins the user turned on. Built when first needed
 * and again only when an offer or the configuration changes; every request then just calls it.
 */

import type { Message } from "@earendil-works/pi-ai";
import { clearToolResults, pruneMessages, REDACT_SECRETS_PLUGIN, trimToTokens } from "../filters/index.js";
import { BLOCK_IMAGES_PLUGIN, blockImages, escapeSummaries, lint, safeFences } from "../hooks/index.js";
import { ConvertToLlmError, type Plugin, type Registry } from "../index.js";
import { createDefaultRegistry } from "../preset.js";
import { errorText, isInstance, isPluginShape, isRecord } from "../values.js";
import type { PiExtensionApi } from "./pi-api.js";
import { piSettingsPlaces } from "./pi-settings-files.js";
import { problemText } from "./problem-text.js";
import { redactionFor } from "./redaction.js";
import { hardeningText, type PiHardening, piBlocksImages, pruneStepOf, trimStepOf } from "./settings.js";

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
	/** What to tell the user about the build: plugins left out, and duplicates used once. */
	problems: readonly string[];
	/** The `redactSecrets` plugin the registry uses (a switch's or an offered one), which the HTML report redacts its own text with. */
	redaction?: Plugin | undefined;
	/** Whether an offered plugin meant to apply is left out (its `apply` threw, or it conflicts with a switch): `strict` withholds then. A duplicate used once is not. */
	degraded: boolean;
}

/**
 * The extension's registry host.
 *
 * Contract: `offer` validates what another extension sent (anything may arrive on `pi.events`) and
 * returns the problems with it; `build` returns the same registry until `offer` or `configure`
 * changes something, or (for the view) pi's own `images.blockImages` setting turns on or off: while it
 * is on, and no switch or offered plugin blocks images, the view's registry blocks them as pi does, so
 * that `/llm-context` shows what pi sends. A request's registry leaves that rule to pi, which applies
 * it after the conversion as it does without the extension (so a request stays pi's own even where
 * the extension cannot read pi's setting as pi holds it: pi 0.73.1's files changed while it runs). A plugin whose `apply` throws, or that a switch's plugin cannot stand beside, is
 * left out (the registry is rebuilt without it) and reported; the others still apply. The same plugin
 * (by name) offered by two extensions, or offered and also turned on by a switch, is used once, with
 * one warning: the last offer's, or the switch's.
 *
 * @example
 * const host = createHost(pi); host.configure(hardening); const { registry } = host.build();
 */
export interface Host {
	offer(data: unknown): string[];
	/**
	 * The configuration, pi's working directory (`ctx.cwd`: where pi 0.73.1 reads its project
	 * settings), and what the configuration holds that could not be read (see `unreadable`).
	 */
	configure(hardening: PiHardening, cwd?: string, unreadable?: readonly string[]): void;
	hardening(): PiHardening;
	/**
	 * The configuration's problems that withhold every request and summary until they are fixed (an
	 * unknown key, a value a switch does not take: it may be a safety switch the user meant to turn
	 * on); empty when the configuration was read whole.
	 */
	unreadable(): readonly string[];
	/** Whether anything changes pi's conversion: an offered plugin, a switch that is on, or a configuration that withholds. */
	active(): boolean;
	/**
	 * The `redactSecrets` plugin of the switch, one per configuration (so its placeholders number each
	 * secret once, whatever registry or system prompt it redacts), or `undefined` while the switch is
	 * off. Throws when its known-secret sources cannot be set up (see redaction.ts).
	 */
	redaction(): Plugin | undefined;
	/**
	 * The registry for a chat request (`"request"`, the default), for `/llm-context`'s view of the next
	 * one (`"view"`: the same, plus pi's own `images.blockImages` rule while it is on and no switch
	 * blocks images, since pi applies it after the conversion), or for one of pi's summary requests
	 * (`"summary"`: without `maxTokens`'s trim, which would leave the older turns out of the summary
	 * and so out of the session for good, as would `clearToolResults`).
	 *
	 * `contextWindow` is the current model's (pi's `ctx.model.contextWindow`): `clearToolResults` takes
	 * it when its options give none, so that a `fraction` trigger works (without either, building
	 * throws and the request is withheld).
	 */
	build(purpose?: Purpose, contextWindow?: number): BuiltRegistry;
}

/** What a registry converts for: see {@link Host.build}. */
export type Purpose = "request" | "view" | "summary";

/**
 * How long an `afterConvertAsync` tap may take before the request is withheld (it may be the one
 * that redacts); without a limit a tap that never settles would hang pi's request.
 */
export const ASYNC_TAP_LIMIT_MS = 10_000;

/** What the host's plugins count and read beside the configuration. */
export interface HostFacts {
	/**
	 * The token counter of the current session (the calibrated one: the request counted as it will
	 * bill), asked for on every count; default pi's estimate (`clearToolResults`' own default).
	 */
	tokenCounter?: () => (message: Message) => number;
}

export function createHost(
	pi: PiExtensionApi,
	initial: PiHardening,
	asyncTimeoutMs = ASYNC_TAP_LIMIT_MS,
	facts: HostFacts = {},
): Host {
	const offered = new Map<string, OfferedPlugin>();
	let hardening = initial;
	let unreadable: readonly string[] = [];
	let cwd = process.cwd();
	let places = piSettingsPlaces(cwd);
	let redaction: Plugin | undefined;
	const redactionNow = (): Plugin | undefined => {
		if (hardening.redactSecrets !== true) return undefined;
		redaction ??= redactionFor(hardening.redactKnown, cwd);
		return redaction;
	};
	const tokenCounter = facts.tokenCounter;
	const counter = tokenCounter === undefined ? undefined : (message: Message): number => tokenCounter()(message);
	const built = new Map<string, BuiltRegistry>();
	const piBlocks = () => piBlocksImages(pi, places);
	const imagesBlocked = () => hardening.blockImages || piBlocks();
	/**
	 * Whether the registry blocks images for pi's own setting: it is on, and no switch and no offered
	 * plugin blocks images already (the switches' block reads pi's setting itself). Asked on every
	 * build: with the setting off, the registry is exactly the one without it.
	 */
	const piBlockNow = (purpose: Purpose) =>
		purpose === "view" &&
		!hardening.blockImages &&
		!hardening.strictImages &&
		!offered.has(BLOCK_IMAGES_PLUGIN) &&
		piBlocks();

	const build = (purpose: Purpose, piBlock: boolean, contextWindow: number | undefined): BuiltRegistry => {
		const clear = (): Plugin | undefined => {
			const options = hardening.clearToolResults;
			if (options === undefined || purpose === "summary") return undefined;
			const window = options.contextWindow ?? contextWindow;
			return clearToolResults({
				...options,
				...(window === undefined ? {} : { contextWindow: window }),
				...(counter === undefined ? {} : { tokenCounter: counter }),
				now: Date.now,
			});
		};
		const switches = () => hardeningPlugins(hardening, imagesBlocked, purpose, { redaction: redactionNow, clear });
		const names = new Set(switches().map((plugin) => plugin.name));
		const switched = () => (piBlock ? [...switches(), blockImages({ enabled: piBlocks })] : switches());
		const left = new Set<OfferedPlugin>();
		const problems: string[] = [];
		// The same plugin from another extension and from a switch: used once, as the user's switch sets it.
		for (const [name, item] of offered) {
			if (!names.has(name)) continue;
			left.add(item);
			problems.push(
				`${item.from} offers ${JSON.stringify(name)}, which your convert-to-llm switches already turn on: it is used once, as your switches set it.`,
			);
		}
		let degraded = false;
		for (;;) {
			const attempt = tryBuild(
				[...offered.values()].filter((item) => !left.has(item)),
				switched,
				asyncTimeoutMs,
			);
			if ("registry" in attempt) return { ...attempt, problems, degraded };
			degraded = true;
			left.add(attempt.culprit);
			problems.push(
				`${attempt.culprit.from}'s plugin is not used (the registry was rebuilt without it): ${attempt.why}`,
			);
		}
	};

	return {
		offer(data) {
			const read = readOffer(data);
			if ("problem" in read) return [read.problem];
			const problems: string[] = [];
			for (const [name, plugin] of read.plugins) {
				const before = offered.get(name);
				if (before !== undefined && before.from !== read.from) {
					problems.push(
						`${before.from} and ${read.from} both offer ${JSON.stringify(name)}: it is used once, as ${read.from} offered it last.`,
					);
				}
				offered.delete(name);
				offered.set(name, { plugin, from: read.from });
			}
			built.clear();
			return problems;
		},
		configure(next, at, problems = []) {
			hardening = next;
			unreadable = [...problems];
			if (at !== undefined) {
				cwd = at;
				places = piSettingsPlaces(at);
			}
			redaction = undefined;
			built.clear();
		},
		hardening: () => hardening,
		unreadable: () => unreadable,
		active: () => offered.size > 0 || unreadable.length > 0 || hardeningText(hardening) !== "none",
		redaction: redactionNow,
		build(purpose = "request", contextWindow) {
			const piBlock = piBlockNow(purpose);
			// The model's window matters only to a clearing that does not give its own.
			const window =
				hardening.clearToolResults !== undefined && hardening.clearToolResults.contextWindow === undefined
					? contextWindow
					: undefined;
			const key = `${purpose}${piBlock ? " pi-blocks-images" : ""} window=${window}`;
			let registry = built.get(key);
			if (registry === undefined) {
				registry = build(purpose, piBlock, window);
				built.set(key, registry);
			}
			return registry;
		},
	};
}

/**
 * One registry: pi's preset, `items` in order, then the switches' plugins; or the offered plugin that
 * keeps it from being built (its `apply` threw, or a switch's plugin cannot be used beside it). Throws
 * only when a switch's plugin fails on a registry with no offered plugin at all.
 */
function tryBuild(
	items: readonly OfferedPlugin[],
	switched: () => Plugin[],
	asyncTimeoutMs: number,
): { registry: Registry; plugins: OfferedPlugin[]; redaction?: Plugin } | { culprit: OfferedPlugin; why: string } {
	const registry = createDefaultRegistry({ asyncTimeoutMs });
	const plugins: OfferedPlugin[] = [];
	for (const item of items) {
		try {
			registry.use(item.plugin);
			plugins.push(item);
		} catch (error) {
			return { culprit: item, why: whyNotUsed(error) };
		}
	}
	try {
		let redaction = plugins.find((item) => nameOf(item.plugin) === REDACT_SECRETS_PLUGIN)?.plugin;
		for (const plugin of switched()) {
			registry.use(plugin);
			if (plugin.name === REDACT_SECRETS_PLUGIN) redaction = plugin;
		}
		return { registry, plugins, redaction };
	} catch (error) {
		// A switch's plugin cannot join these: find the offered plugin it cannot stand beside.
		for (const item of plugins) {
			const probe = createDefaultRegistry({ asyncTimeoutMs });
			try {
				probe.use(item.plugin);
			} catch {
				continue;
			}
			try {
				for (const plugin of switched()) probe.use(plugin);
			} catch {
				return { culprit: item, why: `it conflicts with a convert-to-llm switch that is on: ${whyNotUsed(error)}` };
			}
		}
		throw error;
	}
}

/** A plugin's name, read again (an offered plugin's getter may throw now). */
function nameOf(plugin: Plugin): unknown {
	try {
		return plugin.name;
	} catch {
		return undefined;
	}
}

/** Why a plugin is not used, as a pi user reads it. */
const whyNotUsed = (error: unknown): string =>
	isInstance(error, ConvertToLlmError) ? problemText(error) : errorText(error);

/**
 * The hardening plugins for a configuration, in the order they apply (the view's registry then adds
 * pi's own `images.blockImages` rule where none of these blocks images: see {@link Host.build}).
 */
function hardeningPlugins(
	hardening: PiHardening,
	imagesBlocked: () => boolean,
	purpose: Purpose,
	made: { redaction: () => Plugin | undefined; clear: () => Plugin | undefined },
): Plugin[] {
	const plugins: Plugin[] = [];
	if (hardening.escapeSummaries) plugins.push(escapeSummaries());
	if (hardening.safeFences) plugins.push(safeFences());
	if (hardening.blockImages || hardening.strictImages) {
		plugins.push(blockImages({ enabled: imagesBlocked, strictImages: hardening.strictImages }));
	}
	if (hardening.lint !== "off") plugins.push(lint({ mode: hardening.lint, imagesBlocked }));
	if (hardening.prune !== undefined) {
		const { step: _given, ...prune } = hardening.prune;
		const step = pruneStepOf(hardening);
		plugins.push(pruneMessages(step === undefined ? prune : { ...prune, step }));
	}
	const clear = made.clear();
	if (clear !== undefined) plugins.push(clear);
	if (hardening.maxTokens !== undefined && purpose !== "summary") {
		const step = trimStepOf(hardening);
		plugins.push(
			trimToTokens(
				step === undefined ? { maxTokens: hardening.maxTokens } : { maxTokens: hardening.maxTokens, step },
			),
		);
	}
	const redaction = made.redaction();
	if (redaction !== undefined) plugins.push(redaction);
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
