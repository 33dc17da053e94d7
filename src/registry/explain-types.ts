/** The types of `registry.explain()`: what became of each input message and what each tap changed. */
import type { Message } from "@earendil-works/pi-ai";
import type { ConvertToLlmError } from "../errors.js";

/**
 * Why an input message produced no output.
 *
 * Contract: exactly one per dropped message. `"converter"` and `"filtered"` are decisions of a
 * plugin (`"excluded"` too: the plugin that declared the exclusion); the other three are problems, each reported in {@link Explanation.errors}.
 *
 * @example
 * const lost = registry.explain(history).messages.filter((m) => m.dropped !== undefined && m.dropped !== "converter");
 */
export type DropReason =
	/** A converter returned `null` or `[]`. */
	| "converter"
	/**
	 * Excluded from context before any converter ran (a `!!` bash run, or with
	 * `excludeCustomMessages()` a custom message with `excludeFromContext`); see `Registry.exclude`.
	 * Not a problem: nothing is reported.
	 */
	| "excluded"
	/** No converter for its role, or every converter returned `undefined`. */
	| "unknown-role"
	/** Not an AgentMessage (`null`, a number, no string `role`). */
	| "invalid-message"
	/** Its converters threw or returned something that is not a `Message`. */
	| "converter-failed"
	/** Converted, then removed by a post-conversion tap (`afterConvert` / `afterConvertAsync`). */
	| "filtered";

/**
 * What became of one input message.
 *
 * Contract: either `outputs` is non-empty or `dropped` is set, never both; `droppedBy` is set only
 * with `"filtered"`; `plugin` is set whenever a converter decided, also when it dropped the message
 * or a tap later removed its output.
 *
 * @example
 * registry.explain(history).messages[4]; // a `!!` run:
 * // { index: 4, role: "bashExecution", customType: undefined, plugin: "convert-to-llm:bash-execution",
 * //   outputs: [], dropped: "excluded", droppedBy: undefined, errors: [] }
 */
export interface MessageExplanation {
	/** Index in the history given to `explain` (after `beforeConvert`). */
	index: number;
	/** Its role, when it has a string one. */
	role: string | undefined;
	/** Its `customType`, for `custom` messages. */
	customType: string | undefined;
	/** The plugin whose converter decided its fate (produced the output or returned `null`), or whose exclusion dropped it. */
	plugin: string | undefined;
	/** Indices in the final output of what it became (empty when dropped). */
	outputs: number[];
	/** Set when it produced no output. */
	dropped: DropReason | undefined;
	/** The tap that removed its output, when `dropped` is `"filtered"`. */
	droppedBy: string | undefined;
	/** Problems reported for it: a converter that failed before the fallback, or why it was dropped. */
	errors: ConvertToLlmError[];
}

/**
 * What one post-conversion tap changed.
 *
 * Contract: a tap that keeps the length is compared position by position (`changed` lists where it
 * put another object; `removed` and `added` are 0). One that changes the length is compared by
 * identity: messages it no longer returns count as `removed`, new objects as `added` (and their
 * positions are in `changed`). A tap that failed changed nothing. When the final check of the output
 * drops entries that are not pi-ai messages, it is listed too, as `convert-to-llm:output-check`.
 *
 * @example
 * registry.explain(history).taps[0];
 * // { hook: "afterConvert", plugin: "convert-to-llm:block-images", changed: [4], removed: 0, added: 0 }
 */
export interface TapExplanation {
	/** The hook it is tapped on. */
	hook: "afterConvert" | "afterConvertAsync";
	/** Its tap name. */
	plugin: string;
	/** Output indices (as the tap returned them) whose message the tap replaced. */
	changed: number[];
	/** How many messages it removed. */
	removed: number;
	/** How many messages it added. */
	added: number;
}

/**
 * The result of `registry.explain()`: the output, and why it is what it is.
 *
 * Contract: a new object per call. `messages` has one entry per message of the history after
 * `beforeConvert`, in order; `errors` holds every problem reported during the run, which `explain`
 * collects instead of throwing, whatever `strict` says (so on a strict registry `output` is what a
 * lenient one would return); each entry's `errors` are those whose `index` is its own.
 *
 * @example
 * const { messages, taps } = registry.explain(history);
 * for (const m of messages) if (m.dropped) console.log(m.index, m.role, m.dropped, m.droppedBy ?? m.plugin ?? "");
 * for (const t of taps) console.log(t.plugin, `changed ${t.changed.length}, -${t.removed} +${t.added}`);
 */
export interface Explanation {
	/** Exactly what `convert` returns for the same input. */
	output: Message[];
	/** One entry per input message, in input order. */
	messages: MessageExplanation[];
	/** One entry per post-conversion tap, in the order they ran. */
	taps: TapExplanation[];
	/** Every problem reported during the run, including those not tied to one message. */
	errors: ConvertToLlmError[];
	/** How this output keeps the prompt prefix of `options.previous`; `undefined` when none was given. */
	prefix?: Prefix | undefined;
}

/**
 * How one conversion keeps the prompt prefix of an earlier one (`run(history, { previous })`).
 *
 * Contract: `kept` is how many leading messages of the earlier output the new output repeats byte
 * for byte, as `JSON.stringify` writes them (the final output, after every tap, async ones included);
 * `breakAt` is `kept` when that is less than the earlier output's length, else `null` (the earlier
 * output is all kept: only new messages follow). `cause` names what made message `breakAt` differ:
 * the name of the plugin whose converter or tap changed it (`"convert-to-llm:trim-to-tokens"`), or
 * `"history"` when the history itself differs there; `null` when nothing broke. A provider bills a
 * cached prefix at about a tenth of the input price and writes everything from `breakAt` on again.
 *
 * @example
 * let previous: Conversion | undefined;
 * const conversion = await registry.runAsync(history, { previous });
 * if (conversion.prefix?.breakAt != null) log.warn(`cache break at ${conversion.prefix.breakAt}: ${conversion.prefix.cause}`);
 * previous = conversion;
 */
export interface Prefix {
	readonly kept: number;
	readonly breakAt: number | null;
	readonly cause: string | null;
}
