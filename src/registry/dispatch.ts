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
	/**
	 * The role's only converter is {@link passThrough} on a model role: the message is its own
	 * result, so the hot loop skips the call (as tapable specialises the code it compiles).
	 */
	readonly identity: boolean;
}

/**
 * The converter that returns the message itself: pi sends `user`, `assistant` and `toolResult`
 * messages unchanged (the same object). Recognised by the dispatch table, which then skips the call.
 *
 * Contract: returns its argument, never a copy (`isolate: true` copies the output). `modelRoles`
 * registers it for pi-ai's three roles; when it is such a role's only converter, the registry skips
 * the call and the result check. For any other role it fails to compile (an `AgentMessage` is not a
 * `Message`); forced through, each result is a `ConversionError`, reported or thrown as `strict` says.
 *
 * @example
 * registry.register("toolResult", passThrough, { name: "tool-results-as-is" });
 */
export const passThrough = <M>(message: M): M => message;

/** A role's dispatch entry. */
export function toRoleDispatch(
	list: ConverterList,
	byCustomType: ReadonlyMap<string, ConverterList> | undefined,
): RoleDispatch {
	const identity =
		list.modelRole && byCustomType === undefined && list.fns.length === 1 && list.fns[0] === passThrough;
	return { list, byCustomType, identity };
}

/** How many roles, in registration order, are kept in the small first-level map of a table. */
const HOT_ROLES = 16;

/**
 * Role → {@link RoleDispatch}, in two levels: the first roles registered (the preset's, in practice)
 * in a small map that stays in the CPU cache, the rest in a second one. A registry with a thousand
 * extension roles then converts pi's own roles as fast as one with none (measured by `npm run bench`).
 */
export class DispatchTable {
	private readonly hot = new Map<string, RoleDispatch>();
	private readonly rest = new Map<string, RoleDispatch>();

	set(role: string, entry: RoleDispatch): void {
		if (this.hot.has(role) || (this.hot.size < HOT_ROLES && !this.rest.has(role))) this.hot.set(role, entry);
		else this.rest.set(role, entry);
	}

	get(role: string): RoleDispatch | undefined {
		const entry = this.hot.get(role);
		if (entry !== undefined || this.rest.size === 0) return entry;
		return this.rest.get(role);
	}

	has(role: string): boolean {
		return this.hot.has(role) || this.rest.has(role);
	}

	/** The roles, in registration order. */
	roles(): string[] {
		return [...this.hot.keys(), ...this.rest.keys()];
	}
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
