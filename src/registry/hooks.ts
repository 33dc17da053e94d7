/**
 * The hooks of one registry, declared once, and the dispatch table compiled from its converter taps.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import type { Message } from "@mariozechner/pi-ai";
import { AsyncSeriesWaterfallHook, HookMap, SyncBailHook, SyncHook, SyncWaterfallHook } from "tapable";
import { type ConvertToLlmError, DuplicateConverterError } from "../errors.js";
import type { CustomMessage } from "../messages.js";
import { type ConverterList, DispatchTable, toConverterList, toRoleDispatch } from "./dispatch.js";
import { guardErrorTap, guardWaterfallTap, isModelMessage, isModelRole, type TapFailure } from "./guard.js";
import type { ConvertContext, ConverterResult, ConverterTapOptions, HookContext, RegistryHooks } from "./types.js";

export type ConverterHook = SyncBailHook<[AgentMessage, ConvertContext], ConverterResult, ConverterTapOptions>;
export type CustomConverterHook = SyncBailHook<[CustomMessage, ConvertContext], ConverterResult, ConverterTapOptions>;
type ConverterTap = ConverterHook["taps"][number] & ConverterTapOptions;

const NO_CONVERTERS: ConverterList = Object.freeze({ names: [], fns: [], modelRole: false });

/**
 * Creates the hooks of a registry: every tap is guarded (see `guard.ts`), converter taps are checked
 * for duplicates and placed (`override`), and `table()` gives the dispatch table, rebuilt only after
 * a converter was tapped.
 */
export function createHooks(fail: TapFailure): {
	hooks: RegistryHooks;
	table: () => DispatchTable;
} {
	const convertHooks = new Map<string, ConverterHook>();
	const customHooks = new Map<string, CustomConverterHook>();
	/** The compiled dispatch table: `undefined` once a converter is tapped, rebuilt by the next conversion. */
	let table: DispatchTable | undefined;

	const buildTable = (): DispatchTable => {
		const byCustomType = new Map<string, ConverterList>();
		for (const [customType, hook] of customHooks) {
			const list = toConverterList(hook, false);
			if (list !== undefined) byCustomType.set(customType, list);
		}
		const typed = byCustomType.size > 0 ? byCustomType : undefined;
		const built = new DispatchTable();
		for (const [role, hook] of convertHooks) {
			const list = toConverterList(hook, isModelRole(role));
			if (list !== undefined) built.set(role, toRoleDispatch(list, role === "custom" ? typed : undefined));
		}
		if (typed !== undefined && !built.has("custom")) built.set("custom", toRoleDispatch(NO_CONVERTERS, typed));
		return built;
	};

	const getTable = (): DispatchTable => {
		if (table === undefined) table = buildTable();
		return table;
	};

	/** One converter per slot unless `override`; an override goes in front of what it overrides. */
	const placeConverter = (
		taps: readonly ConverterTap[],
		tap: ConverterTap,
		slot: string,
		where: { role: string; customType?: string },
	): ConverterTap => {
		if (taps.length > 0) {
			if (!tap.override) {
				throw new DuplicateConverterError(
					`Plugin "${tap.name}" registers a converter for ${slot}, which plugin "${taps[0]?.name}" already converts. ` +
						"Pass { override: true } to run it first with the existing one as its fallback, or register it for another role.",
					{ plugin: tap.name, ...where },
				);
			}
			// An override always runs ahead of the converter(s) it overrides; among overrides, a lower
			// stage runs first (equal stages: the later one first). tapable's `before` takes a list at
			// runtime and places the tap ahead of each named one.
			const stage = tap.stage ?? 0;
			(tap as { before?: string | string[] }).before = taps
				.filter((t) => t.override !== true || (t.stage ?? 0) >= stage)
				.map((t) => t.name);
		}
		table = undefined;
		return tap;
	};

	const hooks: RegistryHooks = Object.freeze({
		beforeConvert: new SyncWaterfallHook<[readonly AgentMessage[], HookContext], readonly AgentMessage[] | undefined>(
			["messages", "ctx"],
			"beforeConvert",
		),
		convert: new HookMap(
			(role: string): ConverterHook => new SyncBailHook(["message", "ctx"], `convert ${role}`),
			"convert",
		),
		convertCustom: new HookMap(
			(customType: string): CustomConverterHook =>
				new SyncBailHook(["message", "ctx"], `convertCustom ${customType}`),
			"convertCustom",
		),
		afterConvert: new SyncWaterfallHook<[Message[], HookContext], Message[] | undefined>(
			["messages", "ctx"],
			"afterConvert",
		),
		afterConvertAsync: new AsyncSeriesWaterfallHook<[Message[], HookContext], Message[] | undefined>(
			["messages", "ctx"],
			"afterConvertAsync",
		),
		error: new SyncHook<[ConvertToLlmError]>(["error"], "error"),
	});

	hooks.convert.intercept({
		factory: (role: string, hook) => {
			convertHooks.set(role, hook);
			const slot = `role ${JSON.stringify(role)}`;
			hook.intercept({ register: (tap) => placeConverter(hook.taps, tap, slot, { role }) });
			return hook;
		},
	});
	hooks.convertCustom.intercept({
		factory: (customType: string, hook) => {
			customHooks.set(customType, hook);
			const slot = `customType ${JSON.stringify(customType)}`;
			hook.intercept({
				register: (tap) => placeConverter(hook.taps, tap, slot, { role: "custom", customType }),
			});
			return hook;
		},
	});
	hooks.beforeConvert.intercept({ register: (tap) => guardWaterfallTap(tap, "beforeConvert", fail) });
	hooks.afterConvert.intercept({
		register: (tap) => guardWaterfallTap(tap, "afterConvert", fail, isModelMessage),
	});
	hooks.afterConvertAsync.intercept({
		register: (tap) => guardWaterfallTap(tap, "afterConvertAsync", fail, isModelMessage),
	});
	hooks.error.intercept({ register: (tap) => guardErrorTap(tap) });

	return { hooks, table: getTable };
}
