import type { AgentMessage } from "@mariozechner/pi-agent-core";
import type { Message } from "@mariozechner/pi-ai";
import {
	ConversionError,
	ConvertToLlmError,
	InvalidMessageError,
	InvalidPluginError,
	UnknownRoleError,
} from "../errors.js";
import { ConvertRun } from "./convert-run.js";
import { customTypeOf, type DispatchTable, describeRole, dispatch } from "./dispatch.js";
import { explainAsync, explainSync } from "./explain.js";
import { asyncTapsError, causeText, describeValue } from "./guard.js";
import { type ConverterHook, type CustomConverterHook, createHooks } from "./hooks.js";
import { isolateMessage } from "./isolate.js";
import type {
	AgentRole,
	Converter,
	ConverterResult,
	Plugin,
	RegisterOptionsFor,
	Registry,
	RegistryHooks,
	RegistryOptions,
} from "./types.js";

/** What `explain` and other in-package views need to see of a registry. */
export interface RegistryInternals {
	readonly hooks: RegistryHooks;
	readonly strict: boolean;
	/** The dispatch table, built if needed. */
	table(): DispatchTable;
	/** Converts `input` (no hooks run); problems go to `ctx.report`. */
	convertMessages(input: readonly AgentMessage[], ctx: ConvertRun): Message[];
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
	const isolate = options.isolate === true;
	let trackSources = false;

	const report = (error: ConvertToLlmError): void => {
		if (strict) throw error;
		if (hooks.error.taps.length > 0) hooks.error.call(error);
	};
	const newRun = (messages: readonly unknown[]) =>
		new ConvertRun(messages, strict, report, trackSources, strict || hooks.error.taps.length > 0);
	/** Taps report through the run they are part of, so that `explain` can collect what they report. */
	const reportFrom = (error: ConvertToLlmError, ctx: unknown): void => {
		if (ctx instanceof ConvertRun) ctx.report(error);
		else report(error);
	};

	const { hooks, table: getTable } = createHooks(reportFrom);

	/** The hot loop: one pass, one `Map` look-up per message, results appended one by one. */
	const convertMessages = (input: readonly AgentMessage[], ctx: ConvertRun): Message[] => {
		const output: Message[] = [];
		const dispatchTable = getTable();
		const length = input.length;
		for (let i = 0; i < length; i++) {
			// One surprising entry (a throwing getter, a bigint customType) costs only itself, never the context.
			let role: unknown;
			let result: ConverterResult;
			try {
				const message = input[i] as AgentMessage;
				ctx.index = i;
				role = message === null || typeof message !== "object" ? undefined : message.role;
				if (typeof role !== "string") {
					if (ctx.listening) ctx.report(invalidMessage(message, i));
					continue;
				}
				const entry = dispatchTable.get(role);
				if (entry === undefined) result = undefined;
				else if (entry.identity) {
					result = message as Message;
					ctx.plugin = entry.list.names[0] as string;
				} else result = dispatch(entry, message, ctx);
				if (result === undefined) {
					if (ctx.failedIndex !== i && ctx.listening) ctx.report(unhandled(message, i));
					continue;
				}
			} catch (cause) {
				// Strict runs throw from `report`; explain runs collect.
				if (cause instanceof ConvertToLlmError) {
					ctx.report(cause);
					continue;
				}
				ctx.report(
					new ConversionError(
						`Converting message ${i} failed: ${causeText(cause)}. It was dropped; check the message and the converters of its role.`,
						{ index: i, role: typeof role === "string" ? role : undefined, cause },
					),
				);
				continue;
			}
			const from = output.length;
			if (result !== null) {
				if (Array.isArray(result)) {
					const list = result as readonly Message[];
					for (let j = 0; j < list.length; j++)
						output.push(isolate ? copyOut(list[j] as Message, ctx) : (list[j] as Message));
				} else {
					output.push(isolate ? copyOut(result as Message, ctx) : (result as Message));
				}
			}
			if (ctx.tracking) ctx.record(output, from);
		}
		return output;
	};

	/** `isolate`: a copy sharing nothing with the input; a message that cannot be copied is kept and reported. */
	const copyOut = (message: Message, ctx: ConvertRun): Message => {
		try {
			return isolateMessage(message);
		} catch (cause) {
			ctx.report(
				new ConversionError(
					`Message ${ctx.index} could not be copied for isolation: ${causeText(cause)}. It was passed on uncopied; keep messages to plain JSON data.`,
					{ index: ctx.index, role: message.role, plugin: ctx.plugin, cause },
				),
			);
			return message;
		}
	};

	const invalidMessage = (message: unknown, index: number): InvalidMessageError =>
		new InvalidMessageError(
			`Message ${index} is ${describeValue(message)}, not an AgentMessage with a string role. It was dropped; remove it from the history or fix what wrote it.`,
			{ index },
		);

	const unhandled = (message: AgentMessage, index: number): UnknownRoleError => {
		const role = message.role;
		const customType = customTypeOf(message);
		const entry = getTable().get(role);
		const typed = customType === undefined ? undefined : entry?.byCustomType?.get(customType);
		const names = [...(typed?.names ?? []), ...(entry?.list.names ?? [])].map((name) => `"${name}"`);
		const text =
			names.length === 0
				? `No converter for ${describeRole(message)} (message ${index}). It was dropped; register one with registry.register(${JSON.stringify(role)}, converter, { name }) or use the plugin that declares this role.`
				: `No converter accepted message ${index} (${describeRole(message)}): ${names.join(", ")} returned undefined. It was dropped; return null from a converter to drop a message on purpose.`;
		return new UnknownRoleError(text, { role, customType, index });
	};

	/** `beforeConvert`, conversion and the sync `afterConvert`: what both `convert` and `convertAsync` do. */
	const convertSync = (messages: readonly AgentMessage[]): { output: Message[]; ctx: ConvertRun } => {
		if (!Array.isArray(messages)) {
			report(
				new InvalidMessageError(
					`convert expects an array of AgentMessages, got ${describeValue(messages)}. Pass the agent's message history (an array); nothing was converted.`,
				),
			);
			return { output: [], ctx: newRun([]) };
		}
		let input: readonly AgentMessage[] = messages;
		if (hooks.beforeConvert.taps.length > 0) input = hooks.beforeConvert.call(input, newRun(input)) ?? input;
		const ctx = newRun(input);
		const output = convertMessages(input, ctx);
		if (hooks.afterConvert.taps.length === 0) return { output, ctx };
		return { output: hooks.afterConvert.call(output, ctx) ?? output, ctx };
	};

	const convert = (messages: readonly AgentMessage[]): Message[] => {
		if (hooks.afterConvertAsync.taps.length > 0)
			throw asyncTapsError(hooks.afterConvertAsync.taps, "convert", "convertAsync");
		try {
			return convertSync(messages).output;
		} catch (cause) {
			return unexpected(cause);
		}
	};

	const convertAsync = async (messages: readonly AgentMessage[]): Promise<Message[]> => {
		try {
			const { output, ctx } = convertSync(messages);
			if (hooks.afterConvertAsync.taps.length === 0) return output;
			return (await hooks.afterConvertAsync.promise(output, ctx)) ?? output;
		} catch (cause) {
			return unexpected(cause);
		}
	};

	/**
	 * The last line of "never throws" in lenient mode: something no guard foresaw (an input whose
	 * `length` getter throws, say). Strict registries throw it; lenient ones report it and return [].
	 */
	const unexpected = (cause: unknown): Message[] => {
		// `report` throws in strict mode.
		report(
			cause instanceof ConvertToLlmError
				? cause
				: new ConversionError(
						`Conversion failed unexpectedly: ${causeText(cause)}. Nothing was converted; check the plugins in use and the history given to convert.`,
						{ cause },
					),
		);
		return [];
	};

	const internals: RegistryInternals = { hooks, strict, table: getTable, convertMessages };
	const registry: Registry = {
		hooks,
		strict,
		use(plugin: Plugin): Registry {
			if (plugin === null || typeof plugin !== "object") {
				throw new InvalidPluginError(
					`registry.use() was given ${describeValue(plugin)}. A plugin is { name: "my-plugin", apply(registry) { … } }.`,
				);
			}
			if (typeof plugin.name !== "string" || plugin.name.trim() === "") {
				throw new InvalidPluginError(
					'registry.use() was given a plugin without a name. Give it one, e.g. { name: "my-plugin", apply(registry) { … } }: the name is used in every error and trace.',
				);
			}
			if (typeof plugin.apply !== "function") {
				throw new InvalidPluginError(
					`Plugin "${plugin.name}" has no apply(registry) function. Give it one that registers its converters or taps.`,
					{ plugin: plugin.name },
				);
			}
			if (used.has(plugin)) return registry;
			try {
				plugin.apply(registry);
			} catch (cause) {
				if (cause instanceof ConvertToLlmError) throw cause;
				throw new InvalidPluginError(
					`Plugin "${plugin.name}" threw from apply(): ${causeText(cause)}. It may be partly applied; fix the plugin and use it on a new registry.`,
					{ plugin: plugin.name, cause },
				);
			}
			used.add(plugin);
			return registry;
		},
		register<R extends AgentRole>(role: R, converter: Converter<R>, options: RegisterOptionsFor<R>): Registry {
			const name = options?.name;
			if (typeof name !== "string" || name.trim() === "") {
				throw new InvalidPluginError(
					`registry.register(${JSON.stringify(role)}, …) needs options.name, the plugin name used in every error and trace, e.g. { name: "my-extension" }.`,
					{ role: typeof role === "string" ? role : undefined },
				);
			}
			if (typeof role !== "string" || typeof converter !== "function") {
				throw new InvalidPluginError(
					`Plugin "${name}" called registry.register() with ${describeValue(role)} and a ${typeof converter}; it takes a role name and a converter function.`,
					{ plugin: name },
				);
			}
			const customType = (options as { customType?: unknown }).customType;
			const tap = { name, stage: options.stage, override: options.override === true };
			if (customType === undefined) {
				hooks.convert.for(role).tap(tap, converter as unknown as ConverterHook["call"]);
			} else if (role === "custom" && typeof customType === "string") {
				hooks.convertCustom.for(customType).tap(tap, converter as unknown as CustomConverterHook["call"]);
			} else {
				throw new InvalidPluginError(
					`Plugin "${name}" gave customType ${describeValue(customType)} for role ${JSON.stringify(role)}; customType is a string and applies to role "custom" only.`,
					{ plugin: name, role },
				);
			}
			return registry;
		},
		trackSources(): Registry {
			trackSources = true;
			return registry;
		},
		roles: () => getTable().roles(),
		explain: (messages) => explainSync(internals, messages),
		explainAsync: (messages) => explainAsync(internals, messages),
		convert,
		convertAsync,
	};
	const used = new WeakSet<Plugin>();

	return registry;
}
