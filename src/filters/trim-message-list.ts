/** `trimMessageList`: `trimToTokens` as a function over a pi-ai `Message[]`, in LangChain's call shape. */
import type { Message } from "@earendil-works/pi-ai";
import { InvalidMessageError, InvalidPluginError } from "../errors.js";
import { describeValue } from "../values.js";
import { type ListProblemOptions, listSink } from "./problem-sink.js";
import { readTrimOptions, type TrimToTokensOptions } from "./trim-to-tokens.js";
import { TRIM_TO_TOKENS_PLUGIN, trimList } from "./trim-window.js";

/**
 * Options of {@link trimMessageList}: those of `trimToTokens`, plus what to do with a problem.
 *
 * @example
 * const options: TrimMessageListOptions = { maxTokens: 8_000, endOn: "toolResult", onProblem: console.warn };
 */
export interface TrimMessageListOptions extends TrimToTokensOptions, ListProblemOptions {}

/**
 * Trims a pi-ai `Message[]` to a token budget now, in LangChain's call shape
 * (`trimMessages(messages, { maxTokens, … })`): the function beside the `trimToTokens` plugin, with its
 * options and its rules (every system message kept, never a tool result without its call, `step` for
 * a cache-stable start). Synchronous; `await` on it works as on LangChain's.
 *
 * Contract: returns a new array of the kept messages, in order and by identity; the input is not
 * changed. Options are read as `trimToTokens` reads them (`InvalidPluginError` for a bad one); a
 * `messages` that is not an array throws `InvalidMessageError`. A problem (an unusable token count,
 * nothing but the system messages fitting) is thrown, or handed to `onProblem` (see
 * {@link ListProblemOptions}).
 *
 * @example
 * const kept = trimMessageList(messages, { maxTokens: 8_000 });
 */
export function trimMessageList(messages: readonly Message[], options: TrimMessageListOptions): Message[] {
	if (!Array.isArray(messages))
		throw new InvalidMessageError(
			`trimMessageList: messages is ${describeValue(messages)}; give a pi-ai Message[] (the output of convertToLlm or a registry's convert).`,
			{ plugin: TRIM_TO_TOKENS_PLUGIN },
		);
	const settings = readTrimOptions(options, "trimMessageList");
	const sink = listSink(
		options.onProblem,
		(what) => new InvalidPluginError(`trimMessageList: ${what}.`, { plugin: TRIM_TO_TOKENS_PLUGIN }),
	);
	const kept = trimList(messages as Message[], settings, sink);
	return kept === messages ? kept.slice() : kept;
}
