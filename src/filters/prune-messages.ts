/**
 * The `pruneMessages` plugin and its options (`reasoning`, `toolCalls`, `step`), read and checked once by
 * `readPruneOptions`; the pruning itself is in prune-list.ts.
 */
import type { Message } from "@earendil-works/pi-ai";
import { InvalidPluginError } from "../errors.js";
import { type HookContext, type Plugin, Stage } from "../registry/types.js";
import { describeValue, isRecord } from "../values.js";
import { PRUNE_MESSAGES_PLUGIN, type PruneRule, type PruneSettings, pruneList } from "./prune-list.js";

export { PRUNE_MESSAGES_PLUGIN } from "./prune-list.js";

/** The stage `pruneMessages` taps `afterConvert` at: an ordinary transform, before the sanitizers. */
export const PRUNE_STAGE = Stage.DEFAULT;

/** Which thinking blocks go, as the AI SDK's `reasoning` option. */
export type PruneReasoning = "all" | "before-last-message" | "none";

/** Where tool calls go: everywhere, or outside the last message(s). */
export type PruneToolCallsScope = "all" | "before-last-message" | `before-last-${number}-messages`;

/**
 * One tool-call rule, as the AI SDK's: prune the calls (and their results) in `type`'s scope, only
 * those of `tools` when given.
 *
 * @example
 * const rule: PruneToolCallsRule = { type: "before-last-2-messages", tools: ["read", "bash"] };
 */
export interface PruneToolCallsRule {
	readonly type: PruneToolCallsScope;
	readonly tools?: readonly string[];
}

/**
 * Options of {@link pruneMessages}: the AI SDK's `pruneMessages` options, names, values and
 * defaults alike.
 *
 * Contract: read once, by the factory; a value outside the types below throws `InvalidPluginError`
 * at once. `toolCalls` rules apply one after the other, each on the previous one's result, and the
 * window of a rule counts messages (every role) from the end of the history.
 *
 * @example
 * const options: PruneMessagesOptions = { reasoning: "before-last-message", toolCalls: "before-last-2-messages" };
 */
export interface PruneMessagesOptions {
	/** Thinking blocks to remove from assistant messages. Default `"none"`. */
	reasoning?: PruneReasoning;
	/** Tool calls to remove, with their results. Default `[]` (none). */
	toolCalls?: PruneToolCallsScope | "none" | readonly PruneToolCallsRule[];
	/** Whether an assistant message left (or found) without content is removed. Default `"remove"`. */
	emptyMessages?: "keep" | "remove";
	/**
	 * Cache-stable pruning (not an AI SDK option): each `toolCalls` window (`before-last-message`,
	 * `before-last-N-messages`) starts on a multiple of `step` messages, at least N from the end, so
	 * it moves only once the history has grown by `step` messages and what was pruned stays as it was
	 * in between (a provider's prompt cache keeps the request's prefix). Nothing inside the last N
	 * is ever pruned; up to `step - 1` more messages keep their calls. A whole number `>= 1`.
	 * Default: none (the window moves with every message).
	 */
	step?: number;
}

/**
 * Drops thinking blocks and tool calls from a converted history, as the Vercel AI SDK's
 * `pruneMessages` does to its model messages: a `thinking` block is a reasoning part, a `toolCall`
 * block a tool-call part, and each `toolResult` message one tool message holding one tool result.
 *
 * Contract: same option names, values, defaults and decisions as the AI SDK (`ai` 6), with what pi's
 * message shapes need on top: a tool call and its result always go together (a pruned `toolResult`
 * message is removed even with `emptyMessages: "keep"`, since pi would otherwise send an orphan
 * result); a thinking block's signature goes with the block; `user` and `system` messages pass
 * through, even when empty; `"remove"` drops assistant messages left empty, and those that already
 * were. Unchanged messages (and the array, when nothing changes) are passed on as they are; a
 * changed one becomes `{ ...message, content }`. A message it cannot read (a throwing getter) is
 * dropped and reported. With `step`, the `toolCalls` windows move in steps (see
 * {@link PruneMessagesOptions.step}); without it, the output is the same as before `step` existed.
 * Taps `afterConvert` at {@link PRUNE_STAGE}, so it runs for `convert` and `convertAsync` alike. To
 * prune a `Message[]` without a registry, call `pruneMessageList({ messages, … })`; given a
 * `messages` key or a list, this factory throws `InvalidPluginError` naming it.
 *
 * @example
 * const registry = createDefaultRegistry().use(
 *   pruneMessages({ reasoning: "before-last-message", toolCalls: "before-last-2-messages" }),
 * );
 */
export function pruneMessages(options: PruneMessagesOptions = {}): Plugin {
	if (Array.isArray(options) || (isRecord(options) && "messages" in options))
		throw new InvalidPluginError(
			`pruneMessages: was given ${Array.isArray(options) ? "a list of messages" : "a messages key"}; it makes a plugin from options alone (the AI SDK's pruneMessages({ messages, … }) prunes at once). To prune a Message[] now, call pruneMessageList({ messages, … }).`,
			{ plugin: PRUNE_MESSAGES_PLUGIN },
		);
	const settings = readPruneOptions(options, "pruneMessages");
	const filter = (messages: Message[], ctx: HookContext): Message[] => pruneList(messages, settings, ctx);
	return {
		name: PRUNE_MESSAGES_PLUGIN,
		apply(registry) {
			registry.hooks.afterConvert.tap({ name: PRUNE_MESSAGES_PLUGIN, stage: PRUNE_STAGE }, filter);
		},
	};
}

/** Reads and checks the options of `pruneMessages` / `pruneMessageList` (`who`, for the error messages). */
export function readPruneOptions(options: PruneMessagesOptions, who: string): PruneSettings {
	const { reasoning = "none", toolCalls = [], emptyMessages = "remove", step } = options;
	const invalid = (name: string, value: unknown, expected: string) => invalidOption(who, name, value, expected);
	if (reasoning !== "all" && reasoning !== "before-last-message" && reasoning !== "none")
		throw invalid("reasoning", reasoning, '"all", "before-last-message" or "none"');
	if (emptyMessages !== "keep" && emptyMessages !== "remove")
		throw invalid("emptyMessages", emptyMessages, '"keep" or "remove"');
	if (step !== undefined && !(typeof step === "number" && Number.isSafeInteger(step) && step >= 1))
		throw invalidOption(
			who,
			"step",
			step,
			"a whole number of messages >= 1 (not an AI SDK option: see the docs)",
			"",
		);
	return { reasoning, rules: readRules(toolCalls, invalid), removeEmpty: emptyMessages === "remove", step };
}

function invalidOption(
	who: string,
	name: string,
	value: unknown,
	expected: string,
	as = ", as the AI SDK's pruneMessages",
): InvalidPluginError {
	return new InvalidPluginError(`${who}: option ${name} is ${describeValue(value)}; expected ${expected}${as}.`, {
		plugin: PRUNE_MESSAGES_PLUGIN,
	});
}

type Invalid = (name: string, value: unknown, expected: string) => InvalidPluginError;

/** The tool-call rules, normalized as the AI SDK does (`"none"`: none; a string: one rule). */
function readRules(toolCalls: PruneMessagesOptions["toolCalls"], invalidOption: Invalid): PruneRule[] {
	if (toolCalls === "none") return [];
	const list: readonly unknown[] = typeof toolCalls === "string" ? [{ type: toolCalls }] : (toolCalls ?? []);
	if (!Array.isArray(list)) throw invalidOption("toolCalls", toolCalls, "a scope string or a list of rules");
	return list.map((rule): PruneRule => {
		if (!isRecord(rule)) throw invalidOption("toolCalls", rule, "a rule { type, tools? }");
		const { type, tools } = rule;
		if (tools !== undefined && !(Array.isArray(tools) && tools.every((tool) => typeof tool === "string")))
			throw invalidOption("toolCalls[].tools", tools, "a list of tool names");
		return { keepLast: keepLastOf(type, invalidOption), tools: tools as readonly string[] | undefined };
	});
}

const SCOPE_PREFIX = "before-last-";
const SCOPE_SUFFIX = "-messages";

function keepLastOf(type: unknown, invalidOption: Invalid): number | undefined {
	if (type === "all") return undefined;
	if (type === "before-last-message") return 1;
	if (typeof type === "string" && type.startsWith(SCOPE_PREFIX) && type.endsWith(SCOPE_SUFFIX)) {
		const digits = type.slice(SCOPE_PREFIX.length, type.length - SCOPE_SUFFIX.length);
		if (/^\d{1,9}$/.test(digits)) return Number(digits);
	}
	throw invalidOption("toolCalls type", type, '"all", "before-last-message" or "before-last-<n>-messages"');
}
