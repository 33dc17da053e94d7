/** The hooks of one registry, declared once in a frozen object, each tap guarded as it is made. */
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { Message } from "@earendil-works/pi-ai";
import { AsyncSeriesWaterfallHook, SyncHook, SyncWaterfallHook } from "tapable";
import type { ConvertToLlmError } from "../errors.js";
import { isModelMessage } from "../messages.js";
import { guardErrorTaps, guardWaterfall } from "./guard.js";
import type { HookContext, RegistryHooks } from "./hook-types.js";
import { interpretHook } from "./interpreted-hooks.js";

/**
 * The hooks of a registry. `interpreted`: code generation is refused on this host, so each hook
 * calls its taps through `interpreted-hooks.ts` instead of tapable's generated code.
 */
export function createHooks(
	report: (error: ConvertToLlmError) => void,
	asyncTimeoutMs: number | undefined,
	interpreted = false,
): RegistryHooks {
	const hooks: RegistryHooks = Object.freeze({
		beforeConvert: new SyncWaterfallHook<[readonly AgentMessage[], HookContext], readonly AgentMessage[] | undefined>(
			["messages", "ctx"],
			"beforeConvert",
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
	const tappable = (hook: unknown) => hook as Parameters<typeof guardWaterfall>[0];
	guardWaterfall(tappable(hooks.beforeConvert), { hook: "beforeConvert", observed: false, report });
	guardWaterfall(tappable(hooks.afterConvert), {
		hook: "afterConvert",
		isItem: isModelMessage,
		observed: true,
		report,
	});
	guardWaterfall(tappable(hooks.afterConvertAsync), {
		hook: "afterConvertAsync",
		isItem: isModelMessage,
		observed: true,
		report,
		timeoutMs: asyncTimeoutMs,
	});
	guardErrorTaps(tappable(hooks.error));
	if (interpreted) {
		interpretHook(hooks.beforeConvert, "waterfall");
		interpretHook(hooks.afterConvert, "waterfall");
		interpretHook(hooks.afterConvertAsync, "waterfall");
		interpretHook(hooks.error, "series");
	}
	return hooks;
}
