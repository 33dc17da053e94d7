import type { AgentMessage } from "@mariozechner/pi-agent-core";
import type { Message } from "@mariozechner/pi-ai";
import type { AsyncSeriesWaterfallHook, HookMap, SyncBailHook, SyncHook, SyncWaterfallHook } from "tapable";
import type { ConvertToLlmError } from "../errors.js";
import type { CustomMessage } from "../messages.js";

/**
 * Every role an `AgentMessage` can have: pi-ai's three plus each role declared in `CustomAgentMessages`.
 *
 * Contract: a role joins only by declaration merging into pi-agent-core's `CustomAgentMessages` (this
 * package declares the four app roles); `register` takes no other role, so an undeclared or misspelt
 * role (roles are case-sensitive) fails to compile.
 *
 * @example
 * declare module "@mariozechner/pi-agent-core" {
 *   interface CustomAgentMessages { artifact: ArtifactMessage }
 * }
 * const role: AgentRole = "artifact"; // compiles only with the declaration above
 */
export type AgentRole = AgentMessage["role"];

/**
 * The message type of role `R`, e.g. `MessageOfRole<"bashExecution">` is `BashExecutionMessage`.
 *
 * Contract: exactly the members of `AgentMessage` whose `role` is `R`; it is what a `Converter<R>`
 * receives, so reading a field the role lacks fails to compile.
 *
 * @example
 * const commandOf = (m: MessageOfRole<"bashExecution">): string => m.command;
 */
export type MessageOfRole<R extends AgentRole> = Extract<AgentMessage, { role: R }>;

/**
 * What a converter returns.
 *
 * Contract: `undefined` = not mine, the next converter for this role decides; `null` or `[]` = drop
 * the message; a `Message` or a list of them = the model sees these, in this order.
 *
 * @example
 * const ci: Converter<"custom"> = (m) => {
 *   if (m.customType !== "ci") return undefined; // not mine: the next converter decides
 *   if (!m.display) return null; // dropped
 *   return { role: "user", content: `CI: ${String(m.content)}`, timestamp: m.timestamp };
 * };
 */
export type ConverterResult = Message | readonly Message[] | null | undefined;

/**
 * What a converter is told besides the message.
 *
 * Contract: valid only during the call (the registry reuses one object per `convert` call); read it,
 * do not keep it.
 *
 * @example
 * registry.register("custom", (m, ctx) => {
 *   const next = ctx.messages[ctx.index + 1] as { customType?: unknown } | undefined;
 *   return next?.customType === "status" ? null : undefined; // keep only the last of a run of statuses
 * }, { name: "status-dedupe", customType: "status" });
 */
export interface ConvertContext {
	/** Index of the message in `messages`. */
	readonly index: number;
	/** The whole history being converted (after `beforeConvert`). Never mutate it. */
	readonly messages: readonly unknown[];
	/** Whether the registry was created with `strict: true`. */
	readonly strict: boolean;
}

/**
 * Converts one message of role `R` to what the model sees.
 *
 * Contract: pure with respect to its input (never mutate `message`); returns a {@link ConverterResult}.
 * A throw is caught: lenient registries fall back to the next converter for the role and report a
 * `ConversionError` on `hooks.error`; strict registries throw that error.
 *
 * @example
 * const todo: Converter<"custom"> = (m) =>
 *   m.customType === "todo" ? { role: "user", content: `Open todos: ${m.content}`, timestamp: m.timestamp } : undefined;
 */
export type Converter<R extends AgentRole> = (message: MessageOfRole<R>, ctx: ConvertContext) => ConverterResult;

/**
 * Ordering of converters for a role and of post-conversion taps: lower stages run first.
 *
 * Contract: plain numbers in a frozen object; any number is a valid stage, and a tap without one is
 * at `DEFAULT`. Waterfall taps (`beforeConvert`, `afterConvert`, `afterConvertAsync`) run by
 * ascending stage, equal stages in tap order; for converters a stage orders overrides only (see
 * {@link ConverterTapOptions.override}). `blockImages` taps at `SANITIZE`, `lint` at `VERIFY`.
 *
 * @example
 * registry.hooks.afterConvert.tap({ name: "redact-keys", stage: Stage.SANITIZE - 1 }, redactKeys); // just before blockImages
 */
export const Stage = Object.freeze({
	/** Runs before everything at the default stage. */
	EARLY: -100,
	/** The stage of built-in converters and of taps that give none. */
	DEFAULT: 0,
	/** Post-conversion sanitizers such as `blockImages`: after ordinary transforms. */
	SANITIZE: 100,
	/** Checks that must see the final output, such as a lint: after everything else. */
	VERIFY: 1000,
} as const);

/**
 * Options of {@link Registry.register}.
 *
 * Contract: `name` is required and names the converter in every error and trace. A role (or a
 * `customType`) takes one converter; registering a second throws `DuplicateConverterError` unless
 * `override: true`, in which case the new one runs first and the earlier one stays as its fallback
 * (it runs when the new one returns `undefined` or throws).
 *
 * @example
 * registry.register("bashExecution", (m) => (m.command.startsWith("vault ") ? null : undefined), {
 *   name: "hide-vault",
 *   override: true, // runs first; the built-in converter converts every run it passes on
 * });
 */
export interface RegisterOptions {
	/** The plugin name used for the tap, in errors and in traces. */
	name: string;
	/**
	 * Orders the overrides of one role (or `customType`): lower runs first (see {@link Stage}); every
	 * override runs before the converter it overrides. Default `0`.
	 */
	stage?: number;
	/** Put this converter in front of the existing one(s) instead of throwing `DuplicateConverterError`. */
	override?: boolean;
}

/**
 * Options of {@link Registry.register} for role `custom`: `customType` narrows the converter to one extension's messages.
 *
 * Contract: without `customType`, an ordinary `custom` converter. With it, the converter is asked only
 * for `custom` messages of that type, before every converter of the role; those stay its fallback
 * (when it returns `undefined`, or fails in a lenient registry). One converter per `customType`
 * unless `override`. A `customType` that is not a string throws `InvalidPluginError`.
 *
 * @example
 * registry.register("custom", (m) => ({ role: "user", content: `Todo: ${String(m.content)}`, timestamp: m.timestamp }), {
 *   name: "todo-ext",
 *   customType: "todo",
 * });
 */
export interface CustomRegisterOptions extends RegisterOptions {
	/**
	 * Only messages with this `customType` reach the converter; it runs before the generic `custom`
	 * converter, which stays the fallback. Dispatched by a map look-up, not by asking each converter.
	 */
	customType?: string;
}

/**
 * The options type for role `R`: `customType` is accepted for `custom` only.
 *
 * Contract: {@link CustomRegisterOptions} for `custom`, {@link RegisterOptions} for every other role,
 * so `customType` on another role fails to compile (and throws `InvalidPluginError` if forced through).
 *
 * @example
 * const options: RegisterOptionsFor<"custom"> = { name: "todo-ext", customType: "todo" };
 */
export type RegisterOptionsFor<R extends AgentRole> = R extends "custom" ? CustomRegisterOptions : RegisterOptions;

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
	/** The history as given to `convert` (for `afterConvert`: after `beforeConvert`). Never mutate it. */
	readonly input: readonly unknown[];
	/** Whether the registry was created with `strict: true`. */
	readonly strict: boolean;
	/**
	 * Where an output message came from, or `undefined` when source tracking is off (see
	 * {@link Registry.trackSources}) or the message was made after conversion and not linked with
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
 * The hooks of one registry, declared once in a frozen object. Tap them with tapable's API.
 *
 * | hook | tapable class | arguments | a tap's return value |
 * | --- | --- | --- | --- |
 * | `beforeConvert` | `SyncWaterfallHook` | `(messages, ctx)` | the history the next tap (and conversion) sees; `undefined` keeps it |
 * | `convert` | `HookMap` of `SyncBailHook` per role | `(message, ctx)` | see {@link ConverterResult} |
 * | `convertCustom` | `HookMap` of `SyncBailHook` per `customType` | `(message, ctx)` | see {@link ConverterResult} |
 * | `afterConvert` | `SyncWaterfallHook` | `(messages, ctx)` | the `Message[]` the next tap sees; `undefined` keeps it |
 * | `afterConvertAsync` | `AsyncSeriesWaterfallHook` | `(messages, ctx)` | same, awaited; run by `convertAsync` only |
 * | `error` | `SyncHook` | `(error)` | ignored |
 *
 * Contract: prefer `registry.register()` for converters (it checks duplicates); taps made directly on
 * these hooks are wrapped the same way, so a throwing tap is reported (lenient) or thrown as a
 * `ConversionError` (strict) with its name as `plugin`.
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
	readonly convert: HookMap<SyncBailHook<[AgentMessage, ConvertContext], ConverterResult, ConverterTapOptions>>;
	readonly convertCustom: HookMap<SyncBailHook<[CustomMessage, ConvertContext], ConverterResult, ConverterTapOptions>>;
	readonly afterConvert: SyncWaterfallHook<[Message[], HookContext], Message[] | undefined>;
	readonly afterConvertAsync: AsyncSeriesWaterfallHook<[Message[], HookContext], Message[] | undefined>;
	readonly error: SyncHook<[ConvertToLlmError]>;
}

/**
 * Extra tap options the converter hooks (`convert`, `convertCustom`) understand; `register` sets them
 * from {@link RegisterOptions}.
 *
 * Contract: a direct tap on these hooks is checked for duplicates and placed exactly as a `register`
 * with the same options would be (`register`'s argument checks aside).
 *
 * @example
 * registry.hooks.convert
 *   .for("bashExecution")
 *   .tap({ name: "huge-output", override: true }, (m) => ((m as BashExecutionMessage).output.length > 1e6 ? null : undefined));
 */
export interface ConverterTapOptions {
	/**
	 * Tap in front of the converter(s) the role (or `customType`) already has, which stay its
	 * fallback, instead of throwing `DuplicateConverterError`. Among overrides, a lower `stage` runs
	 * first (equal stages: the later tap first). Default `false`.
	 */
	override?: boolean;
}

/**
 * A named unit of behaviour: converters, hook taps, or both.
 *
 * Contract: `name` is required (it names every tap the plugin makes, in errors and traces); `apply`
 * is called once per registry, at `use()` time; using the same plugin object twice does nothing.
 *
 * @example
 * const shout: Plugin = {
 *   name: "shout",
 *   apply(registry) {
 *     registry.register("custom", (m) => ({ role: "user", content: String(m.content).toUpperCase(), timestamp: m.timestamp }),
 *       { name: "shout", customType: "shout" });
 *   },
 * };
 */
export interface Plugin {
	readonly name: string;
	apply(registry: Registry): void;
}

/**
 * Options of `createRegistry` (and of `createDefaultRegistry`).
 *
 * Contract: read once, when the registry is created (`strict` is then `registry.strict`). Misuse of
 * the API (a duplicate converter, a nameless plugin, a sync `convert` with async taps) throws
 * whatever `strict` says.
 *
 * @example
 * const registry = createDefaultRegistry({ strict: process.env.CI === "true", isolate: true });
 */
export interface RegistryOptions {
	/**
	 * Throw problems with the input or a converter instead of dropping/falling back and reporting
	 * them on `hooks.error`. Default `false`: pi-agent-core requires `convertToLlm` never to throw.
	 */
	strict?: boolean;
	/**
	 * Never share objects with the input: every output message, content array and content block is
	 * a copy (pi's conversion returns the caller's own objects, so a later mutation corrupts the
	 * stored history). Default `false`, as pi. Costs a copy of the output; see the README's figures.
	 * Messages that post-conversion taps add are theirs, not copied; a message that cannot be copied
	 * is passed on as it is and reported as a `ConversionError`.
	 */
	isolate?: boolean;
}

/**
 * A converter registry: the roles it knows, the hooks around conversion, and the conversion itself.
 *
 * Contract: all tapping happens in `use()` / `register()`; `convert` and `convertAsync` only call
 * and never mutate their input. Both are arrow properties and can be passed around unbound:
 * `new Agent({ convertToLlm: registry.convert })`.
 *
 * @example
 * const registry = createDefaultRegistry().use(escapeSummaries());
 * registry.hooks.error.tap("log", (error) => log.warn(error.message));
 * const agent = new Agent({ initialState: { model }, convertToLlm: registry.convert });
 * registry.roles(); // ["user", "assistant", "toolResult", "bashExecution", "custom", "branchSummary", "compactionSummary"]
 */
export interface Registry {
	readonly hooks: RegistryHooks;
	readonly strict: boolean;
	/** Applies `plugin` once (the same object again does nothing). Chainable. */
	use(plugin: Plugin): Registry;
	/** Registers `converter` for `role`. Chainable. @throws {DuplicateConverterError} @throws {InvalidPluginError} */
	register<R extends AgentRole>(role: R, converter: Converter<R>, options: RegisterOptionsFor<R>): Registry;
	/**
	 * Turns on source tracking for every later conversion, so that post-conversion taps can ask
	 * `ctx.sourceOf(message)`. Called by plugins that report per input message (such as a lint) in
	 * their `apply`; costs one map entry per output message, nothing when off. Chainable.
	 */
	trackSources(): Registry;
	/** The roles that have at least one converter. */
	roles(): string[];
	/**
	 * Converts a history to model input.
	 * @throws {AsyncHookInSyncConvertError} when `afterConvertAsync` has taps (use `convertAsync`).
	 */
	readonly convert: (messages: readonly AgentMessage[]) => Message[];
	/** Like `convert`, then runs `afterConvertAsync`. Lenient registries never reject. */
	readonly convertAsync: (messages: readonly AgentMessage[]) => Promise<Message[]>;
	/**
	 * Converts like `convert` and tells, for each input message, which plugin converted it (or why
	 * it was dropped) and which outputs it became, and for each post-conversion tap what it changed.
	 * Never throws on bad input (problems are collected in the result, whatever `strict` says); slower
	 * than `convert`, which it does not slow down.
	 * @throws {AsyncHookInSyncConvertError} when `afterConvertAsync` has taps (use `explainAsync`).
	 */
	readonly explain: (messages: readonly AgentMessage[]) => Explanation;
	/** Like `explain`, including the `afterConvertAsync` taps. */
	readonly explainAsync: (messages: readonly AgentMessage[]) => Promise<Explanation>;
}

/**
 * Why an input message produced no output.
 *
 * Contract: exactly one per dropped message. `"converter"` and `"filtered"` are decisions of a
 * plugin; the other three are problems, each reported in {@link Explanation.errors}.
 *
 * @example
 * const lost = registry.explain(history).messages.filter((m) => m.dropped !== undefined && m.dropped !== "converter");
 */
export type DropReason =
	/** A converter returned `null` or `[]` (e.g. a `!!` bash run, excluded from context). */
	| "converter"
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
 * //   outputs: [], dropped: "converter", droppedBy: undefined, errors: [] }
 */
export interface MessageExplanation {
	/** Index in the history given to `explain` (after `beforeConvert`). */
	index: number;
	/** Its role, when it has a string one. */
	role: string | undefined;
	/** Its `customType`, for `custom` messages. */
	customType: string | undefined;
	/** The plugin whose converter decided its fate (produced the output or returned `null`). */
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
 * positions are in `changed`). A tap that failed changed nothing.
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
}
