/** `clearToolResults`' options: their types, their defaults, and the one place they are checked. */
import type { Message } from "@earendil-works/pi-ai";
import { InvalidPluginError } from "../errors.js";
import { describeValue, isJsonObject } from "../values.js";
import { estimateTokens } from "./estimate-tokens.js";

/** Name of the `clearToolResults` plugin (its tap on `afterConvert`). */
export const CLEAR_TOOL_RESULTS_PLUGIN = "convert-to-llm:clear-tool-results";

/** The trigger when none is given, as LangChain's and Anthropic's: 100,000 tokens. */
export const DEFAULT_CLEAR_TRIGGER_TOKENS = 100_000;

/** The tool results kept when `keep` is not given, as LangChain's and Anthropic's: the last 3. */
export const DEFAULT_CLEAR_KEEP = 3;

/**
 * The share of the trigger that `clearAtLeast` is by default: a tenth of the smallest token threshold
 * (10,000 tokens for the default trigger), the cheapest step measured in docs/filters.md.
 */
export const DEFAULT_CLEAR_AT_LEAST_SHARE = 0.1;

/** How long a provider keeps a prompt cache by default (Anthropic's and pi-ai's default): 5 minutes. */
export const DEFAULT_CACHE_LIFETIME_MS = 300_000;

/**
 * One trigger condition, as LangChain's `ContextSize`: every field given must hold (AND); at least
 * one is given.
 *
 * @example
 * const trigger: ClearTrigger = { tokens: 80_000, messages: 40 }; // both
 */
export interface ClearTrigger {
	/** The request's tokens (all its messages, by the `tokenCounter`) are at least this; a number `> 0`. */
	tokens?: number;
	/** The request has at least this many messages; a whole number `> 0`. */
	messages?: number;
	/** The request's tokens are at least `floor(contextWindow * fraction)`; `0 < fraction <= 1`, needs `contextWindow`. */
	fraction?: number;
}

/**
 * Which tool results stay whole once clearing starts, counted from the end (results of excluded
 * tools and of the run in progress count too, as LangChain counts them).
 *
 * @example
 * const keep: ClearKeep = { tokens: 20_000 }; // the latest results that fit 20,000 tokens together
 */
export type ClearKeep = { messages: number } | { tokens: number };

/** When the cleared boundary may move: at any request (in steps of `clearAtLeast`), or only on a cold cache. */
export type ClearWhen = "always" | "cache-cold";

/**
 * Options of `clearToolResults`. Everything but `tokenCounter` and `now` is plain JSON, so a
 * settings file can hold it as it is.
 *
 * Contract: read once, by the factory; an unknown key or a value outside the types below throws
 * `InvalidPluginError` at once, naming the option.
 *
 * @example
 * const options: ClearToolResultsOptions = { trigger: { tokens: 80_000 }, keep: { messages: 5 }, excludeTools: ["todo"] };
 */
export interface ClearToolResultsOptions {
	/** When clearing starts: one condition, or a list of which any one will do. Default `{ tokens: 100_000 }`. */
	trigger?: ClearTrigger | readonly ClearTrigger[];
	/** The results kept whole. Default `{ messages: 3 }`. */
	keep?: ClearKeep;
	/** Tools whose results are never cleared (by the result's `toolName`, else its call's `name`). Default `[]`. */
	excludeTools?: readonly string[];
	/** Whether a cleared result's call gets `arguments: {}` too. Default `false`. */
	clearToolInputs?: boolean;
	/**
	 * The text of a cleared result. Default: one that names what was there, e.g.
	 * `[cleared: read src/parse.ts, 12,400 characters]`. Not empty.
	 */
	placeholder?: string;
	/** Whether a cleared result keeps its images (only its text is replaced). Default `false`: images go too. */
	keepImages?: boolean;
	/**
	 * The fewest tokens a move of the cleared boundary must clear; smaller moves wait, so that the
	 * prompt prefix stays byte-identical between moves. Default: a tenth of the smallest token
	 * threshold of the trigger (10,000 for the default trigger; 10,000 when no condition counts
	 * tokens), `0` with `when: "cache-cold"`. `0` clears exactly what LangChain's `ClearToolUsesEdit` clears.
	 */
	clearAtLeast?: number;
	/** `"always"` (default), or `"cache-cold"`: move only when the previous request is older than `cacheLifetimeMs`. */
	when?: ClearWhen;
	/** How long the provider keeps a prompt cache, in milliseconds. Default 300,000 (5 minutes). */
	cacheLifetimeMs?: number;
	/** The model's context window, in the counter's tokens; needed by a `fraction` trigger. */
	contextWindow?: number;
	/**
	 * The tokens of one message, as `trimToTokens`' `tokenCounter`. Default `estimateTokens`. A count
	 * that is not a finite number `>= 0`, or a throw, makes that message count `Infinity`, reported.
	 */
	tokenCounter?: (message: Message) => number;
	/** The time now, in milliseconds since the epoch (for `when: "cache-cold"`). Default `Date.now`. */
	now?: () => number;
}

/** A trigger condition read once: `tokens` is the condition's token threshold (`tokens`, `fraction`, or both: the larger). */
export interface TriggerCondition {
	readonly tokens: number | undefined;
	readonly messages: number | undefined;
}

/** The options read once, defaults filled in. */
export interface ClearSettings {
	readonly triggers: readonly TriggerCondition[];
	readonly keepMessages: number | undefined;
	readonly keepTokens: number | undefined;
	readonly excludeTools: ReadonlySet<string>;
	readonly clearToolInputs: boolean;
	readonly placeholder: string | undefined;
	readonly keepImages: boolean;
	readonly clearAtLeast: number;
	readonly when: ClearWhen;
	readonly cacheLifetimeMs: number;
	readonly tokenCounter: (message: Message) => number;
	readonly now: () => number;
	/** Set when `keep` can hold more tokens than the smallest trigger: said once per conversion that clears. */
	readonly keepNotice: string | undefined;
}

const KEYS: ReadonlySet<string> = new Set([
	"trigger",
	"keep",
	"excludeTools",
	"clearToolInputs",
	"placeholder",
	"keepImages",
	"clearAtLeast",
	"when",
	"cacheLifetimeMs",
	"contextWindow",
	"tokenCounter",
	"now",
]);

export function invalidClearOption(what: string): InvalidPluginError {
	return new InvalidPluginError(`clearToolResults: ${what}.`, { plugin: CLEAR_TOOL_RESULTS_PLUGIN });
}

function number(name: string, value: unknown, test: (n: number) => boolean, expected: string): number {
	if (typeof value !== "number" || !Number.isFinite(value) || !test(value))
		throw invalidClearOption(`${name} is ${describeValue(value)}; give ${expected}`);
	return value;
}

function boolean(name: string, value: unknown): boolean {
	if (value === undefined) return false;
	if (typeof value !== "boolean") throw invalidClearOption(`${name} is ${describeValue(value)}; give true or false`);
	return value;
}

function onlyKeys(name: string, value: Record<string, unknown>, keys: readonly string[]): void {
	for (const key of Object.keys(value))
		if (!keys.includes(key))
			throw invalidClearOption(`${name} has an unknown key ${JSON.stringify(key)}; use ${keys.join(", ")}`);
}

function readTrigger(value: unknown, index: string, contextWindow: number | undefined): TriggerCondition {
	const name = `trigger${index}`;
	if (!isJsonObject(value))
		throw invalidClearOption(`${name} is ${describeValue(value)}; give { tokens?, messages?, fraction? }`);
	onlyKeys(name, value, ["tokens", "messages", "fraction"]);
	const { tokens, messages, fraction } = value;
	if (tokens === undefined && messages === undefined && fraction === undefined)
		throw invalidClearOption(`${name} names no condition; give tokens, messages or fraction`);
	const threshold =
		tokens === undefined ? undefined : number(`${name}.tokens`, tokens, (n) => n > 0, "a finite number > 0");
	const count =
		messages === undefined
			? undefined
			: number(`${name}.messages`, messages, (n) => n > 0 && Number.isInteger(n), "a whole number > 0");
	let share: number | undefined;
	if (fraction !== undefined) {
		const f = number(`${name}.fraction`, fraction, (n) => n > 0 && n <= 1, "a number > 0 and <= 1");
		if (contextWindow === undefined)
			throw invalidClearOption(`${name}.fraction needs contextWindow, the model's context window in tokens`);
		share = Math.floor(contextWindow * f);
		if (share <= 0) throw invalidClearOption(`${name}.fraction of contextWindow ${contextWindow} is 0 tokens`);
	}
	const both = threshold === undefined ? share : share === undefined ? threshold : Math.max(threshold, share);
	return { tokens: both, messages: count };
}

function readKeep(value: unknown): { keepMessages: number | undefined; keepTokens: number | undefined } {
	if (value === undefined) return { keepMessages: DEFAULT_CLEAR_KEEP, keepTokens: undefined };
	if (!isJsonObject(value))
		throw invalidClearOption(`keep is ${describeValue(value)}; give { messages } or { tokens }`);
	onlyKeys("keep", value, ["messages", "tokens"]);
	const { messages, tokens } = value;
	if ((messages === undefined) === (tokens === undefined))
		throw invalidClearOption("keep takes exactly one of messages and tokens");
	if (messages !== undefined)
		return {
			keepMessages: number("keep.messages", messages, (n) => n >= 0 && Number.isInteger(n), "a whole number >= 0"),
			keepTokens: undefined,
		};
	return { keepMessages: undefined, keepTokens: number("keep.tokens", tokens, (n) => n >= 0, "a finite number >= 0") };
}

function readFunction<T>(name: string, value: unknown, fallback: T): T {
	if (value === undefined) return fallback;
	if (typeof value !== "function") throw invalidClearOption(`${name} is ${describeValue(value)}; give a function`);
	return value as T;
}

/** Reads and checks the options once; anything wrong throws {@link InvalidPluginError}. */
export function readClearOptions(options: ClearToolResultsOptions | undefined): ClearSettings {
	if (options !== undefined && !isJsonObject(options))
		throw invalidClearOption(`the options are ${describeValue(options)}; give an object`);
	const given = (options ?? {}) as Record<string, unknown>;
	for (const key of Object.keys(given))
		if (!KEYS.has(key))
			throw invalidClearOption(`unknown option ${JSON.stringify(key)}; use ${[...KEYS].join(", ")}`);
	const contextWindow =
		given.contextWindow === undefined
			? undefined
			: number("contextWindow", given.contextWindow, (n) => n > 0, "a finite number of tokens > 0");
	const rawTrigger = given.trigger ?? { tokens: DEFAULT_CLEAR_TRIGGER_TOKENS };
	let triggers: TriggerCondition[];
	if (Array.isArray(rawTrigger)) {
		if (rawTrigger.length === 0) throw invalidClearOption("trigger is an empty list, which never clears anything");
		triggers = rawTrigger.map((t, i) => readTrigger(t, `[${i}]`, contextWindow));
	} else triggers = [readTrigger(rawTrigger, "", contextWindow)];
	const { keepMessages, keepTokens } = readKeep(given.keep);
	const excludeTools = given.excludeTools ?? [];
	if (!Array.isArray(excludeTools) || !excludeTools.every((tool) => typeof tool === "string"))
		throw invalidClearOption(`excludeTools is ${describeValue(excludeTools)}; give a list of tool names`);
	const placeholder = given.placeholder;
	if (placeholder !== undefined && (typeof placeholder !== "string" || placeholder === ""))
		throw invalidClearOption(`placeholder is ${describeValue(placeholder)}; give a text that is not empty`);
	const when = given.when ?? "always";
	if (when !== "always" && when !== "cache-cold")
		throw invalidClearOption(`when is ${describeValue(when)}; give "always" or "cache-cold"`);
	const smallest = Math.min(...triggers.map((t) => t.tokens ?? Number.POSITIVE_INFINITY));
	const base = Number.isFinite(smallest) ? smallest : DEFAULT_CLEAR_TRIGGER_TOKENS;
	const clearAtLeast =
		given.clearAtLeast === undefined
			? when === "cache-cold"
				? 0
				: Math.floor(base * DEFAULT_CLEAR_AT_LEAST_SHARE)
			: number("clearAtLeast", given.clearAtLeast, (n) => n >= 0, "a finite number of tokens >= 0");
	const cacheLifetimeMs =
		given.cacheLifetimeMs === undefined
			? DEFAULT_CACHE_LIFETIME_MS
			: number("cacheLifetimeMs", given.cacheLifetimeMs, (n) => n >= 0, "a finite number of milliseconds >= 0");
	const keepNotice =
		keepTokens !== undefined && Number.isFinite(smallest) && keepTokens >= smallest
			? `keep { tokens: ${keepTokens} } is not below the trigger's ${smallest} tokens, so the kept results alone can hold the request above the trigger`
			: undefined;
	return {
		triggers,
		keepMessages,
		keepTokens,
		excludeTools: new Set(excludeTools as string[]),
		clearToolInputs: boolean("clearToolInputs", given.clearToolInputs),
		placeholder,
		keepImages: boolean("keepImages", given.keepImages),
		clearAtLeast,
		when,
		cacheLifetimeMs,
		tokenCounter: readFunction("tokenCounter", given.tokenCounter, estimateTokens),
		now: readFunction("now", given.now, Date.now),
		keepNotice,
	};
}

/**
 * A trigger condition as people type one (the CLI's `--clear-tool-results=trigger=…`, pi's
 * `clearToolResults=…` flag): `<tokens>`, or `tokens:<n>`, `messages:<n>`, `fraction:<f>` joined by
 * `+` (all must hold); or what is wrong with it, in words the front end puts in its own message.
 *
 * @example
 * parseTrigger("fraction:0.5+messages:40"); // { condition: { fraction: 0.5, messages: 40 } }
 */
export function parseTrigger(text: string): { condition: ClearTrigger } | { problem: string } {
	const condition: Record<string, number> = {};
	for (const part of text.split("+")) {
		const at = part.indexOf(":");
		const field = at < 0 ? "tokens" : part.slice(0, at);
		if (field !== "tokens" && field !== "messages" && field !== "fraction")
			return { problem: `trigger has an unknown field "${field}" (tokens, messages, fraction)` };
		if (condition[field] !== undefined) return { problem: `trigger=${text} gives ${field} twice` };
		const number = part.slice(at + 1);
		if (!/^\d{1,15}(\.\d{1,15})?$/.test(number))
			return { problem: `trigger ${field} takes a number, not ${JSON.stringify(number)}` };
		condition[field] = Number(number);
	}
	return { condition };
}
