import type { Message } from "@earendil-works/pi-ai";
import { ConversionError, InvalidPluginError } from "../errors.js";
import { type HookContext, type Plugin, Stage } from "../registry/types.js";
import { describeValue, errorText } from "../values.js";
import { estimateTokens } from "./estimate-tokens.js";

/** Name of the `trimToTokens` plugin (its tap on `afterConvert`). */
export const TRIM_TO_TOKENS_PLUGIN = "convert-to-llm:trim-to-tokens";

/**
 * The stage `trimToTokens` taps `afterConvert` at: after the sanitizers (`blockImages` turns an image
 * into a short text first, so the budget counts what is sent), before the checks at `VERIFY`.
 */
export const TRIM_STAGE = Stage.SANITIZE + 50;

/** The roles a trimmed history may start on (a `toolResult` never does: it would be an orphan). */
export type TrimStartRole = "user" | "assistant";

/**
 * Options of {@link trimToTokens}.
 *
 * @example
 * const options: TrimToTokensOptions = { maxTokens: 120_000, tokenCounter: (m) => myTokenizer.count(m) };
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
	 * The role(s) the kept messages must start on (after the system messages), as LangChain's
	 * `startOn`; applied whatever the budget. Default `"user"` (LangChain's `"human"`).
	 */
	startOn?: TrimStartRole | readonly TrimStartRole[];
}

const isSystem = (message: Message): boolean => (message.role as string) === "system";

/**
 * Keeps the most recent messages that fit a token budget, as LangChain's `trimMessages` with
 * `strategy: "last"`, `includeSystem: true`, `allowPartial: false` and `startOn: "human"`.
 *
 * Contract: every `system` message is kept, wherever it is (pi 1.x: it carries the system prompt and
 * the tool declarations) and counted first; the rest of the budget goes to the longest run of
 * messages at the end of the history that fits, then that run is shortened until it starts on a
 * `startOn` role, so the output never starts with an orphan tool result nor splits a call from its
 * result. Messages keep their order and identity. When the system messages alone exceed the budget,
 * or no message of a `startOn` role fits (LangChain then drops the system message or returns
 * `[undefined]`), the output is the system messages alone and one problem is reported, naming the
 * budget and what was needed. Taps `afterConvert` at {@link TRIM_STAGE}.
 *
 * @example
 * const registry = createDefaultRegistry().use(trimToTokens({ maxTokens: 120_000 }));
 */
export function trimToTokens(options: TrimToTokensOptions): Plugin {
	const { maxTokens, tokenCounter = estimateTokens, startOn = "user" } = options ?? ({} as TrimToTokensOptions);
	if (typeof maxTokens !== "number" || !(maxTokens >= 0) || !Number.isFinite(maxTokens))
		throw invalid(`maxTokens is ${describeValue(maxTokens)}; give a finite number >= 0`);
	if (typeof tokenCounter !== "function")
		throw invalid(`tokenCounter is ${describeValue(tokenCounter)}; give a function`);
	const starts = new Set<unknown>(typeof startOn === "string" ? [startOn] : startOn);
	for (const role of starts)
		if (role !== "user" && role !== "assistant")
			throw invalid(`startOn holds ${describeValue(role)}; use "user" or "assistant"`);

	const filter = (messages: Message[], ctx: HookContext): Message[] => {
		const tokens = countAll(messages, tokenCounter, ctx);
		let systemTokens = 0;
		for (let i = 0; i < messages.length; i++)
			if (isSystem(messages[i] as Message)) systemTokens += tokens[i] as number;
		const start = tailStart(messages, tokens, maxTokens - systemTokens, starts);
		const kept: Message[] = [];
		let others = 0;
		for (let i = 0; i < messages.length; i++) {
			const message = messages[i] as Message;
			if (isSystem(message)) kept.push(message);
			else if (i >= start) {
				kept.push(message);
				others++;
			}
		}
		if (systemTokens > maxTokens || (others === 0 && messages.length > 0))
			ctx.report(overBudget(messages, tokens, systemTokens, maxTokens, starts));
		return kept.length === messages.length ? messages : kept;
	};

	return {
		name: TRIM_TO_TOKENS_PLUGIN,
		apply(registry) {
			registry.hooks.afterConvert.tap({ name: TRIM_TO_TOKENS_PLUGIN, stage: TRIM_STAGE }, filter);
		},
	};
}

function invalid(what: string): InvalidPluginError {
	return new InvalidPluginError(`trimToTokens: ${what}.`, { plugin: TRIM_TO_TOKENS_PLUGIN });
}

/** Each message's tokens; a bad count (or a throwing counter) is `Infinity`, reported once per conversion. */
function countAll(messages: readonly Message[], counter: (message: Message) => number, ctx: HookContext): number[] {
	const tokens = new Array<number>(messages.length);
	let reported = false;
	for (let i = 0; i < messages.length; i++) {
		let count: unknown;
		let cause: unknown;
		try {
			count = counter(messages[i] as Message);
		} catch (error) {
			cause = error;
		}
		if (typeof count === "number" && count >= 0 && Number.isFinite(count)) {
			tokens[i] = count;
			continue;
		}
		tokens[i] = Number.POSITIVE_INFINITY;
		if (reported) continue;
		reported = true;
		const what = cause === undefined ? `returned ${describeValue(count)}` : `threw: ${errorText(cause)}`;
		ctx.report(
			new ConversionError(
				`trimToTokens: the token counter ${what} for output message ${i}. That message counts as never fitting the budget (a system message is kept all the same); fix the counter.`,
				{ plugin: TRIM_TO_TOKENS_PLUGIN, cause },
			),
		);
	}
	return tokens;
}

/**
 * The index the kept run of non-system messages starts at: the longest run at the end that fits
 * `budget`, shortened to start on a `starts` role; `messages.length` when nothing qualifies.
 */
function tailStart(
	messages: readonly Message[],
	tokens: readonly number[],
	budget: number,
	starts: ReadonlySet<unknown>,
): number {
	let start = messages.length;
	let used = 0;
	for (let i = messages.length - 1; i >= 0; i--) {
		if (isSystem(messages[i] as Message)) continue;
		used += tokens[i] as number;
		if (used > budget) break;
		start = i;
	}
	while (start < messages.length) {
		const role = (messages[start] as Message).role;
		if (role !== "toolResult" && (role as string) !== "system" && starts.has(role)) break;
		start++;
	}
	return start;
}

function overBudget(
	messages: readonly Message[],
	tokens: readonly number[],
	systemTokens: number,
	maxTokens: number,
	starts: ReadonlySet<unknown>,
): ConversionError {
	const roles = [...starts].map((role) => `"${String(role)}"`).join(" or ");
	let need = "";
	if (systemTokens > maxTokens) need = `the system messages alone need ${systemTokens} tokens`;
	else {
		// The smallest run that would do: from the last message of a start role to the end.
		let tail = 0;
		let found = false;
		for (let i = messages.length - 1; i >= 0 && !found; i--) {
			const message = messages[i] as Message;
			if (isSystem(message)) continue;
			tail += tokens[i] as number;
			found = starts.has(message.role);
		}
		need = found
			? `the system messages need ${systemTokens} tokens and the last ${roles} message with what follows it ${tail} more`
			: `no ${roles} message is left to start on`;
	}
	return new ConversionError(
		`trimToTokens: nothing but the system messages fits the budget of ${maxTokens} tokens: ${need}. Only the system messages were kept; raise maxTokens or compact the history.`,
		{ plugin: TRIM_TO_TOKENS_PLUGIN },
	);
}
