/** `pruneMessageList`: `pruneMessages` as a function over a pi-ai `Message[]`, in the AI SDK's call shape. */
import type { Message } from "@earendil-works/pi-ai";
import { InvalidMessageError, InvalidPluginError } from "../errors.js";
import { describeValue, isRecord } from "../values.js";
import { type ListProblemOptions, listSink } from "./problem-sink.js";
import { PRUNE_MESSAGES_PLUGIN, pruneList } from "./prune-list.js";
import { type PruneMessagesOptions, readPruneOptions } from "./prune-messages.js";

/**
 * The argument of {@link pruneMessageList}: the messages and the options of `pruneMessages`, in one
 * object as the AI SDK's `pruneMessages({ messages, … })` takes them, plus what to do with a problem.
 *
 * @example
 * const args: PruneMessageListArgs = { messages, reasoning: "all", toolCalls: "before-last-2-messages" };
 */
export interface PruneMessageListArgs extends PruneMessagesOptions, ListProblemOptions {
	/** The converted history (pi-ai `Message[]`); not changed. */
	messages: readonly Message[];
}

/**
 * Prunes a pi-ai `Message[]` now, in the AI SDK's call shape (`pruneMessages({ messages, … })`): the
 * function beside the `pruneMessages` plugin, with its options, its decisions and pi's rules (a call
 * and its result go together; user and system messages stay), plus `step`.
 *
 * Contract: returns a new array; unchanged messages keep their identity, a changed one is
 * `{ ...message, content }`; the input is not changed. Options are read as `pruneMessages` reads them
 * (`InvalidPluginError` for a bad one); a `messages` that is not an array throws
 * `InvalidMessageError`. A message it cannot read is a problem: thrown, or handed to `onProblem` and
 * left out (see {@link ListProblemOptions}).
 *
 * @example
 * const pruned = pruneMessageList({ messages, reasoning: "before-last-message", toolCalls: "before-last-2-messages" });
 */
export function pruneMessageList(args: PruneMessageListArgs): Message[] {
	if (!isRecord(args) || !Array.isArray(args.messages))
		throw new InvalidMessageError(
			`pruneMessageList: ${isRecord(args) ? `messages is ${describeValue(args.messages)}` : `was given ${describeValue(args)}`}; call it as pruneMessageList({ messages, … }) with a pi-ai Message[].`,
			{ plugin: PRUNE_MESSAGES_PLUGIN },
		);
	const { messages, onProblem, ...options } = args;
	const settings = readPruneOptions(options, "pruneMessageList");
	const sink = listSink(
		onProblem,
		(what) => new InvalidPluginError(`pruneMessageList: ${what}.`, { plugin: PRUNE_MESSAGES_PLUGIN }),
	);
	const output = pruneList(messages as Message[], settings, sink);
	return output === messages ? output.slice() : output;
}
