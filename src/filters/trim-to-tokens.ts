/**
 * The `trimToTokens` plugin and its options (LangChain's `trimMessages` options, with pi's role names), read and
 * checked once by `readTrimOptions`; the trim itself is in trim-window.ts.
 */
import type { Message } from "@earendil-works/pi-ai";
import { InvalidPluginError } from "../errors.js";
import { type HookContext, type Plugin, Stage } from "../registry/types.js";
import { describeValue, isRecord } from "../values.js";
import { estimateTokens } from "./estimate-tokens.js";
import { TRIM_TO_TOKENS_PLUGIN, type TrimSettings, trimList } from "./trim-window.js";

export { TRIM_TO_TOKENS_PLUGIN } from "./trim-window.js";

/**
 * The stage `trimToTokens` taps `afterConvert` at: after the sanitizers (`blockImages` turns an image
 * into a short text first, so the budget counts what is sent), before the checks at `VERIFY`.
 */
export const TRIM_STAGE = Stage.SANITIZE + 50;

/** The roles a trimmed history may start on (a `toolResult` never does: it would be an orphan). */
export type TrimStartRole = "user" | "assistant";

/** The roles a trimmed history may end on (`endOn`). */
export type TrimEndRole = "user" | "assistant" | "toolResult";

/**
 * Options of {@link trimToTokens} (and of `trimMessageList`): LangChain's `trimMessages` options where
 * they mean the same, with pi's role names.
 *
 * Contract: read once, by the factory; a value outside the types below throws `InvalidPluginError` at
 * once. LangChain's `includeSystem: false` and `allowPartial: true` are refused with the reason (every
 * system message is kept; a message is kept whole or not at all); their other values are accepted.
 *
 * @example
 * const options: TrimToTokensOptions = { maxTokens: 120_000, step: 30_000, tokenCounter: (m) => myTokenizer.count(m) };
 */
export interface TrimToTokensOptions {
	/** The budget, in the counter's tokens; a finite number `>= 0`. */
	maxTokens: number;
	/**
	 * The tokens of one message. Default {@link estimateTokens}, pi's own estimate. A count that is
	 * not a finite number `>= 0`, or a counter that throws, makes that message count `Infinity` (it
	 * never fits), and is reported.
	 */
	tokenCounter?: (message: Message) => number;
	/**
	 * `"last"` (default): the latest messages that fit; `"first"`: the earliest ones (LangChain's
	 * strategies). `"first"` drops the newest prompt: it is for requests built from the start of a
	 * history (a summary of the early turns), not for the agent's next request.
	 */
	strategy?: "last" | "first";
	/**
	 * The role(s) the kept messages must start on (after the system messages), as LangChain's
	 * `startOn`; applied whatever the budget. Default `"user"` (LangChain's `"human"`). `"last"` only,
	 * as in LangChain.
	 */
	startOn?: TrimStartRole | readonly TrimStartRole[];
	/**
	 * The role(s) the kept messages must end on, as LangChain's `endOn` (with `"last"`: trailing
	 * messages of other roles go first, then the budget is applied). Default: any role.
	 */
	endOn?: TrimEndRole | readonly TrimEndRole[];
	/**
	 * Cache-stable trimming (`"last"` only): the kept run starts on a grid of `step` tokens of the
	 * history, so the start moves only when the history has grown by `step` tokens, and the request's
	 * prefix stays byte-stable in between (a provider's prompt cache keeps it). The output is as much
	 * as `step` tokens smaller than the budget right after a move. A finite number `> 0` and
	 * `<= maxTokens`; a quarter of `maxTokens` keeps over 90% of the prefix on a tool-heavy session.
	 * Default: none (the start moves whenever the history grows).
	 */
	step?: number;
	/** LangChain's `includeSystem`: only `true` (every system message is always kept, and counted first). */
	includeSystem?: true;
	/** LangChain's `allowPartial`: only `false` (a message is kept whole or not at all). */
	allowPartial?: false;
}

const START_ROLES: readonly unknown[] = ["user", "assistant"];
const END_ROLES: readonly unknown[] = ["user", "assistant", "toolResult"];
/** LangChain's message types, named in an error for a role given by its LangChain name. */
const LANGCHAIN_ROLES: ReadonlyMap<unknown, string> = new Map([
	["human", "user"],
	["ai", "assistant"],
	["tool", "toolResult"],
]);

/**
 * Keeps the most recent messages that fit a token budget, as LangChain's `trimMessages` with
 * `strategy: "last"`, `includeSystem: true`, `allowPartial: false` and `startOn: "human"`.
 *
 * Contract: every `system` message is kept, wherever it is (pi 1.x: it carries the system prompt and
 * the tool declarations) and counted first; the rest of the budget goes to the longest run of
 * messages at the end of the history that fits, then that run is shortened until it starts on a
 * `startOn` role at a place that splits no tool call from its result, so every `toolResult` kept has
 * its call in a kept assistant message before it, whatever roles sit between them (a custom message
 * or a bash run, as the user messages they become). With `step`, the run starts on a grid of the
 * history's tokens instead (see {@link TrimToTokensOptions.step}); without it, the output is the same
 * as before `step` existed. `strategy: "first"` and `endOn` cut the end the same way (never between
 * a call and its result). Messages keep their order and identity. When the system messages alone
 * exceed the budget, or no message of a `startOn` role fits (LangChain then drops the system message
 * or returns `[undefined]`), the output is the system messages alone and one problem is reported,
 * naming the budget and what was needed. Taps `afterConvert` at {@link TRIM_STAGE}. To trim a
 * `Message[]` without a registry, call `trimMessageList(messages, options)`; given a `messages` key
 * or a list, this factory throws `InvalidPluginError` naming it.
 *
 * @example
 * const registry = createDefaultRegistry().use(trimToTokens({ maxTokens: 120_000, step: 30_000 }));
 */
export function trimToTokens(options: TrimToTokensOptions): Plugin {
	if (Array.isArray(options) || (isRecord(options) && "messages" in options))
		throw invalid(
			"trimToTokens",
			`was given ${Array.isArray(options) ? "a list of messages" : "a messages key"}; it makes a plugin from options alone. To trim a Message[] now, call trimMessageList(messages, { maxTokens, … })`,
		);
	const settings = readTrimOptions(options, "trimToTokens");
	const filter = (messages: Message[], ctx: HookContext): Message[] => trimList(messages, settings, ctx);
	return {
		name: TRIM_TO_TOKENS_PLUGIN,
		apply(registry) {
			registry.hooks.afterConvert.tap({ name: TRIM_TO_TOKENS_PLUGIN, stage: TRIM_STAGE }, filter);
		},
	};
}

/** Reads and checks the options of `trimToTokens` / `trimMessageList` (`who`, for the error messages). */
export function readTrimOptions(options: TrimToTokensOptions, who: string): TrimSettings {
	const {
		maxTokens,
		tokenCounter = estimateTokens,
		strategy = "last",
		startOn,
		endOn,
		step,
		includeSystem,
		allowPartial,
	} = (isRecord(options) ? options : {}) as TrimToTokensOptions;
	if (typeof maxTokens !== "number" || !(maxTokens >= 0) || !Number.isFinite(maxTokens))
		throw invalid(who, `maxTokens is ${describeValue(maxTokens)}; give a finite number >= 0`);
	if (typeof tokenCounter !== "function")
		throw invalid(who, `tokenCounter is ${describeValue(tokenCounter)}; give a function of one message`);
	if (strategy !== "last" && strategy !== "first")
		throw invalid(who, `strategy is ${describeValue(strategy)}; use "last" or "first"`);
	if (strategy === "first" && startOn !== undefined)
		throw invalid(who, 'startOn applies to strategy "last" only (as in LangChain); use endOn with "first"');
	if (includeSystem !== undefined && includeSystem !== true)
		throw invalid(
			who,
			`includeSystem is ${describeValue(includeSystem)}; every system message is kept (pi 1.x's carries the system prompt and the tools), so only true is accepted: drop the system messages yourself before trimming if you mean to`,
		);
	if (allowPartial !== undefined && allowPartial !== false)
		throw invalid(
			who,
			`allowPartial is ${describeValue(allowPartial)}; a message is kept whole or not at all (half a tool result reads as a whole one, a cut thinking block loses its signature), so only false is accepted`,
		);
	if (step !== undefined) {
		if (typeof step !== "number" || !(step > 0) || !Number.isFinite(step) || step > maxTokens)
			throw invalid(who, `step is ${describeValue(step)}; give a finite number > 0 and <= maxTokens (${maxTokens})`);
		if (strategy === "first")
			throw invalid(who, 'step applies to strategy "last" only; "first" keeps the start of the history as it is');
	}
	return {
		maxTokens,
		counter: tokenCounter,
		strategy,
		starts: readRoles(startOn ?? "user", START_ROLES, "startOn", who),
		ends: endOn === undefined ? undefined : readRoles(endOn, END_ROLES, "endOn", who),
		step,
	};
}

function readRoles(roles: unknown, allowed: readonly unknown[], name: string, who: string): ReadonlySet<unknown> {
	const list: readonly unknown[] = typeof roles === "string" ? [roles] : Array.isArray(roles) ? roles : [roles];
	const names = allowed.map((role) => `"${String(role)}"`).join(", ");
	if (list.length === 0) throw invalid(who, `${name} is an empty list; give one or more of ${names}`);
	for (const role of list) {
		if (allowed.includes(role)) continue;
		const pi = LANGCHAIN_ROLES.get(role);
		const hint = pi !== undefined && allowed.includes(pi) ? ` (LangChain's "${String(role)}" is pi's "${pi}")` : "";
		throw invalid(who, `${name} holds ${describeValue(role)}; use ${names}${hint}`);
	}
	return new Set(list);
}

function invalid(who: string, what: string): InvalidPluginError {
	return new InvalidPluginError(`${who}: ${what}.`, { plugin: TRIM_TO_TOKENS_PLUGIN });
}
