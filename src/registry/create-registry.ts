import type { AgentMessage } from "@mariozechner/pi-agent-core";
import type { Message } from "@mariozechner/pi-ai";
import { AsyncSeriesWaterfallHook, HookMap, SyncBailHook, SyncHook, SyncWaterfallHook } from "tapable";
import {
	AsyncHookInSyncConvertError,
	ConversionError,
	ConvertToLlmError,
	DuplicateConverterError,
	InvalidMessageError,
	InvalidPluginError,
	UnknownRoleError,
} from "../errors.js";
import type { CustomMessage } from "../messages.js";
import { causeText, describeBadResult, describeValue, guardErrorTap, guardWaterfallTap } from "./guard.js";
import type {
	AgentRole,
	ConvertContext,
	Converter,
	ConverterResult,
	ConverterTapOptions,
	HookContext,
	Plugin,
	RegisterOptionsFor,
	Registry,
	RegistryHooks,
	RegistryOptions,
} from "./types.js";

/** Name of the internal tap that routes `custom` messages to their `customType` converters. */
export const CUSTOM_TYPE_DISPATCH = "convert-to-llm:custom-type-dispatch";

type ConverterHook = SyncBailHook<[AgentMessage, ConvertContext], ConverterResult, ConverterTapOptions>;
type ConverterTap = ConverterHook["taps"][number] & ConverterTapOptions & { internal?: boolean };

/**
 * The context of one `convert` call. One object per call, its `index` moved along the history, so a
 * conversion allocates nothing per message for it.
 */
export class ConvertRun implements ConvertContext, HookContext {
	index = 0;
	/** Index of the last message whose converter failed, so that the message is reported only once. */
	failedIndex = -1;
	constructor(
		readonly messages: readonly unknown[],
		readonly strict: boolean,
		/** Where problems go: `hooks.error` (lenient), a throw (strict), or a trace (`explain`). */
		readonly report: (error: ConvertToLlmError) => void,
	) {}
	get input(): readonly unknown[] {
		return this.messages;
	}
}

function roleText(message: unknown): string {
	const role = (message as { role?: unknown } | null)?.role;
	if (role !== "custom") return `role ${JSON.stringify(role)}`;
	return `role "custom", customType ${JSON.stringify((message as CustomMessage).customType)}`;
}

/**
 * Creates an empty converter registry. It knows no role until plugins are `use()`d: start from
 * `createDefaultRegistry()` (`convert-to-llm/preset`) to get pi's behaviour.
 *
 * Contract: no state is shared between registries; `strict` (default `false`) decides whether bad
 * input and faulty converters throw or are dropped/fallen back from and reported on `hooks.error`.
 *
 * @example
 * const registry = createRegistry({ strict: true })
 *   .register("user", (m) => m, { name: "user-as-is" });
 * registry.convert([{ role: "user", content: "hi", timestamp: 0 }]);
 */
export function createRegistry(options: RegistryOptions = {}): Registry {
	const strict = options.strict === true;

	const emit = (error: ConvertToLlmError): void => {
		if (hooks.error.taps.length > 0) hooks.error.call(error);
	};
	const report = (error: ConvertToLlmError): void => {
		if (strict) throw error;
		emit(error);
	};

	/** Wraps a converter tap: a throw or a result that is not a `Message` becomes a `ConversionError`. */
	const guardConverter = (tap: ConverterTap): ConverterTap => {
		const { name: plugin } = tap;
		const fn = tap.fn as (message: AgentMessage, ctx: ConvertContext) => ConverterResult;
		const failed = (message: AgentMessage, ctx: ConvertContext, text: string, cause?: unknown): undefined => {
			const error = new ConversionError(
				`Converter "${plugin}" failed on message ${ctx.index} (${roleText(message)}): ${text}. ` +
					"The next converter for the role was used, or the message was dropped; fix or remove the plugin.",
				{
					role: (message as { role?: string }).role,
					customType: (message as Partial<CustomMessage>).customType,
					index: ctx.index,
					plugin,
					cause,
				},
			);
			if (ctx instanceof ConvertRun) {
				ctx.failedIndex = ctx.index;
				ctx.report(error);
			} else {
				report(error);
			}
			return undefined;
		};
		tap.fn = (message: AgentMessage, ctx: ConvertContext): ConverterResult => {
			let result: ConverterResult;
			try {
				result = fn(message, ctx);
			} catch (cause) {
				if (cause instanceof ConvertToLlmError && strict) throw cause;
				return failed(message, ctx, `it threw ${causeText(cause)}`, cause);
			}
			// Fast path first: a single model message is by far the most common result.
			if (result !== undefined && result !== null) {
				const role = (result as { role?: unknown }).role;
				if (role !== "user" && role !== "assistant" && role !== "toolResult") {
					const problem = describeBadResult(result);
					if (problem !== undefined) {
						return failed(message, ctx, `${problem}, not a pi-ai Message (user, assistant or toolResult)`);
					}
				}
			}
			return result;
		};
		return tap;
	};

	/** Enforces one converter per slot unless `override`, and puts overrides in front of what they override. */
	const placeConverter = (hook: ConverterHook, tap: ConverterTap, slot: string): ConverterTap => {
		if (tap.internal) return tap;
		const existing = (hook.taps as ConverterTap[]).filter((t) => !t.internal);
		if (existing.length > 0) {
			if (!tap.override) {
				throw new DuplicateConverterError(
					`Plugin "${tap.name}" registers a converter for ${slot}, which plugin "${existing[0]?.name}" already converts. ` +
						"Pass { override: true } to run it first with the existing one as fallback, or register it for another role.",
					{ plugin: tap.name },
				);
			}
			const stage = tap.stage ?? 0;
			// tapable's `before` accepts a list at runtime; it places the tap ahead of each named one.
			(tap as { before?: string | string[] }).before = existing
				.filter((t) => (t.stage ?? 0) >= stage)
				.map((t) => t.name);
		}
		return guardConverter(tap);
	};

	const convertHooks = new Map<string, ConverterHook>();
	const hooks: RegistryHooks = Object.freeze({
		beforeConvert: new SyncWaterfallHook<[readonly AgentMessage[], HookContext]>(
			["messages", "ctx"],
			"beforeConvert",
		),
		convert: new HookMap(
			(role: string) => new SyncBailHook(["message", "ctx"], `convert ${role}`) as ConverterHook,
			"convert",
		),
		convertCustom: new HookMap(
			(customType: string) =>
				new SyncBailHook(["message", "ctx"], `convertCustom ${customType}`) as SyncBailHook<
					[CustomMessage, ConvertContext],
					ConverterResult,
					ConverterTapOptions
				>,
			"convertCustom",
		),
		afterConvert: new SyncWaterfallHook<[Message[], HookContext]>(["messages", "ctx"], "afterConvert"),
		afterConvertAsync: new AsyncSeriesWaterfallHook<[Message[], HookContext]>(
			["messages", "ctx"],
			"afterConvertAsync",
		),
		error: new SyncHook<[ConvertToLlmError]>(["error"], "error"),
	});

	hooks.convert.intercept({
		factory: (role, hook) => {
			convertHooks.set(role, hook);
			hook.intercept({
				register: (tap) => placeConverter(hook, tap as ConverterTap, `role ${JSON.stringify(role)}`),
			});
			return hook;
		},
	});
	hooks.convertCustom.intercept({
		factory: (customType, hook) => {
			// The first customType converter routes `custom` messages by a map look-up, ahead of every `custom` converter.
			if (!convertHooks.get("custom")?.taps.some((t) => t.name === CUSTOM_TYPE_DISPATCH)) {
				hooks.convert
					.for("custom")
					.tap(
						{ name: CUSTOM_TYPE_DISPATCH, stage: Number.NEGATIVE_INFINITY, internal: true } as ConverterTap,
						(message, ctx) => {
							const typed = hooks.convertCustom.get((message as CustomMessage).customType);
							return typed === undefined ? undefined : typed.call(message as CustomMessage, ctx);
						},
					);
			}
			hook.intercept({
				register: (tap) =>
					placeConverter(
						hook as unknown as ConverterHook,
						tap as ConverterTap,
						`customType ${JSON.stringify(customType)}`,
					),
			});
			return hook;
		},
	});
	hooks.beforeConvert.intercept({ register: (tap) => guardWaterfallTap(tap, "beforeConvert", report) });
	hooks.afterConvert.intercept({ register: (tap) => guardWaterfallTap(tap, "afterConvert", report) });
	hooks.afterConvertAsync.intercept({ register: (tap) => guardWaterfallTap(tap, "afterConvertAsync", report) });
	hooks.error.intercept({ register: (tap) => guardErrorTap(tap) });

	const used = new WeakSet<Plugin>();

	const run = (messages: readonly AgentMessage[]): { output: Message[]; run: ConvertRun } => {
		if (!Array.isArray(messages)) {
			report(
				new InvalidMessageError(
					`convert expects an array of AgentMessages, got ${describeValue(messages)}. Pass the agent's message history (an array); nothing was converted.`,
				),
			);
			return { output: [], run: new ConvertRun([], strict, report) };
		}
		let input: readonly AgentMessage[] = messages;
		if (hooks.beforeConvert.taps.length > 0) {
			input = hooks.beforeConvert.call(input, new ConvertRun(input, strict, report)) ?? input;
		}
		const ctx = new ConvertRun(input, strict, report);
		return { output: convertMessages(input, ctx), run: ctx };
	};

	/** The hot loop: one pass, a Map look-up per message, results appended one by one. */
	const convertMessages = (input: readonly AgentMessage[], ctx: ConvertRun): Message[] => {
		const output: Message[] = [];
		const length = input.length;
		for (let i = 0; i < length; i++) {
			let result: ConverterResult;
			let message: AgentMessage | undefined;
			try {
				message = input[i] as AgentMessage;
				ctx.index = i;
				if (message === null || typeof message !== "object" || typeof message.role !== "string") {
					ctx.report(
						new InvalidMessageError(
							`Message ${i} is ${describeValue(message)}, not an AgentMessage with a string role. It was dropped; remove it from the history or fix what wrote it.`,
							{ index: i },
						),
					);
					continue;
				}
				const hook = convertHooks.get(message.role);
				result = hook === undefined ? undefined : hook.call(message, ctx);
			} catch (cause) {
				if (strict && cause instanceof ConvertToLlmError) throw cause;
				ctx.report(
					new ConversionError(
						`Converting message ${i} failed: ${causeText(cause)}. It was dropped; check the message and the plugins that handle its role.`,
						{ index: i, role: typeof message?.role === "string" ? message.role : undefined, cause },
					),
				);
				continue;
			}
			if (result === undefined) {
				if (ctx.failedIndex !== i) reportUnhandled(message, i, ctx);
				continue;
			}
			if (result === null) continue;
			if (Array.isArray(result)) {
				const list = result as readonly Message[];
				for (let j = 0; j < list.length; j++) output.push(list[j] as Message);
			} else {
				output.push(result as Message);
			}
		}
		return output;
	};

	const reportUnhandled = (message: AgentMessage, index: number, ctx: ConvertRun): void => {
		const role = message.role;
		const hook = convertHooks.get(role);
		const names =
			hook === undefined ? [] : hook.taps.filter((t) => t.name !== CUSTOM_TYPE_DISPATCH).map((t) => `"${t.name}"`);
		const text =
			names.length === 0
				? `No converter for ${roleText(message)} (message ${index}). It was dropped; register one with registry.register(${JSON.stringify(role)}, converter, { name }) or use a plugin that declares this role.`
				: `No converter accepted message ${index} (${roleText(message)}): ${names.join(", ")} returned undefined. It was dropped; return null from a converter to drop a message on purpose.`;
		ctx.report(
			new UnknownRoleError(text, {
				role,
				customType: role === "custom" ? (message as CustomMessage).customType : undefined,
				index,
			}),
		);
	};

	const convert = (messages: readonly AgentMessage[]): Message[] => {
		if (hooks.afterConvertAsync.taps.length > 0) {
			const names = hooks.afterConvertAsync.taps.map((t) => `"${t.name}"`).join(", ");
			throw new AsyncHookInSyncConvertError(
				`convert() cannot run the afterConvertAsync taps ${names}, and skipping them could leak what they remove. ` +
					"Use registry.convertAsync (e.g. new Agent({ convertToLlm: registry.convertAsync })).",
				{ plugin: hooks.afterConvertAsync.taps[0]?.name },
			);
		}
		const { output, run: ctx } = run(messages);
		return hooks.afterConvert.taps.length > 0 ? (hooks.afterConvert.call(output, ctx) ?? output) : output;
	};

	const convertAsync = async (messages: readonly AgentMessage[]): Promise<Message[]> => {
		const { output, run: ctx } = run(messages);
		let result = hooks.afterConvert.taps.length > 0 ? (hooks.afterConvert.call(output, ctx) ?? output) : output;
		if (hooks.afterConvertAsync.taps.length > 0) {
			result = (await hooks.afterConvertAsync.promise(result, ctx)) ?? result;
		}
		return result;
	};

	const registry: Registry = {
		hooks,
		strict,
		use(plugin: Plugin): Registry {
			if (
				plugin === null ||
				typeof plugin !== "object" ||
				typeof plugin.name !== "string" ||
				plugin.name.trim() === ""
			) {
				throw new InvalidPluginError(
					`registry.use() was given ${plugin === null || typeof plugin !== "object" ? describeValue(plugin) : "a plugin without a name"}. ` +
						'A plugin is { name: "my-plugin", apply(registry) { … } }; the name is used in every error and trace.',
				);
			}
			if (typeof plugin.apply !== "function") {
				throw new InvalidPluginError(
					`Plugin "${plugin.name}" has no apply(registry) function. Give it one that registers its converters or taps.`,
					{
						plugin: plugin.name,
					},
				);
			}
			if (used.has(plugin)) return registry;
			used.add(plugin);
			plugin.apply(registry);
			return registry;
		},
		register<R extends AgentRole>(role: R, converter: Converter<R>, options: RegisterOptionsFor<R>): Registry {
			const name = options?.name;
			if (typeof name !== "string" || name.trim() === "") {
				throw new InvalidPluginError(
					`registry.register(${JSON.stringify(role)}, …) needs options.name: the plugin name used in every error and trace, e.g. { name: "my-extension" }.`,
					{ role: String(role) },
				);
			}
			if (typeof role !== "string" || typeof converter !== "function") {
				throw new InvalidPluginError(
					`Plugin "${name}" called registry.register with ${describeValue(role)} and ${typeof converter}; it takes a role name and a converter function.`,
					{ plugin: name },
				);
			}
			const customType = (options as { customType?: unknown }).customType;
			const tap = { name, stage: options.stage, override: options.override === true };
			if (role === "custom" && customType !== undefined) {
				if (typeof customType !== "string") {
					throw new InvalidPluginError(`Plugin "${name}" gave a customType that is not a string.`, {
						plugin: name,
						role,
					});
				}
				hooks.convertCustom.for(customType).tap(tap, converter as unknown as Converter<"custom">);
			} else {
				hooks.convert.for(role).tap(tap, converter as (m: AgentMessage, ctx: ConvertContext) => ConverterResult);
			}
			return registry;
		},
		roles: () => [...convertHooks].filter(([, hook]) => hook.taps.length > 0).map(([role]) => role),
		convert,
		convertAsync,
	};
	return registry;
}
