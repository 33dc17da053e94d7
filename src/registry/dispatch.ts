/**
 * The compiled form of the converter hooks: for each role, its converters in tapable's order.
 *
 * Like tapable's own code generation, the table is built once and thrown away only when a converter
 * is tapped, so `convert` pays one `Map` look-up per message whatever the number of plugins. The hot
 * loop calls the taps itself (with SyncBailHook's semantics: the first result that is not
 * `undefined` wins) so that it can name, contain and step past a converter that throws.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { ConversionError, ConvertToLlmError } from "../errors.js";
import type { CustomMessage } from "../messages.js";
import { causeText, describeBadResult, isModelRole, quote } from "./guard.js";
import type { ConvertContext, ConverterResult } from "./types.js";

/** A converter as stored in a tap. */
export type ConverterFn = (message: AgentMessage, ctx: ConvertContext) => ConverterResult;

/** The converters of one role (or one `customType`), in the order they are asked. */
export interface ConverterList {
	readonly names: readonly string[];
	readonly fns: readonly ConverterFn[];
	/** The list converts a model role, so a converter returning the message itself returns a valid `Message`. */
	readonly modelRole: boolean;
}

/** How one role is dispatched: its converters, and for `custom` the per-`customType` converters asked first. */
export interface RoleDispatch {
	readonly list: ConverterList;
	readonly byCustomType: ReadonlyMap<string, ConverterList> | undefined;
}

/** What a dispatch needs of the conversion it is part of. */
export interface DispatchRun extends ConvertContext {
	/** Whether reports are seen by anyone; when not, no error object is built. */
	readonly listening: boolean;
	failedIndex: number;
	/** Set to the name of the converter whose result is returned. */
	plugin: string;
	readonly report: (error: ConvertToLlmError) => void;
}

interface TapSource {
	readonly taps: readonly { readonly name: string; readonly fn: unknown }[];
}

/** The taps of a hook as a {@link ConverterList}, or `undefined` when it has none. */
export function toConverterList(hook: TapSource, modelRole: boolean): ConverterList | undefined {
	if (hook.taps.length === 0) return undefined;
	return { names: hook.taps.map((t) => t.name), fns: hook.taps.map((t) => t.fn as ConverterFn), modelRole };
}

/**
 * Asks each converter of `list` in turn; returns the first result that is not `undefined`.
 * A converter that throws or returns something other than pi-ai messages is reported through
 * `ctx.report` (which throws in strict mode) and skipped, so the next one is its fallback.
 */
export function runConverters(list: ConverterList, message: AgentMessage, ctx: DispatchRun): ConverterResult {
	const fns = list.fns;
	for (let k = 0; k < fns.length; k++) {
		let result: ConverterResult;
		try {
			result = (fns[k] as ConverterFn)(message, ctx);
		} catch (cause) {
			if (cause instanceof ConvertToLlmError) {
				// Already ours (e.g. thrown by a nested registry): passed on as is, never wrapped twice.
				ctx.failedIndex = ctx.index;
				ctx.report(cause);
				continue;
			}
			converterFailed(list.names[k] as string, message, ctx, `it threw: ${causeText(cause)}`, cause);
			continue;
		}
		if (result === undefined) continue;
		// A model-role message returned as is needs no check; a single new message takes three comparisons.
		if (result !== null && (result !== message || !list.modelRole)) {
			if (!isModelRole((result as { role?: unknown }).role)) {
				const problem = describeBadResult(result);
				if (problem !== undefined) {
					converterFailed(
						list.names[k] as string,
						message,
						ctx,
						`${problem}, not a pi-ai Message (user, assistant or toolResult)`,
					);
					continue;
				}
			}
		}
		ctx.plugin = list.names[k] as string;
		return result;
	}
	return undefined;
}

/** Dispatches one message: its `customType` converters first (for `custom`), then its role's. */
export function dispatch(entry: RoleDispatch, message: AgentMessage, ctx: DispatchRun): ConverterResult {
	if (entry.byCustomType !== undefined) {
		const typed = entry.byCustomType.get((message as CustomMessage).customType);
		if (typed !== undefined) {
			const result = runConverters(typed, message, ctx);
			if (result !== undefined) return result;
		}
	}
	return runConverters(entry.list, message, ctx);
}

/** `role "x"`, or `role "custom", customType "y"`: how errors name a message. */
export function describeRole(message: unknown): string {
	const role = (message as { role?: unknown } | null)?.role;
	if (role !== "custom") return `role ${quote(role)}`;
	return `role "custom", customType ${quote((message as CustomMessage).customType)}`;
}

/** The `customType` of a custom message, when it is a string. */
export function customTypeOf(message: AgentMessage): string | undefined {
	const customType = message.role === "custom" ? (message as CustomMessage).customType : undefined;
	return typeof customType === "string" ? customType : undefined;
}

function converterFailed(plugin: string, message: AgentMessage, ctx: DispatchRun, text: string, cause?: unknown): void {
	ctx.failedIndex = ctx.index;
	if (!ctx.listening) return;
	ctx.report(
		new ConversionError(
			`Converter "${plugin}" failed on message ${ctx.index} (${describeRole(message)}): ${text}. ` +
				"The next converter for the role was used, or the message was dropped if there was none; fix or remove the plugin.",
			{
				role: message.role,
				customType: customTypeOf(message),
				index: ctx.index,
				plugin,
				cause,
			},
		),
	);
}
