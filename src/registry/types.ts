/** The public types of the registry: plugins, options, a conversion's result and the `Registry` itself. */
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { Message } from "@earendil-works/pi-ai";
import type { ConvertToLlmError } from "../errors.js";
import type { AgentRole, Converter, ConverterInfo, ExcludeOptions, RegisterOptionsFor } from "./converter-types.js";
import type { Explanation, Prefix } from "./explain-types.js";
import type { RegistryHooks, Sanitizer } from "./hook-types.js";

export type * from "./converter-types.js";
export type * from "./explain-types.js";
export type * from "./hook-types.js";
export { Stage } from "./stage.js";

/**
 * A named unit of behaviour: converters, hook taps, or both.
 *
 * Contract: `name` is required (it names every tap the plugin makes, in errors and traces) and is
 * unique per registry: `apply` is called once per registry, at `use()` time; using the same plugin
 * object twice does nothing, and another object with a name already used throws `InvalidPluginError`
 * (it would run twice). Factories (`blockImages()`) return a fresh object on every call, so use one
 * per registry.
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
	 * Cycles, and references shared so often that a tree copy would grow without bound, are copied
	 * once each (the copy has the input's shape; a few shared references become equal copies); symbol
	 * keys are copied; a value that cannot be copied as data (a function, a proxy, a class instance
	 * `structuredClone` refuses) is left out of the copy and the message is reported; a message that
	 * cannot be copied at all is dropped and reported (`ConversionError`), never passed on shared.
	 * After the post-conversion taps, every message that is not one of the registry's copies (a tap
	 * put a history message there, or made one that shares its parts) is copied too, so nothing in
	 * the output is shared with the input; the final check of the output reads the copies' roles, so
	 * a `role` getter cannot change its answer after the check.
	 */
	isolate?: boolean;
	/**
	 * A time limit, in milliseconds, for each `afterConvertAsync` tap. A tap that has not settled in
	 * time fails closed, since it may be the one that redacts: a lenient `convertAsync` reports an
	 * `AsyncHookTimeoutError` and resolves with `[]` (nothing unfiltered reaches the model), a strict
	 * one rejects with it; later taps do not run. Default: no limit. `Infinity`, or any value above
	 * 2³¹−1 ms (about 24.8 days, the longest delay `setTimeout` keeps), means no limit too;
	 * `createRegistry` throws `InvalidPluginError` for a negative value, `NaN` or a value that is not a
	 * number.
	 */
	asyncTimeoutMs?: number;
}

/**
 * One conversion's result with its problems, as `registry.run` and `registry.runAsync` return it
 * (unified's VFile-with-messages idea): what an application needs to decide what to send.
 *
 * Contract: `output` is exactly what `convert` (`convertAsync`) would return for the same history,
 * lenient or strict alike; `problems` holds every problem the conversion met, in the order met (what
 * a lenient registry emits on `hooks.error`, and a strict one would throw); `failed` is `true` when
 * the conversion as a whole failed closed (something no guard caught, or an `afterConvertAsync` tap
 * that did not settle within `asyncTimeoutMs`): `output` is then `[]` and `problems` says why.
 *
 * @example
 * const { output, problems, failed } = await registry.runAsync(history);
 * if (failed) throw new Error(`not sending: ${problems.at(-1)?.message}`);
 * for (const problem of problems) log.warn(problem.message);
 */
export interface Conversion {
	readonly output: Message[];
	readonly problems: readonly ConvertToLlmError[];
	readonly failed: boolean;
	/**
	 * How `output` keeps the prompt prefix of `options.previous` (see {@link Prefix}); `undefined`
	 * when no earlier conversion was given. A break is also among `problems`, as a
	 * `PrefixBreakNotice` (a notice: it never makes a conversion fail, strict or not).
	 */
	readonly prefix: Prefix | undefined;
}

/**
 * Options of `run`, `runAsync`, `explain` and `explainAsync`.
 *
 * Contract: `previous` is a result an earlier call of any of the four returned (of this registry or
 * another); the new result then says how it keeps that one's prompt prefix (`prefix`). Anything else
 * as `previous` is ignored (`prefix` stays `undefined`).
 *
 * @example
 * let previous: Conversion | undefined;
 * agent.convertToLlm = async (history) => {
 *   const conversion = await registry.runAsync(history, { previous });
 *   previous = conversion;
 *   return conversion.output;
 * };
 */
export interface ConversionOptions {
	/** The conversion before this one (the previous request), to compare prefixes with. */
	readonly previous?: Conversion | Explanation | undefined;
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
	 * Excludes from context every message of `role` whose `excludeFromContext` is truthy (pi's `!!`
	 * rule): the registry drops it before any converter of the role runs (overrides and `customType`
	 * converters included), reports nothing, hides it from `ctx.input` / `ctx.messages` (as
	 * `undefined`), and `explain` records it as `dropped: "excluded"` with `options.name` as its
	 * plugin. The built-in `bashExecution` plugin excludes its role this way;
	 * `excludeCustomMessages()` (`convert-to-llm/hooks`) does it for `custom`. Chainable; a second
	 * exclusion of a role keeps the first name.
	 * @throws {InvalidPluginError} without `options.name`, or for a role that is not a string.
	 */
	exclude(role: AgentRole, options: ExcludeOptions): Registry;
	/**
	 * Adds a per-message post-conversion stage (see {@link Sanitizer}): an `afterConvert` tap named
	 * `sanitizer.name` at `sanitizer.stage` (default `Stage.SANITIZE`) that the registry applies inside
	 * the conversion loop when nothing before it can change the output, so the output is not walked
	 * twice. `blockImages` is one. Chainable.
	 * @throws {InvalidPluginError} without a name or a `prepare` function.
	 */
	sanitize(sanitizer: Sanitizer): Registry;
	/**
	 * The converters of `role` in the order they are asked (for `custom`: those registered with a
	 * `customType` first, by type in registration order, then the generic ones): a frozen snapshot.
	 */
	converters(role: string): readonly ConverterInfo[];
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
	 * Converts like `convert` and returns the output with the problems met on the way (see
	 * {@link Conversion}): the application path when the caller decides what to do with problems
	 * (withhold a request, warn). Never throws on bad input, whatever `strict` says; problems are
	 * collected, not emitted on `hooks.error`. With `options.previous`, says how the output keeps that
	 * conversion's prompt prefix (`prefix`). Costs what `convert` costs, plus each problem's error, a
	 * copy of the array after each stage (kept on the result, for a later `previous`) and, with
	 * `previous`, each output message written as JSON once.
	 * @throws {AsyncHookInSyncConvertError} when `afterConvertAsync` has taps (use `runAsync`).
	 */
	readonly run: (messages: readonly AgentMessage[], options?: ConversionOptions) => Conversion;
	/** Like `run`, including the `afterConvertAsync` taps. Never rejects. */
	readonly runAsync: (messages: readonly AgentMessage[], options?: ConversionOptions) => Promise<Conversion>;
	/**
	 * Converts like `convert` and tells, for each input message, which plugin converted it (or why
	 * it was dropped) and which outputs it became, and for each post-conversion tap what it changed.
	 * Never throws on bad input (problems are collected in the result, whatever `strict` says); slower
	 * than `convert`, which it does not slow down.
	 * @throws {AsyncHookInSyncConvertError} when `afterConvertAsync` has taps (use `explainAsync`).
	 */
	readonly explain: (messages: readonly AgentMessage[], options?: ConversionOptions) => Explanation;
	/** Like `explain`, including the `afterConvertAsync` taps. */
	readonly explainAsync: (messages: readonly AgentMessage[], options?: ConversionOptions) => Promise<Explanation>;
}
