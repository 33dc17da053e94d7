/** The types of converters: roles, results, the context they get, and the options of `register` and `exclude`. */
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { Message } from "@earendil-works/pi-ai";

/**
 * Every role an `AgentMessage` can have: pi-ai's three plus each role declared in `CustomAgentMessages`.
 *
 * Contract: a role joins only by declaration merging into pi-agent-core's `CustomAgentMessages` (this
 * package declares the four app roles); `register` takes no other role, so an undeclared or misspelt
 * role (roles are case-sensitive) fails to compile.
 *
 * @example
 * declare module "@earendil-works/pi-agent-core" {
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
 * Contract: read-only (a frozen object whose fields cannot be written, so no converter can change
 * what the next one or the registry sees); valid only during the call (one object per `convert`
 * call); read it, do not keep it. `messages` hides excluded messages as `HookContext.input` does.
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
	 * Put the converter in front of the one(s) the role (or `customType`) already has, which stay its
	 * fallback, instead of throwing `DuplicateConverterError`. Among overrides, a lower `stage` runs
	 * first (equal stages: the later one first). Default `false`.
	 */
	override?: boolean;
	/**
	 * Orders the overrides of one role (or `customType`): lower runs first (see {@link Stage}); every
	 * override runs before the converter it overrides. Default `0`.
	 */
	stage?: number;
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
 * One converter as `registry.converters(role)` lists it.
 *
 * Contract: a frozen snapshot; `override` and `stage` are as registered (`stage` `0` when none was
 * given); `customType` is set for the `custom` converters registered with one.
 *
 * @example
 * createDefaultRegistry().use(safeFences()).converters("bashExecution");
 * // [{ name: "convert-to-llm:safe-fences", stage: 0, override: true, customType: undefined },
 * //  { name: "convert-to-llm:bash-execution", stage: 0, override: false, customType: undefined }]
 */
export interface ConverterInfo {
	readonly name: string;
	readonly stage: number;
	readonly override: boolean;
	readonly customType: string | undefined;
}

/**
 * Options of `registry.exclude(role, options)`.
 *
 * Contract: `name` is required and names the exclusion in `explain` (an excluded message's `plugin`).
 *
 * @example
 * registry.exclude("custom", { name: "my-host:private-notes" });
 */
export interface ExcludeOptions {
	/** The plugin name shown for every message this exclusion drops. */
	name: string;
}
