/** The types of the registry's hooks: the taps' context, where outputs came from, and sanitizers. */
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { Message } from "@earendil-works/pi-ai";
import type { AsyncSeriesWaterfallHook, SyncHook, SyncWaterfallHook } from "tapable";
import type { ConvertToLlmError } from "../errors.js";
import type { ModelRole } from "../messages.js";

/**
 * Where an output message came from, as `ctx.sourceOf(message)` tells a post-conversion tap.
 *
 * Contract: `index` is the input message's place in the history after `beforeConvert` (as
 * `ConvertContext.index` and the errors' `index`); `plugin` is the name its converter was registered
 * under (`convert-to-llm:model-roles` for a message passed through). All outputs of one input share
 * its source.
 *
 * @example
 * registry.trackSources().hooks.afterConvert.tap("audit", (messages, ctx) => {
 *   for (const m of messages) console.log(m.role, ctx.sourceOf(m)?.plugin ?? "made by a tap");
 *   return messages;
 * });
 */
export interface MessageSource {
	/** Index of the input message it was converted from. */
	readonly index: number;
	/** The plugin whose converter produced it. */
	readonly plugin: string;
}

/**
 * What `beforeConvert`, `afterConvert` and `afterConvertAsync` taps are told besides the value they transform.
 *
 * Contract: valid only during the conversion it was made for; read it, do not keep it. The
 * `afterConvert` and `afterConvertAsync` taps of one conversion share one context, which knows where
 * that conversion's outputs came from; `beforeConvert` taps get one of their own, whose `sourceOf`
 * is always `undefined`.
 *
 * @example
 * registry.trackSources().hooks.afterConvert.tap("trim", (messages, ctx) =>
 *   messages.map((m) => {
 *     if (m.role !== "user" || typeof m.content !== "string") return m;
 *     const trimmed = { ...m, content: m.content.trim() };
 *     ctx.inheritSource(trimmed, m); // later taps (a lint) still see where it came from
 *     return trimmed;
 *   }),
 * );
 */
export interface HookContext {
	/**
	 * The history as given to `convert` (for `afterConvert`: after `beforeConvert`), index for index,
	 * with every excluded message (see `Registry.exclude`) replaced by `undefined`: what the model must
	 * not see is not handed to taps either. Never mutate it.
	 */
	readonly input: readonly unknown[];
	/** Whether the registry was created with `strict: true`. */
	readonly strict: boolean;
	/**
	 * Where an output message came from, or `undefined` when source tracking is off (see
	 * `Registry.trackSources`) or the message was made after conversion and not linked with
	 * {@link HookContext.inheritSource}.
	 */
	sourceOf(message: Message): MessageSource | undefined;
	/** Records that `message`, made by a post-conversion tap, stands for `from` (keeps `sourceOf` working). */
	inheritSource(message: Message, from: Message): void;
	/**
	 * Reports a problem found by a tap: on `hooks.error` (lenient), thrown (strict), or collected
	 * (`explain`). Prefer it to calling `hooks.error` so that `explain` sees the problem too.
	 */
	report(error: ConvertToLlmError): void;
	/** Whether a report is seen by anyone (strict, an `error` tap, `explain`): skip costly checks when not. */
	readonly listening: boolean;
}

/**
 * The hooks of one registry, declared once in a frozen object. Tap them with tapable's API; they
 * behave as tapable's README says (interceptors run, `stage` and `before` order taps, `isUsed()` is
 * `true` only once a tap or an interceptor was added, and the registry skips a hook that is not used).
 *
 * | hook | tapable class | arguments | a tap's return value |
 * | --- | --- | --- | --- |
 * | `beforeConvert` | `SyncWaterfallHook` | `(messages, ctx)` | the history the next tap (and conversion) sees; `undefined` keeps it |
 * | `afterConvert` | `SyncWaterfallHook` | `(messages, ctx)` | the `Message[]` the next tap sees; `undefined` keeps it |
 * | `afterConvertAsync` | `AsyncSeriesWaterfallHook` | `(messages, ctx)` | same, awaited; run by `convertAsync` only |
 * | `error` | `SyncHook` | `(error)` | ignored |
 *
 * Contract: converters are not hooks: `registry.register()` is their API and
 * `registry.converters(role)` their read-only view. Every tap is wrapped when it is made, so a tap
 * that throws, rejects or returns something that is not an array of messages is reported (lenient)
 * or thrown as a `ConversionError` (strict) with its name as `plugin`, and the waterfall goes on with
 * the previous value. Whatever the taps did, the final array is checked once: an entry that is not a
 * pi-ai `Message` is dropped and reported.
 *
 * @example
 * registry.hooks.beforeConvert.tap("no-debug", (messages) =>
 *   messages.filter((m) => m.role !== "custom" || m.customType !== "debug"),
 * );
 * registry.hooks.afterConvertAsync.tapPromise("dlp-service", async (messages) => dlp.scan(messages));
 * registry.hooks.error.tap("log", (error) => console.warn(`[${error.code}] ${error.message}`));
 */
export interface RegistryHooks {
	readonly beforeConvert: SyncWaterfallHook<
		[readonly AgentMessage[], HookContext],
		readonly AgentMessage[] | undefined
	>;
	readonly afterConvert: SyncWaterfallHook<[Message[], HookContext], Message[] | undefined>;
	readonly afterConvertAsync: AsyncSeriesWaterfallHook<[Message[], HookContext], Message[] | undefined>;
	readonly error: SyncHook<[ConvertToLlmError]>;
}

/**
 * What a sanitizer does to one output message: the message itself (unchanged), a new message that
 * replaces it, or `null` to drop it (report why with `ctx.report` first).
 */
export type SanitizeMessage = (message: Message, position: number) => Message | null;

/**
 * A per-message post-conversion stage (`registry.sanitize`), such as `blockImages`: it sees each
 * output message once and keeps, replaces or drops it.
 *
 * Contract: it is an `afterConvert` tap named `name` at `stage` (default `Stage.SANITIZE`), and
 * behaves as one: a tap at a lower stage runs before it, one at a higher stage sees its output,
 * `explain` lists what it changed. `prepare(ctx)` is called once per conversion and returns the
 * function applied to each message (its `position` is the message's index in the array the tap
 * receives), or `undefined` when there is nothing to do this time (a live setting is off). The
 * function must depend only on the message (so applying it twice changes nothing) and must not
 * throw: it reports and returns `null` for a message it cannot read. The array is copied only once a
 * message changes, and a replacement inherits its message's source (`ctx.sourceOf`). With `roles`,
 * the function is called only for messages of those roles.
 *
 * @example
 * registry.sanitize({
 *   name: "no-thinking",
 *   prepare: () => (message) =>
 *     message.role === "assistant" && message.content.some((b) => b.type === "thinking")
 *       ? { ...message, content: message.content.filter((b) => b.type !== "thinking") }
 *       : message,
 * });
 */
export interface Sanitizer {
	readonly name: string;
	readonly stage?: number;
	/**
	 * The roles of the messages it may change (`blockImages`: `user` and `toolResult`), when not all:
	 * a message of another role is passed on as is, without a call. Default: every role.
	 */
	readonly roles?: readonly ModelRole[];
	prepare(ctx: HookContext): SanitizeMessage | undefined;
}
