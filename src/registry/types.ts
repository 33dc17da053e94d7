import type { AgentMessage } from "@mariozechner/pi-agent-core";
import type { Message } from "@mariozechner/pi-ai";
import type { AsyncSeriesWaterfallHook, HookMap, SyncBailHook, SyncHook, SyncWaterfallHook } from "tapable";
import type { ConvertToLlmError } from "../errors.js";
import type { CustomMessage } from "../messages.js";

/** Every role an `AgentMessage` can have: pi-ai's three plus each role declared in `CustomAgentMessages`. */
export type AgentRole = AgentMessage["role"];

/** The message type of role `R`, e.g. `MessageOfRole<"bashExecution">` is `BashExecutionMessage`. */
export type MessageOfRole<R extends AgentRole> = Extract<AgentMessage, { role: R }>;

/**
 * What a converter returns.
 *
 * Contract: `undefined` = not mine, the next converter for this role decides; `null` or `[]` = drop
 * the message; a `Message` or a list of them = the model sees these, in this order.
 */
export type ConverterResult = Message | readonly Message[] | null | undefined;

/**
 * What a converter is told besides the message.
 *
 * Contract: valid only during the call (the registry reuses one object per `convert` call); read it,
 * do not keep it.
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

/** Ordering of converters for a role and of post-conversion taps: lower stages run first. */
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
 */
export interface RegisterOptions {
	/** The plugin name used for the tap, in errors and in traces. */
	name: string;
	/** Lower runs first among converters of the same role (see {@link Stage}). Default `0`. */
	stage?: number;
	/** Put this converter in front of the existing one(s) instead of throwing `DuplicateConverterError`. */
	override?: boolean;
}

/** Options of {@link Registry.register} for role `custom`: `customType` narrows the converter to one extension's messages. */
export interface CustomRegisterOptions extends RegisterOptions {
	/**
	 * Only messages with this `customType` reach the converter; it runs before the generic `custom`
	 * converter, which stays the fallback. Dispatched by a map look-up, not by asking each converter.
	 */
	customType?: string;
}

/** The options type for role `R`: `customType` is accepted for `custom` only. */
export type RegisterOptionsFor<R extends AgentRole> = R extends "custom" ? CustomRegisterOptions : RegisterOptions;

/** Where an output message came from. */
export interface MessageSource {
	/** Index of the input message it was converted from. */
	readonly index: number;
	/** The plugin whose converter produced it. */
	readonly plugin: string;
}

/** What `beforeConvert` and `afterConvert` taps are told besides the value they transform. */
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

/** Extra tap options the converter hooks understand (set by `register`). */
export interface ConverterTapOptions {
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

/** Options of `createRegistry`. */
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
	 */
	isolate?: boolean;
}

/**
 * A converter registry: the roles it knows, the hooks around conversion, and the conversion itself.
 *
 * Contract: all tapping happens in `use()` / `register()`; `convert` and `convertAsync` only call
 * and never mutate their input. Both are arrow properties and can be passed around unbound:
 * `new Agent({ convertToLlm: registry.convert })`.
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

/** Why an input message produced no output. */
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

/** What became of one input message. */
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

/** What one post-conversion tap changed. */
export interface TapExplanation {
	hook: "afterConvert" | "afterConvertAsync";
	plugin: string;
	/** Output indices (as the tap returned them) whose message the tap replaced. */
	changed: number[];
	/** How many messages it removed. */
	removed: number;
	/** How many messages it added. */
	added: number;
}

/** The result of `registry.explain()`: the output, and why it is what it is. */
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
