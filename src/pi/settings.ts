/**
 * The extension's configuration, taken the ways pi extensions take it: a `convertToLlm` object in
 * pi's settings.json (read with `pi.getSettings()`, pi 1.x) and the `--convert-to-llm` flag (both
 * lines; it wins over the settings, for one run). With neither, every switch is off and the extension
 * sends exactly what pi would.
 */

import { type PruneMessagesOptions, pruneMessages } from "../filters/prune-messages.js";
import { errorText, isJsonObject } from "../values.js";
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
 * settings or the flag is reported and lint stays off.
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
	/** `trimToTokens({ maxTokens })`: the latest messages that fit, by pi's estimate. */
	maxTokens?: number;
	/** `pruneMessages(prune)`: the AI SDK's options (settings.json only). */
	prune?: PruneMessagesOptions;
}

/** Every switch off: the default, which changes nothing on the wire. */
export const DEFAULT_HARDENING: Readonly<PiHardening> = Object.freeze({
	escapeSummaries: false,
	safeFences: false,
	blockImages: false,
	strictImages: false,
	lint: "off",
	strict: false,
});

const BOOLEAN_KEYS = ["escapeSummaries", "safeFences", "blockImages", "strictImages", "strict"] as const;
const LINT_MODES: readonly string[] = ["off", "report", "repair"];

/** The configuration and what was wrong with it (one line each, to show as warnings). */
export interface ReadHardening {
	hardening: PiHardening;
	problems: string[];
}

/** Registers the flag; call it from the factory. */
export function registerFlag(pi: PiExtensionApi): void {
	pi.registerFlag(FLAG, {
		description:
			"convert-to-llm hardening, comma-separated: escapeSummaries, safeFences, blockImages, strictImages, lint=report|repair, strict, redactSecrets, maxTokens=<n>",
		type: "string",
	});
}

/** Reads the settings, then the flag over them. Never throws: what cannot be read is a problem, and stays off. */
export function readHardening(pi: PiExtensionApi): ReadHardening {
	const hardening: PiHardening = { ...DEFAULT_HARDENING };
	const problems: string[] = [];
	applySettings(pi, hardening, problems);
	let flag: unknown;
	try {
		flag = pi.getFlag(FLAG);
	} catch {
		flag = undefined;
	}
	if (typeof flag === "string" && flag.trim() !== "") applyFlag(flag, hardening, problems);
	return { hardening, problems };
}

function applySettings(pi: PiExtensionApi, hardening: PiHardening, problems: string[]): void {
	if (typeof pi.getSettings !== "function") return;
	let value: unknown;
	try {
		value = (pi.getSettings() as Record<string, unknown> | undefined)?.[SETTINGS_KEY];
	} catch {
		return;
	}
	if (value === undefined) return;
	if (!isJsonObject(value)) {
		problems.push(`settings "${SETTINGS_KEY}" must be an object; it was ignored.`);
		return;
	}
	for (const [key, setting] of Object.entries(value)) {
		if (key === "lint") {
			if (typeof setting === "string" && LINT_MODES.includes(setting)) hardening.lint = setting as PiLintMode;
			else problems.push(`settings "${SETTINGS_KEY}.lint" must be "off", "report" or "repair"; lint stays off.`);
		} else if (key === "redactSecrets") {
			if (typeof setting === "boolean") hardening.redactSecrets = setting;
			else problems.push(`settings "${SETTINGS_KEY}.redactSecrets" must be true or false; it stays off.`);
		} else if (key === "maxTokens") {
			if (isTokenBudget(setting)) hardening.maxTokens = setting;
			else problems.push(`settings "${SETTINGS_KEY}.maxTokens" must be a whole number >= 0; nothing is trimmed.`);
		} else if (key === "prune") {
			const problem = pruneProblem(setting);
			if (problem === undefined) hardening.prune = setting as PruneMessagesOptions;
			else problems.push(`settings "${SETTINGS_KEY}.prune": ${problem}; nothing is pruned.`);
		} else if ((BOOLEAN_KEYS as readonly string[]).includes(key)) {
			if (typeof setting === "boolean") hardening[key as (typeof BOOLEAN_KEYS)[number]] = setting;
			else problems.push(`settings "${SETTINGS_KEY}.${key}" must be true or false; it stays off.`);
		} else {
			problems.push(`settings "${SETTINGS_KEY}" has no switch "${key}"; ${switchesText}.`);
		}
	}
}

const switchesText = `the switches are ${[...BOOLEAN_KEYS, "lint", "redactSecrets", "maxTokens", "prune"].join(", ")}`;

const isTokenBudget = (value: unknown): value is number =>
	typeof value === "number" && Number.isInteger(value) && value >= 0;

/** What is wrong with a `prune` setting (the plugin's own check), or `undefined`. */
function pruneProblem(setting: unknown): string | undefined {
	if (!isJsonObject(setting)) return "must be an object of pruneMessages options";
	try {
		pruneMessages(setting as PruneMessagesOptions);
		return undefined;
	} catch (error) {
		return errorText(error);
	}
}

/**
 * Reads the flag's comma-separated switches: `name` (on; `lint` means `lint=report`) or `name=value`
 * with one of the values the switch takes. A token that does not parse exactly is ignored as a whole
 * and said in one line naming the switch and its accepted values; the other switches still apply.
 */
function applyFlag(flag: string, hardening: PiHardening, problems: string[]): void {
	for (const raw of flag.split(",")) {
		const token = raw.trim();
		if (token === "") continue;
		const equals = token.indexOf("=");
		const name = equals === -1 ? token : token.slice(0, equals);
		const value = equals === -1 ? undefined : token.slice(equals + 1);
		if (name === "redactSecrets") {
			if (value === undefined || value === "true" || value === "false") hardening.redactSecrets = value !== "false";
			else
				problems.push(
					`--${FLAG}: "${token}" is not understood; redactSecrets takes redactSecrets, redactSecrets=true or redactSecrets=false; it was ignored.`,
				);
		} else if (name === "maxTokens") {
			if (value !== undefined && /^[0-9]{1,15}$/.test(value)) hardening.maxTokens = Number(value);
			else
				problems.push(
					`--${FLAG}: "${token}" is not understood; maxTokens takes maxTokens=<a whole number of tokens>, such as maxTokens=120000; it was ignored.`,
				);
		} else if (name === "lint") {
			const mode = value ?? "report";
			if (LINT_MODES.includes(mode)) hardening.lint = mode as PiLintMode;
			else
				problems.push(
					`--${FLAG}: "${token}" is not understood; lint takes lint, lint=report, lint=repair or lint=off; it was ignored.`,
				);
		} else if ((BOOLEAN_KEYS as readonly string[]).includes(name)) {
			const key = name as (typeof BOOLEAN_KEYS)[number];
			if (value === undefined || value === "true") hardening[key] = true;
			else if (value === "false") hardening[key] = false;
			else
				problems.push(
					`--${FLAG}: "${token}" is not understood; ${name} takes ${name}, ${name}=true or ${name}=false; it was ignored.`,
				);
		} else {
			problems.push(`--${FLAG}: unknown switch "${token}"; ${switchesText}.`);
		}
	}
}

/** The switches that are on, for the view's header: `escapeSummaries, lint=repair`, or `none`. */
export function hardeningText(hardening: PiHardening): string {
	const on: string[] = BOOLEAN_KEYS.filter((key) => hardening[key]);
	if (hardening.lint !== "off") on.push(`lint=${hardening.lint}`);
	if (hardening.redactSecrets === true) on.push("redactSecrets");
	if (hardening.maxTokens !== undefined) on.push(`maxTokens=${hardening.maxTokens}`);
	if (hardening.prune !== undefined) on.push("prune");
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
