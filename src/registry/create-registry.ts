/** `createRegistry()`: a registry's hooks, converter store and pipeline, wired together; plugins applied once by name. */
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { Message } from "@earendil-works/pi-ai";
import { ConvertToLlmError } from "../errors.js";
import { isModelRole, type ModelRole } from "../messages.js";
import { isInstance } from "../values.js";
import { Trace } from "./explain.js";
import type { HookContext } from "./hook-types.js";
import { codeGenerationRefused } from "./interpreted-hooks.js";
import type { ConverterFn } from "./loop/index.js";
import { type Collect, type Converted, convertAsync, convertSync, failsafe, type Pipeline } from "./pipeline.js";
import { prefixAgainst, recordingFrom, StageRecorder, withRecording } from "./prefix.js";
import {
	applyThrew,
	asyncTaps,
	badCustomType,
	badExclude,
	badRegister,
	badSanitizer,
	badSanitizerRoles,
	badTimeout,
	MAX_TIMEOUT_MS,
	namelessConverter,
	namelessPlugin,
	nameTaken,
	noApply,
	notAPlugin,
} from "./registry-errors.js";
import { createHooks } from "./registry-hooks.js";
import { tapSanitizer } from "./sanitize.js";
import { ConverterStore } from "./store.js";
import type {
	Conversion,
	ConversionOptions,
	Explanation,
	Plugin,
	Registry,
	RegistryOptions,
	Sanitizer,
} from "./types.js";

/** A sanitizer's `roles`, copied and checked: model roles only, or `undefined` for every role. */
function sanitizerRoles(name: string, roles: unknown): readonly ModelRole[] | undefined {
	if (roles === undefined) return undefined;
	let copy: unknown[];
	try {
		if (!Array.isArray(roles)) throw new TypeError("not an array");
		copy = Array.from(roles);
	} catch {
		throw badSanitizerRoles(name, roles);
	}
	for (let k = 0; k < copy.length; k++) if (!isModelRole(copy[k])) throw badSanitizerRoles(name, roles, k, copy[k]);
	return Object.freeze(copy as ModelRole[]);
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
	// Asked once per registry: a host that refuses `new Function` (CSP) gets hooks that generate no code.
	return registryWith(options, codeGenerationRefused());
}

/**
 * `createRegistry` with its hooks' calls interpreted or not: `interpreted` calls every tap without
 * tapable's generated code, as on a host that refuses code generation (tests use it to run the same
 * cases both ways).
 */
export function registryWith(options: RegistryOptions, interpreted: boolean): Registry {
	const strict = options.strict === true;
	const asyncTimeoutMs = timeoutOf(options.asyncTimeoutMs);
	let tracking = false;
	const store = new ConverterStore();
	const hooks = createHooks(
		(error) => {
			if (strict) throw error;
			if (hooks.error.isUsed()) hooks.error.call(error);
		},
		asyncTimeoutMs,
		interpreted,
	);
	const pipeline: Pipeline = {
		hooks,
		store,
		strict,
		isolate: options.isolate === true,
		trackSources: () => tracking,
	};
	const plugins = new Map<string, Plugin>();

	const registry: Registry = {
		hooks,
		strict,
		use(plugin) {
			applyOnce(plugins, plugin, registry);
			return registry;
		},
		register(role, converter, options) {
			const name = options?.name;
			if (typeof name !== "string" || name.trim() === "") throw namelessConverter("register", role);
			if (typeof role !== "string" || typeof converter !== "function") throw badRegister(name, role, converter);
			const customType = (options as { customType?: unknown }).customType;
			if (customType !== undefined && (role !== "custom" || typeof customType !== "string"))
				throw badCustomType(name, customType, role);
			store.add(role, converter as unknown as ConverterFn, {
				name,
				stage: options.stage,
				override: options.override,
				customType: customType as string | undefined,
			});
			return registry;
		},
		exclude(role, options) {
			const name = options?.name;
			if (typeof name !== "string" || name.trim() === "") throw namelessConverter("exclude", role);
			if (typeof role !== "string") throw badExclude(name, role);
			store.exclude(role, name);
			return registry;
		},
		sanitize(sanitizer) {
			const { name, stage, prepare, roles } = (sanitizer ?? {}) as Partial<Sanitizer>;
			if (typeof name !== "string" || name.trim() === "" || typeof prepare !== "function")
				throw badSanitizer(sanitizer);
			// Read once: what the registry applies cannot change behind it.
			const own: Sanitizer = Object.freeze({
				name,
				stage,
				roles: sanitizerRoles(name, roles),
				prepare: (ctx: HookContext) => prepare.call(sanitizer, ctx),
			});
			tapSanitizer(hooks, own);
			return registry;
		},
		converters: (role) => store.converters(role),
		trackSources() {
			tracking = true;
			return registry;
		},
		roles: () => store.roles(),
		...conversions(pipeline),
	};
	return registry;
}

/** The six ways to convert, as arrow properties (pi-agent-core calls `convertToLlm` with another `this`). */
function conversions(
	pipeline: Pipeline,
): Pick<Registry, "convert" | "convertAsync" | "run" | "runAsync" | "explain" | "explainAsync"> {
	const { hooks } = pipeline;
	const refuseAsync = (method: string, asyncMethod: string) => {
		if (hooks.afterConvertAsync.taps.length > 0)
			throw asyncTaps(
				hooks.afterConvertAsync.taps.map((tap) => tap.name),
				method,
				asyncMethod,
			);
	};
	return {
		convert: (messages: readonly AgentMessage[]): Message[] => {
			refuseAsync("convert", "convertAsync");
			try {
				return convertSync(pipeline, messages, "convert").output;
			} catch (cause) {
				return failsafe(pipeline, "Conversion", cause);
			}
		},
		convertAsync: async (messages: readonly AgentMessage[]): Promise<Message[]> => {
			try {
				return (await convertAsync(pipeline, messages, "convertAsync")).output;
			} catch (cause) {
				return failsafe(pipeline, "Conversion", cause);
			}
		},
		run: (messages: readonly AgentMessage[], options?: ConversionOptions): Conversion => {
			refuseAsync("run", "runAsync");
			const observed = observe(new StageRecorder());
			try {
				return observed.conversion(convertSync(pipeline, messages, "run", observed.collect), options);
			} catch (cause) {
				return observed.failed(failsafe(pipeline, "Conversion", cause, observed.collect));
			}
		},
		runAsync: async (messages: readonly AgentMessage[], options?: ConversionOptions): Promise<Conversion> => {
			const observed = observe(new StageRecorder());
			try {
				return observed.conversion(await convertAsync(pipeline, messages, "runAsync", observed.collect), options);
			} catch (cause) {
				return observed.failed(failsafe(pipeline, "Conversion", cause, observed.collect));
			}
		},
		explain: (messages: readonly AgentMessage[], options?: ConversionOptions): Explanation => {
			refuseAsync("explain", "explainAsync");
			const trace = new Trace();
			try {
				return trace.explanation(convertSync(pipeline, messages, "explain", trace.collect), options);
			} catch (cause) {
				failsafe(pipeline, "explain", cause, trace.collect);
				return trace.unexplained();
			}
		},
		explainAsync: async (messages: readonly AgentMessage[], options?: ConversionOptions): Promise<Explanation> => {
			const trace = new Trace();
			try {
				return trace.explanation(await convertAsync(pipeline, messages, "explainAsync", trace.collect), options);
			} catch (cause) {
				failsafe(pipeline, "explainAsync", cause, trace.collect);
				return trace.unexplained();
			}
		},
	};
}

/** One observed `run`: its problems, its stages, and the result with its recording and prefix. */
function observe(recorder: StageRecorder) {
	const problems: ConvertToLlmError[] = [];
	const collect: Collect = { observer: recorder, problems };
	return {
		collect,
		conversion({ output, run }: Converted, options: ConversionOptions | undefined): Conversion {
			const recording = recordingFrom(run, recorder.stages, output);
			const prefix = prefixAgainst(options, recording, problems);
			return withRecording({ output, problems, failed: false, prefix }, recording);
		},
		failed(output: Message[]): Conversion {
			return { output, problems, failed: true, prefix: undefined };
		},
	};
}

/**
 * The time limit of async taps, or `undefined` for none: `Infinity` and anything past what
 * `setTimeout` keeps (2³¹−1 ms, about 24.8 days; a longer delay would fire after 1 ms) mean no bound.
 * Throws `InvalidPluginError` for a negative number, `NaN` or a value that is not a number.
 */
function timeoutOf(value: unknown): number | undefined {
	if (value === undefined) return undefined;
	if (typeof value !== "number" || Number.isNaN(value) || value < 0) throw badTimeout(value);
	return value > MAX_TIMEOUT_MS ? undefined : value;
}

/** Applies `plugin` unless it is already used; another plugin object with a used name throws. */
function applyOnce(plugins: Map<string, Plugin>, plugin: Plugin, registry: Registry): void {
	const name = pluginName(plugin);
	const used = plugins.get(name);
	if (used === plugin) return;
	if (used !== undefined) throw nameTaken(name);
	plugins.set(name, plugin);
	try {
		plugin.apply(registry);
	} catch (cause) {
		if (isInstance(cause, ConvertToLlmError)) throw cause;
		throw applyThrew(name, cause);
	}
}

/** The name of a well-formed plugin; throws `InvalidPluginError` for anything else. */
function pluginName(plugin: unknown): string {
	if (plugin === null || typeof plugin !== "object") throw notAPlugin(plugin);
	const { name, apply } = plugin as Partial<Plugin>;
	if (typeof name !== "string" || name.trim() === "") throw namelessPlugin();
	if (typeof apply !== "function") throw noApply(name);
	return name;
}
