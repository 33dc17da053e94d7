/**
 * Dispatch of one message to its role's converters, with SyncBailHook's semantics (the first result
 * that is not `undefined` wins), and the interpreted loop over a history. The compiled loop
 * (`compile.ts`) specialises the same loop and calls {@link step} for everything but its fast paths,
 * so the two cannot disagree on what a converter's result means.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import type { Message } from "@mariozechner/pi-ai";
import { isModelRole } from "../messages.js";
import { describeValue, errorText, isRecord } from "../values.js";
import type { ConvertContext, ConverterResult } from "./converter-types.js";
import { asOurs, converterFailed } from "./registry-errors.js";
import type { Run } from "./run.js";

/** A converter as the store keeps it. */
export type ConverterFn = (message: AgentMessage, ctx: ConvertContext) => ConverterResult;

/** The converters of one role (or one `customType`), in the order they are asked. */
export interface ConverterList {
	readonly names: readonly string[];
	readonly fns: readonly ConverterFn[];
	/** The list converts a model role, so a converter returning the message itself returns a valid `Message`. */
	readonly modelRole: boolean;
}

/** How one role is dispatched. */
export interface RoleEntry {
	readonly role: string;
	readonly list: ConverterList;
	/** For `custom`: the converters of each `customType`, asked first. */
	readonly byCustomType: ReadonlyMap<string, ConverterList> | undefined;
	/** The role's only converter is {@link passThrough} on a model role: the message is its own result. */
	readonly identity: boolean;
	/** The plugin that excludes the role's `excludeFromContext` messages, if one does. */
	readonly excludedBy: string | undefined;
}

/** Role → its entry, in registration order. */
export type RoleTable = ReadonlyMap<string, RoleEntry>;

/** The loop over a history: converts `input` and returns the output (problems go to `run`). */
export type ConvertLoop = (input: readonly unknown[], run: Run) => Message[];

/** What {@link dispatch} returns when converters failed and none took the message: it is dropped, already reported. */
export const FAILED: unique symbol = Symbol("convert-to-llm:failed");

/**
 * The converter that returns the message itself: pi sends `user`, `assistant`, `toolResult` (and pi
 * 1.x's `system`) messages unchanged (the same object). The registry recognises it and skips the call.
 *
 * Contract: returns its argument, never a copy (`isolate: true` copies the output). `modelRoles`
 * registers it for pi-ai's roles; when it is such a role's only converter, the registry skips the
 * call and the result check. For any other role it fails to compile (an `AgentMessage` is not a
 * `Message`); forced through, each result is a `ConversionError`, reported or thrown as `strict` says.
 *
 * @example
 * registry.register("toolResult", passThrough, { name: "tool-results-as-is" });
 */
export const passThrough = <M>(message: M): M => message;

/** The `customType` of a custom message, when it is a string. */
export function customTypeOf(message: unknown): string | undefined {
	const customType = isRecord(message) && message.role === "custom" ? message.customType : undefined;
	return typeof customType === "string" ? customType : undefined;
}

/** Why a converter result is not a `ConverterResult`, or `undefined` when it is one. Never throws. */
function badResult(result: unknown): string | undefined {
	try {
		if (Array.isArray(result)) {
			for (let i = 0; i < result.length; i++) {
				const item: unknown = result[i];
				if (!isRecord(item) || !isModelRole(item.role)) return `item ${i} of its result is ${describeValue(item)}`;
			}
			return undefined;
		}
		return isRecord(result) && isModelRole(result.role) ? undefined : `it returned ${describeValue(result)}`;
	} catch {
		return "its result cannot be read";
	}
}

/** A converter of `list` threw: reported (once per message); the next converter is its fallback. */
export function threw(list: ConverterList, k: number, message: AgentMessage, index: number, run: Run, cause: unknown) {
	const plugin = list.names[k] as string;
	if (run.listening)
		run.reportAt(
			index,
			asOurs(cause, (c) => failure(plugin, message, index, `it threw: ${errorText(c)}`, c)),
		);
	return FAILED;
}

/**
 * What converter `k` of `list` returning `result` means: the result to append, `undefined` (not
 * mine: ask the next), or {@link FAILED} (not pi-ai messages: reported, the next one is asked).
 */
export function judge(
	list: ConverterList,
	k: number,
	message: AgentMessage,
	index: number,
	run: Run,
	result: ConverterResult,
): ConverterResult | typeof FAILED {
	if (result === undefined) return undefined;
	// A model-role message returned as is needs no check.
	if (result !== null && (result !== message || !list.modelRole)) {
		const problem = badResult(result);
		if (problem !== undefined) {
			const text = `${problem}, not a pi-ai Message (system, user, assistant or toolResult)`;
			if (run.listening) run.reportAt(index, failure(list.names[k] as string, message, index, text));
			return FAILED;
		}
	}
	run.decidedBy = list.names[k] as string;
	return result;
}

/** Asks each converter of `list` in turn; a failing one is reported (once per message) and skipped. */
function ask(list: ConverterList, message: AgentMessage, index: number, run: Run): ConverterResult | typeof FAILED {
	const fns = list.fns;
	let failed = false;
	for (let k = 0; k < fns.length; k++) {
		let returned: ConverterResult;
		run.index = index;
		try {
			returned = (fns[k] as ConverterFn)(message, run.view);
		} catch (cause) {
			failed = threw(list, k, message, index, run, cause) === FAILED;
			continue;
		}
		const result = judge(list, k, message, index, run, returned);
		if (result === FAILED) failed = true;
		else if (result !== undefined) return result;
	}
	return failed ? FAILED : undefined;
}

function failure(plugin: string, message: AgentMessage, index: number, text: string, cause?: unknown) {
	return converterFailed(plugin, message.role, customTypeOf(message), index, text, cause);
}

/** Dispatches one message: its `customType` converters first (for `custom`), then its role's. */
export function dispatch(entry: RoleEntry, message: AgentMessage, index: number, run: Run) {
	let failed = false;
	if (entry.byCustomType !== undefined) {
		const customType = (message as { customType?: unknown }).customType;
		const typed = typeof customType === "string" ? entry.byCustomType.get(customType) : undefined;
		if (typed !== undefined) {
			const result = ask(typed, message, index, run);
			if (result === FAILED) failed = true;
			else if (result !== undefined) return result;
		}
	}
	const result = ask(entry.list, message, index, run);
	return result === undefined && failed ? FAILED : result;
}

/** The names asked for `message`, in order: for the "every converter returned undefined" report. */
function namesAsked(entry: RoleEntry, message: AgentMessage): string[] {
	const customType = customTypeOf(message);
	const typed = customType === undefined ? undefined : entry.byCustomType?.get(customType);
	return [...(typed?.names ?? []), ...entry.list.names];
}

/** One message of a known role: exclusion, dispatch, and what its result appends to `out`. */
export function step(entry: RoleEntry, message: AgentMessage, index: number, run: Run, out: Message[]): void {
	if (entry.excludedBy !== undefined && (message as { excludeFromContext?: unknown }).excludeFromContext) {
		run.excluded(index, entry.excludedBy);
		return;
	}
	let result: ConverterResult | typeof FAILED;
	if (entry.identity) {
		result = message as Message;
		run.decidedBy = entry.list.names[0] as string;
	} else result = dispatch(entry, message, index, run);
	if (result === FAILED) return;
	if (result === undefined) {
		run.unhandled(index, entry.role, customTypeOf(message), namesAsked(entry, message));
		return;
	}
	run.take(result, index, out);
}

const NONE: readonly string[] = Object.freeze([]);

/**
 * The loop, interpreted: a `Map` look-up per message. What a host that refuses code generation
 * (CSP) runs, and what runs while a registry's converters change between conversions.
 * `inlineIdentity`: as in the compiled loop, a pass-through role's message is pushed as is.
 */
export function interpret(table: RoleTable, inlineIdentity: boolean): ConvertLoop {
	return (input, run) => {
		const out: Message[] = [];
		const length = input.length;
		for (let i = 0; i < length; i++) {
			const message = input[i];
			try {
				const role = message === null || typeof message !== "object" ? undefined : (message as AgentMessage).role;
				if (typeof role !== "string") {
					i = run.invalid(input, i, message);
					continue;
				}
				const entry = table.get(role);
				if (entry === undefined) run.unhandled(i, role, customTypeOf(message), NONE);
				else if (inlineIdentity && entry.identity && entry.excludedBy === undefined) out.push(message as Message);
				else step(entry, message as AgentMessage, i, run, out);
			} catch (cause) {
				run.failed(i, message, cause);
			}
		}
		return out;
	};
}
