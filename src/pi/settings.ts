/**
 * The extension's configuration, taken the ways pi extensions take it: a `convertToLlm` object in
 * pi's settings.json (pi 1.x gives it with `pi.getSettings()`; on pi 0.73.1 it is read from pi's
 * settings files) and the `--convert-to-llm` flag (it wins over the settings, for one run). With
 * neither, every switch is off and the extension sends exactly what pi would. What it cannot read
 * fails closed: a misspelled switch may be a safety switch the user meant to turn on.
 */

import { type ClearToolResultsOptions, clearToolResults } from "../filters/clear-tool-results.js";
import { type ClearTrigger, parseTrigger } from "../filters/clear-tool-results-options.js";
import { type PruneMessagesOptions, pruneMessages } from "../filters/prune-messages.js";
import { describeValue, errorText, isJsonObject, quote } from "../values.js";
import { nearestName } from "./nearest-name.js";
import type { PiExtensionApi } from "./pi-api.js";
import { type PiSettingsPlaces, readPiSettingsFiles } from "./pi-settings-files.js";

/** The flag: `pi --convert-to-llm escapeSummaries,safeFences,strictImages,lint=repair`. */
export const FLAG = "convert-to-llm";

/** The key of the extension's object in pi's settings.json (global `~/.pi/agent/settings.json` or a project's). */
export const SETTINGS_KEY = "convertToLlm";

/**
 * What `lint` does with what it finds, in pi.
 *
 * Contract: `off` does not run it (the default); `report` shows each finding as a pi warning and
 * changes nothing sent; `repair` also drops empty user and assistant messages. Any other value in the
 * settings or the flag is a configuration problem, which withholds every request until it is fixed.
 *
 * @example
 * { "convertToLlm": { "lint": "report" } } // settings.json
 */
export type PiLintMode = "off" | "report" | "repair";

/**
 * The hardening switches, each off by default.
 *
 * Contract: `escapeSummaries`, `safeFences` and `lint` add the plugins of the same names;
 * `blockImages` blocks images as pi's own `images.blockImages` setting does (which is also honoured,
 * live), and `strictImages` makes the block treat every non-text block of a user or tool result
 * message as an image; `strict` withholds a request (fail closed) when the conversion reports any
 * problem, instead of sending it with the offending messages dropped and a warning shown.
 *
 * @example
 * { "convertToLlm": { "escapeSummaries": true, "safeFences": true, "lint": "report" } } // settings.json
 */
export interface PiHardening {
	escapeSummaries: boolean;
	safeFences: boolean;
	blockImages: boolean;
	strictImages: boolean;
	lint: PiLintMode;
	strict: boolean;
	/** `redactSecrets()` (convert-to-llm/filters) on every request. */
	redactSecrets?: boolean;
	/**
	 * The values `redactSecrets` knows to be secret, beside what its scanner finds (settings.json
	 * `"redactSecrets": { "env": true, "envFiles": [".env"], "values": […] }`, or the flag's
	 * `redactSecrets=env`); set only with `redactSecrets` on.
	 */
	redactKnown?: PiKnownSecrets;
	/**
	 * `clearToolResults(options)`: old tool results replaced by a placeholder once the request reaches
	 * the trigger (the options as settings.json holds them; the extension adds `tokenCounter`, `now`
	 * and, when not given, `contextWindow`: see host.ts).
	 */
	clearToolResults?: PiClearToolResults;
	/** `trimToTokens({ maxTokens, step })`: the latest messages that fit, by pi's estimate. */
	maxTokens?: number;
	/**
	 * The `step` of `maxTokens`' trim, in tokens (see {@link trimStepOf}): absent, a quarter of
	 * `maxTokens`; `0`, no step (the window moves with every message, as before steps existed).
	 */
	maxTokensStep?: number;
	/** `pruneMessages(prune)`: the AI SDK's options (settings.json only). */
	prune?: PruneMessagesOptions;
	/**
	 * The `step` of `prune`'s `toolCalls` windows, in messages (see {@link pruneStepOf}): absent,
	 * `prune.step` or {@link DEFAULT_PRUNE_STEP}; `0`, no step.
	 */
	pruneStep?: number;
}

/**
 * The message step `prune` takes when neither `pruneStep` nor `prune.step` says one: on a 120-turn
 * tool-heavy history, `before-last-10-messages` with a step of 10 keeps 95.4% of the prompt prefix
 * (92.4% without) and bills 18% less at cache prices (docs/filters.md, "Cache-stable step").
 */
export const DEFAULT_PRUNE_STEP = 10;

/**
 * The `step` the `maxTokens` trim runs with: `maxTokensStep`, else a quarter of `maxTokens`
 * (rounded down), which keeps over 90% of the prompt prefix on a tool-heavy session; `undefined`
 * for no step (`maxTokensStep: 0`, a budget under 4 tokens, or no `maxTokens`).
 *
 * @example
 * trimStepOf({ ...DEFAULT_HARDENING, maxTokens: 120_000 }); // 30_000
 */
export function trimStepOf(hardening: PiHardening): number | undefined {
	if (hardening.maxTokens === undefined) return undefined;
	const step = hardening.maxTokensStep ?? Math.floor(hardening.maxTokens / 4);
	return step > 0 ? step : undefined;
}

/**
 * The `step` the `prune` switch runs with: `pruneStep`, else the `step` of the `prune` object, else
 * {@link DEFAULT_PRUNE_STEP}; `undefined` for no step (`0`, or no `prune`).
 *
 * @example
 * pruneStepOf({ ...DEFAULT_HARDENING, prune: { toolCalls: "before-last-10-messages" } }); // 10
 */
export function pruneStepOf(hardening: PiHardening): number | undefined {
	if (hardening.prune === undefined) return undefined;
	const step = hardening.pruneStep ?? hardening.prune.step ?? DEFAULT_PRUNE_STEP;
	return step > 0 ? step : undefined;
}

/**
 * Where `redactSecrets` takes the values known to be secret from, in pi (see `redactSecrets`'
 * options of the same names): `env`, the secret-like variables of pi's environment; `envFiles`,
 * `.env`-format files, by paths relative to pi's working directory, or `true` for its `.env*` files
 * (listed when the session starts); `values`, literal values.
 *
 * @example
 * { "convertToLlm": { "redactSecrets": { "env": true, "envFiles": [".env", ".env.local"] } } } // settings.json
 */
export interface PiKnownSecrets {
	env?: boolean;
	envFiles?: boolean | readonly string[];
	values?: readonly string[];
}

/** `clearToolResults`' options as a settings file holds them: every one but the functions. */
export type PiClearToolResults = Omit<ClearToolResultsOptions, "tokenCounter" | "now">;

/** Every switch off: the default, which changes nothing on the wire. */
export const DEFAULT_HARDENING: Readonly<PiHardening> = Object.freeze({
	escapeSummaries: false,
	safeFences: false,
	blockImages: false,
	strictImages: false,
	lint: "off",
	strict: false,
});

const LINT_MODES = ["off", "report", "repair"] as const;

/**
 * How the extension reads one switch: its key (the same in settings.json and in the flag), how a
 * value is read from each place, and how it shows in `/llm-context`'s header.
 */
interface Switch {
	readonly key: keyof PiHardening;
	/**
	 * Sets the switch from settings.json's value, or, leaving it as it was, says what it takes instead
	 * (`takes true or false`).
	 */
	fromSettings(hardening: PiHardening, value: unknown): string | undefined;
	/** How the flag takes it; absent: settings.json only. */
	readonly flag?: {
		/** As the flag's description lists it: `lint=report|repair`. */
		readonly sample: string;
		/** Its forms, as a problem lists them: `strict, strict=true or strict=false`. */
		readonly forms: string;
		/** Sets the switch from a `name` (`undefined`) or `name=value` token; `false` when it does not parse exactly. */
		read(hardening: PiHardening, value: string | undefined): boolean;
	};
	/** How the switch shows when it is on (`lint=repair`), or `undefined` when it is off. */
	shown(hardening: PiHardening): string | undefined;
}

/** The keys of PiHardening whose values are booleans. */
type ToggleKey = { [K in keyof PiHardening]-?: boolean extends PiHardening[K] ? K : never }[keyof PiHardening];

/** A boolean switch: `true`/`false` in settings.json; `name`, `name=true` or `name=false` in the flag. */
function toggle(key: ToggleKey): Switch {
	const set = (hardening: PiHardening, value: unknown): boolean => {
		if (typeof value !== "boolean") return false;
		hardening[key] = value;
		return true;
	};
	return {
		key,
		fromSettings: (hardening, value) => (set(hardening, value) ? undefined : "takes true or false"),
		flag: {
			sample: key,
			forms: `${key}, ${key}=true or ${key}=false`,
			read: (hardening, value) =>
				value === undefined || value === "true" ? set(hardening, true) : value === "false" && set(hardening, false),
		},
		shown: (hardening) => (hardening[key] === true ? key : undefined),
	};
}

/** `lint`: one of its modes in either place; the bare name in the flag means `report`. */
function lintSwitch(): Switch {
	const set = (hardening: PiHardening, value: unknown): boolean => {
		const mode = LINT_MODES.find((known) => known === value);
		if (mode !== undefined) hardening.lint = mode;
		return mode !== undefined;
	};
	return {
		key: "lint",
		fromSettings: (hardening, value) => (set(hardening, value) ? undefined : `takes "off", "report" or "repair"`),
		flag: {
			sample: "lint=report|repair",
			forms: "lint, lint=report, lint=repair or lint=off",
			read: (hardening, value) => set(hardening, value ?? "report"),
		},
		shown: (hardening) => (hardening.lint === "off" ? undefined : `lint=${hardening.lint}`),
	};
}

/** The keys of PiHardening whose values are whole numbers. */
type CountKey = "maxTokens" | "maxTokensStep" | "pruneStep";

/**
 * A whole number >= 0 (`maxTokens`, and the steps): a number in settings.json, digits only in the
 * flag; `unit` and `sample` say what it counts, for its problems.
 */
function countSwitch(key: CountKey, unit: string, sample: string, shown: Switch["shown"]): Switch {
	const set = (hardening: PiHardening, value: unknown): boolean => {
		if (typeof value !== "number" || !Number.isInteger(value) || value < 0) return false;
		hardening[key] = value;
		return true;
	};
	return {
		key,
		fromSettings: (hardening, value) => (set(hardening, value) ? undefined : "takes a whole number >= 0"),
		flag: {
			sample: `${key}=<n>`,
			forms: `${key}=<a whole number of ${unit}>, such as ${key}=${sample}`,
			read: (hardening, value) =>
				value !== undefined && /^[0-9]{1,15}$/.test(value) && set(hardening, Number(value)),
		},
		shown,
	};
}

/** How a step shows beside its switch in the header: ` (step 30000)`, ` (no step)`. */
const stepText = (step: number | undefined, unit: string): string =>
	step === undefined ? " (no step)" : ` (step ${step} ${unit})`;

/** `prune`: an object of the AI SDK's options, checked by the plugin itself; settings.json only. */
function pruneSwitch(): Switch {
	return {
		key: "prune",
		fromSettings(hardening, value) {
			if (!isJsonObject(value)) return "takes an object of pruneMessages options";
			try {
				pruneMessages(value as PruneMessagesOptions);
			} catch (error) {
				return `is not taken: ${errorText(error)}`;
			}
			hardening.prune = value as PruneMessagesOptions;
			return undefined;
		},
		shown: (hardening) =>
			hardening.prune === undefined ? undefined : `prune${stepText(pruneStepOf(hardening), "messages")}`,
	};
}

const KNOWN_KEYS = ["env", "envFiles", "values"] as const;

/**
 * `redactSecrets`: `true`/`false`, or an object of the values it knows to be secret
 * ({@link PiKnownSecrets}; the switch is then on); in the flag `redactSecrets`, `=true`, `=false`, or
 * `=env` (the environment's secret-like variables and the `.env*` files of pi's working directory,
 * as the CLI's `--redact-env`).
 */
function redactSwitch(): Switch {
	const known = (value: Record<string, unknown>): PiKnownSecrets | string => {
		for (const key of Object.keys(value))
			if (!(KNOWN_KEYS as readonly string[]).includes(key))
				return `has no option ${quote(key)} (did you mean ${JSON.stringify(nearestName(key, KNOWN_KEYS))}?); it takes true, false or an object of ${KNOWN_KEYS.join(", ")}`;
		const { env, envFiles, values } = value;
		if (env !== undefined && typeof env !== "boolean") return `takes "env": true or false, not ${describeValue(env)}`;
		const paths = Array.isArray(envFiles) && envFiles.every((path) => typeof path === "string" && path !== "");
		if (envFiles !== undefined && typeof envFiles !== "boolean" && !paths)
			return `takes "envFiles": true, false or a list of paths (relative to pi's working directory), not ${describeValue(envFiles)}`;
		const strings = Array.isArray(values) && values.every((one) => typeof one === "string" && one !== "");
		if (values !== undefined && !strings)
			return `takes "values": a list of non-empty strings, not ${describeValue(values)}`;
		const out: PiKnownSecrets = {};
		if (env !== undefined) out.env = env as boolean;
		if (envFiles !== undefined) out.envFiles = typeof envFiles === "boolean" ? envFiles : [...(envFiles as string[])];
		if (values !== undefined) out.values = [...(values as string[])];
		return out;
	};
	const set = (hardening: PiHardening, on: boolean, sources?: PiKnownSecrets): void => {
		hardening.redactSecrets = on;
		// The bare switch in the flag keeps the sources settings.json gave; off forgets them.
		if (!on) delete hardening.redactKnown;
		else if (sources !== undefined) hardening.redactKnown = sources;
	};
	return {
		key: "redactSecrets",
		fromSettings(hardening, value) {
			if (typeof value === "boolean") {
				set(hardening, value);
				return undefined;
			}
			if (!isJsonObject(value)) return `takes true or false, or an object of ${KNOWN_KEYS.join(", ")}`;
			const sources = known(value);
			if (typeof sources === "string") return sources;
			set(hardening, true, sources);
			return undefined;
		},
		flag: {
			sample: "redactSecrets[=env]",
			forms: "redactSecrets, redactSecrets=true, redactSecrets=false or redactSecrets=env",
			read(hardening, value) {
				if (value === undefined || value === "true") set(hardening, true);
				else if (value === "false") set(hardening, false);
				else if (value === "env") set(hardening, true, { env: true, envFiles: true });
				else return false;
				return true;
			},
		},
		shown(hardening) {
			if (hardening.redactSecrets !== true) return undefined;
			const { env, envFiles, values } = hardening.redactKnown ?? {};
			const sources: string[] = [];
			if (env === true) sources.push("env");
			if (envFiles === true) sources.push(".env*");
			else if (Array.isArray(envFiles)) sources.push(...envFiles);
			if (values !== undefined && values.length > 0)
				sources.push(`${values.length} value${values.length === 1 ? "" : "s"}`);
			return sources.length === 0 ? "redactSecrets" : `redactSecrets (${sources.join(", ")})`;
		},
	};
}

/** The keys of `clearToolResults`' options the extension sets itself (functions: no settings file holds them). */
const OWN_CLEAR_KEYS = ["tokenCounter", "now"] as const;

/**
 * A context window a `fraction` trigger is checked against when settings are read, before pi's
 * model is known: large enough that any fraction the plugin takes is at least one token.
 */
const CHECK_WINDOW = 1_000_000_000;

/**
 * Whether `clearToolResults` takes `options`: `undefined`, or what it says is wrong. A `fraction`
 * trigger without `contextWindow` is checked as if one were given (pi's model gives it later).
 */
export function clearOptionsProblem(options: PiClearToolResults): string | undefined {
	for (const key of OWN_CLEAR_KEYS)
		if (key in options) return `sets ${key} itself (the calibrated counter, the clock); leave ${quote(key)} out`;
	try {
		clearToolResults({ contextWindow: CHECK_WINDOW, ...options });
		return undefined;
	} catch (error) {
		return `is not taken: ${errorText(error)}`;
	}
}

/**
 * `clearToolResults`' trigger as the flag takes it: `<tokens>`, or `tokens:<n>`, `messages:<n>`,
 * `fraction:<f>` joined by `+` (all must hold); `undefined` when it does not parse exactly.
 *
 * @example
 * flagTrigger("fraction:0.5+messages:40"); // { fraction: 0.5, messages: 40 }
 */
export function flagTrigger(text: string): ClearTrigger | undefined {
	const parsed = parseTrigger(text);
	return "condition" in parsed ? parsed.condition : undefined;
}

/**
 * `clearToolResults`: `true` (the defaults), `false`, or an object of its options in settings.json
 * (checked by the plugin itself); in the flag `clearToolResults` (the defaults), `=false`, or
 * `=<trigger>` ({@link flagTrigger}: `clearToolResults=fraction:0.5`).
 */
function clearSwitch(): Switch {
	const set = (hardening: PiHardening, options: PiClearToolResults | false): string | undefined => {
		if (options === false) {
			delete hardening.clearToolResults;
			return undefined;
		}
		const wrong = clearOptionsProblem(options);
		if (wrong === undefined) hardening.clearToolResults = options;
		return wrong;
	};
	return {
		key: "clearToolResults",
		fromSettings(hardening, value) {
			if (value === true || value === false) return set(hardening, value && {});
			if (!isJsonObject(value)) return "takes true, false or an object of clearToolResults options";
			return set(hardening, value as PiClearToolResults);
		},
		flag: {
			sample: "clearToolResults[=<trigger>]",
			forms: "clearToolResults, clearToolResults=false or clearToolResults=<trigger> (tokens, or tokens:<n>, messages:<n>, fraction:<f> joined by +), such as clearToolResults=fraction:0.5",
			read(hardening, value) {
				if (value === undefined || value === "true") return set(hardening, {}) === undefined;
				if (value === "false") return set(hardening, false) === undefined;
				const trigger = flagTrigger(value);
				return trigger !== undefined && set(hardening, { trigger }) === undefined;
			},
		},
		shown(hardening) {
			const options = hardening.clearToolResults;
			if (options === undefined) return undefined;
			return Object.keys(options).length === 0 ? "clearToolResults" : `clearToolResults ${JSON.stringify(options)}`;
		},
	};
}

/**
 * Every switch the extension knows, in the order `/llm-context` lists them: the one table that the
 * settings.json reader, the flag reader, their problems, the flag's description and the header all
 * read. A new switch is one line here (with its field in {@link PiHardening} and its plugin in
 * host.ts).
 */
const SWITCHES: readonly Switch[] = [
	toggle("escapeSummaries"),
	toggle("safeFences"),
	toggle("blockImages"),
	toggle("strictImages"),
	toggle("strict"),
	lintSwitch(),
	redactSwitch(),
	countSwitch("maxTokens", "tokens", "120000", (hardening) =>
		hardening.maxTokens === undefined
			? undefined
			: `maxTokens=${hardening.maxTokens}${stepText(trimStepOf(hardening), "tokens")}`,
	),
	// Shown with the switch it steps (in its `shown`), not apart.
	countSwitch("maxTokensStep", "tokens", "30000", () => undefined),
	pruneSwitch(),
	countSwitch("pruneStep", "messages", "10", () => undefined),
	clearSwitch(),
];

const SWITCH_NAMES: readonly string[] = SWITCHES.map((entry) => entry.key);
const switchNamed = (name: string): Switch | undefined => SWITCHES.find((entry) => entry.key === name);

/**
 * What a configuration problem means, at the end of each: a misspelled or unreadable switch may be
 * a safety switch the user meant to turn on, so nothing is sent until it is fixed.
 */
const WITHHELD_UNTIL_FIXED = "every request is withheld until it is fixed";

/** The configuration and what is wrong with it (one line each). */
export interface ReadHardening {
	hardening: PiHardening;
	/**
	 * What settings.json or the flag holds that the extension cannot read: an unknown key, a value a
	 * switch does not take, a token that does not parse. Each names the key, and for an unknown one the
	 * nearest switch. While there is any, the extension withholds every request (see host.ts).
	 */
	problems: string[];
}

/** Registers the flag; call it from the factory. */
export function registerFlag(pi: PiExtensionApi): void {
	pi.registerFlag(FLAG, {
		description: `convert-to-llm hardening, comma-separated: ${SWITCHES.flatMap((entry) => entry.flag?.sample ?? []).join(", ")}`,
		type: "string",
	});
}

/**
 * Reads the settings, then the flag over them.
 *
 * Contract: never throws. The settings are pi's merged settings (`pi.getSettings()`, pi 1.x) or, on
 * a pi without it (0.73.1), pi's settings files at `places` (see pi-settings-files.ts). Whatever
 * cannot be read (an unknown key, a value the switch does not take, settings or a flag pi cannot
 * give) leaves that switch as it was and is one problem; the other switches still apply, and the
 * problems withhold every request until the configuration is fixed.
 */
export function readHardening(pi: PiExtensionApi, places?: PiSettingsPlaces): ReadHardening {
	const hardening: PiHardening = { ...DEFAULT_HARDENING };
	const problems: string[] = [];
	applySettings(readSettings(pi, places, problems), hardening, problems);
	let flag: unknown;
	try {
		flag = pi.getFlag(FLAG);
	} catch (error) {
		problems.push(`--${FLAG} could not be read (${errorText(error)}); ${WITHHELD_UNTIL_FIXED}.`);
	}
	if (typeof flag === "string" && flag.trim() !== "") applyFlag(flag, hardening, problems);
	checkSteps(hardening, problems);
	return { hardening, problems };
}

/**
 * The steps against what they step, once settings and flag are read: a `maxTokensStep` above
 * `maxTokens` (trimToTokens takes a step up to its budget), and a prune step given twice
 * (`pruneStep` and `prune.step`), are problems; the step is then left at its default.
 */
function checkSteps(hardening: PiHardening, problems: string[]): void {
	const { maxTokens, maxTokensStep, prune, pruneStep } = hardening;
	if (maxTokens !== undefined && maxTokensStep !== undefined && maxTokensStep > maxTokens) {
		problems.push(
			`maxTokensStep (${maxTokensStep}) is larger than maxTokens (${maxTokens}): it takes 0 (no step) to maxTokens, and a quarter of maxTokens when it is not set; ${WITHHELD_UNTIL_FIXED}.`,
		);
		delete hardening.maxTokensStep;
	}
	if (pruneStep !== undefined && prune?.step !== undefined && pruneStep !== prune.step) {
		problems.push(
			`the prune step is set twice, as pruneStep (${pruneStep}) and as "step" in prune (${prune.step}): keep one; ${WITHHELD_UNTIL_FIXED}.`,
		);
		delete hardening.pruneStep;
	}
}

/** The extension's object in pi's settings, or `undefined` where there is none. */
function readSettings(pi: PiExtensionApi, places: PiSettingsPlaces | undefined, problems: string[]): unknown {
	if (typeof pi.getSettings !== "function") {
		return places === undefined ? undefined : readPiSettingsFiles(places)[SETTINGS_KEY];
	}
	try {
		return (pi.getSettings() as Record<string, unknown> | undefined)?.[SETTINGS_KEY];
	} catch (error) {
		problems.push(`pi's settings could not be read (${errorText(error)}); ${WITHHELD_UNTIL_FIXED}.`);
		return undefined;
	}
}

function applySettings(value: unknown, hardening: PiHardening, problems: string[]): void {
	if (value === undefined) return;
	if (!isJsonObject(value)) {
		problems.push(
			`settings "${SETTINGS_KEY}" is ${describeValue(value)}, not an object of switches such as { "redactSecrets": true }; ${WITHHELD_UNTIL_FIXED}.`,
		);
		return;
	}
	for (const [key, setting] of Object.entries(value)) {
		const entry = switchNamed(key);
		const wrong = entry === undefined ? undefined : entry.fromSettings(hardening, setting);
		if (entry === undefined) {
			problems.push(
				`settings "${SETTINGS_KEY}" has no switch ${quote(key)}${nearest(key)}; ${WITHHELD_UNTIL_FIXED}.`,
			);
		} else if (wrong !== undefined) {
			problems.push(
				`settings "${SETTINGS_KEY}.${key}" is ${describeValue(setting)}: ${key} ${wrong}; ${WITHHELD_UNTIL_FIXED}.`,
			);
		}
	}
}

/** ` (did you mean "redactSecrets"?); the switches are …`: the nearest switch to a name, then all of them. */
function nearest(name: string): string {
	return ` (did you mean ${JSON.stringify(nearestName(name, SWITCH_NAMES))}?); the switches are ${SWITCH_NAMES.join(", ")}`;
}

/**
 * Reads the flag's comma-separated switches: `name` (on; `lint` means `lint=report`) or `name=value`
 * with one of the values the switch takes. A token that does not parse exactly changes nothing and is
 * one problem naming the switch and its accepted forms (or, for an unknown name, the nearest switch).
 */
function applyFlag(flag: string, hardening: PiHardening, problems: string[]): void {
	for (const raw of flag.split(",")) {
		const token = raw.trim();
		if (token === "") continue;
		const equals = token.indexOf("=");
		const name = equals === -1 ? token : token.slice(0, equals);
		const value = equals === -1 ? undefined : token.slice(equals + 1);
		const entry = switchNamed(name);
		if (entry === undefined) {
			problems.push(`--${FLAG}: unknown switch ${quote(token)}${nearest(name)}; ${WITHHELD_UNTIL_FIXED}.`);
		} else if (entry.flag === undefined) {
			problems.push(
				`--${FLAG}: ${name} is set in settings.json only ("${name}" under "${SETTINGS_KEY}"), not in the flag; ${WITHHELD_UNTIL_FIXED}.`,
			);
		} else if (!entry.flag.read(hardening, value)) {
			problems.push(
				`--${FLAG}: ${quote(token)} is not understood; ${name} takes ${entry.flag.forms}; ${WITHHELD_UNTIL_FIXED}.`,
			);
		}
	}
}

/** The switches that are on, for the view's header: `escapeSummaries, lint=repair`, or `none`. */
export function hardeningText(hardening: PiHardening): string {
	const on: string[] = [];
	for (const entry of SWITCHES) {
		const shown = entry.shown(hardening);
		if (shown !== undefined) on.push(shown);
	}
	return on.length === 0 ? "none" : on.join(", ");
}

/**
 * pi's own `images.blockImages` setting, read as pi reads it: both lines' `SettingsManager.getBlockImages()`
 * return `settings.images?.blockImages ?? false`, and `sdk.js` blocks when that is truthy (`"true"`
 * and `1` block too). pi 1.x gives its merged settings (`pi.getSettings()`); pi 0.73.1 gives none, so
 * its settings files are read at `places` (see pi-settings-files.ts), or, with no places, pi's
 * answer is taken to be `false`. The one reader of the setting: the block plugin and lint both ask
 * it, on every request.
 */
export function piBlocksImages(pi: PiExtensionApi, places?: PiSettingsPlaces): boolean {
	if (typeof pi.getSettings !== "function") {
		if (places === undefined) return false;
		const images = readPiSettingsFiles(places).images as { blockImages?: unknown } | undefined;
		return Boolean(isJsonObject(images) ? (images.blockImages ?? false) : false);
	}
	try {
		const settings = pi.getSettings() as { images?: { blockImages?: unknown } } | null | undefined;
		return Boolean(settings?.images?.blockImages ?? false);
	} catch {
		// Cannot tell: count images as blocked, the safe answer for a setting that guards them.
		return true;
	}
}
