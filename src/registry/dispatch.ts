/**
 * Dispatch of one message to its role's converters, with SyncBailHook's semantics (the first result
 * that is not `undefined` wins). Both loops over a history, the interpreted one
 * (`interpreted-loop.ts`) and the compiled one (`compile.ts`), call {@link step} for everything but
 * their fast paths, so they cannot disagree on what a converter's result means.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import type { Message } from "@mariozechner/pi-ai";
import { isModelRole } from "../messages.js";
import { describeValue, errorText, isRecord } from "../values.js";
import type { ConvertContext, ConverterResult } from "./converter-types.js";
import type { LoopPort } from "./port.js";
import { asOurs, converterFailed } from "./registry-errors.js";
import type { SourceRecords } from "./sources.js";

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

/**
 * Which loop a conversion runs: `plain` pushes a pass-through role's message with no call; `fused`
 * does the same through `port.keep` (a sanitizer is applied as each output is appended); `tracked`
 * is `plain` that also writes the port's source records (`starts`, `deciders`); `traced` (outputs
 * copied, or observed by `explain`) sends every message through `step`, writing `starts` when they
 * are tracked.
 */
export type LoopKind = "plain" | "fused" | "tracked" | "traced";

/**
 * The loop over a history: converts `input` and returns the output (problems go through `port`;
 * where outputs came from into `records`, given when sources are tracked).
 */
export type ConvertLoop = (input: readonly unknown[], port: LoopPort, records?: SourceRecords) => Message[];

/** What {@link dispatch} returns when converters failed and none took the message: it is dropped, already reported. */
export const FAILED: unique symbol = Symbol("convert-to-llm:failed");

/** What {@link dispatch} returns when a converter decided: its result is taken. */
const TAKEN: unique symbol = Symbol("convert-to-llm:taken");

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
export function threw(
	list: ConverterList,
	k: number,
	message: AgentMessage,
	index: number,
	port: LoopPort,
	cause: unknown,
) {
	const plugin = list.names[k] as string;
	if (port.listening)
		port.reportAt(
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
	port: LoopPort,
	result: ConverterResult,
): ConverterResult | typeof FAILED {
	if (result === undefined) return undefined;
	// A model-role message returned as is needs no check.
	if (result !== null && (result !== message || !list.modelRole)) {
		const problem = badResult(result);
		if (problem !== undefined) {
			const text = `${problem}, not a pi-ai Message (system, user, assistant or toolResult)`;
			if (port.listening) port.reportAt(index, failure(list.names[k] as string, message, index, text));
			return FAILED;
		}
	}
	return result;
}

/** What asking converters came to: one decided (its result taken), they failed, or none took the message. */
type Asked = typeof TAKEN | typeof FAILED | undefined;

/**
 * Asks each converter of `list` in turn, and appends the first result that is not `undefined`; a
 * failing converter is reported (once per message) and skipped.
 */
function ask(
	list: ConverterList,
	message: AgentMessage,
	index: number,
	port: LoopPort,
	out: Message[],
	from = 0,
): Asked {
	const fns = list.fns;
	let failed = false;
	for (let k = from; k < fns.length; k++) {
		let returned: ConverterResult;
		port.at(index);
		try {
			returned = (fns[k] as ConverterFn)(message, port.view);
		} catch (cause) {
			failed = threw(list, k, message, index, port, cause) === FAILED;
			continue;
		}
		const result = judge(list, k, message, index, port, returned);
		if (result === FAILED) failed = true;
		else if (result !== undefined) {
			port.take(result, index, list.names[k] as string, out);
			return TAKEN;
		}
	}
	return failed ? FAILED : undefined;
}

function failure(plugin: string, message: AgentMessage, index: number, text: string, cause?: unknown) {
	return converterFailed(plugin, message.role, customTypeOf(message), index, text, cause);
}

/** Dispatches one message: its `customType` converters first (for `custom`), then its role's. */
function dispatch(entry: RoleEntry, message: AgentMessage, index: number, port: LoopPort, out: Message[]): Asked {
	let failed = false;
	if (entry.byCustomType !== undefined) {
		const customType = (message as { customType?: unknown }).customType;
		const typed = typeof customType === "string" ? entry.byCustomType.get(customType) : undefined;
		if (typed !== undefined) {
			const asked = ask(typed, message, index, port, out);
			if (asked === FAILED) failed = true;
			else if (asked !== undefined) return asked;
		}
	}
	const asked = ask(entry.list, message, index, port, out);
	return asked === undefined && failed ? FAILED : asked;
}

/** The names asked for `message`, in order: for the "every converter returned undefined" report. */
function namesAsked(entry: RoleEntry, message: AgentMessage): string[] {
	const customType = customTypeOf(message);
	const typed = customType === undefined ? undefined : entry.byCustomType?.get(customType);
	return [...(typed?.names ?? []), ...entry.list.names];
}

/**
 * A role with no `customType` converters whose first converter the loop asked itself and which did
 * not decide (`failed`: it failed, and was reported): the others are asked in turn, as `step` would,
 * and the message is reported as unhandled when none takes it and none failed.
 */
export function askOthers(
	entry: RoleEntry,
	message: AgentMessage,
	index: number,
	port: LoopPort,
	out: Message[],
	failed: boolean,
): void {
	const asked = ask(entry.list, message, index, port, out, 1);
	if (asked === undefined && !failed) port.unhandled(index, entry.role, customTypeOf(message), entry.list.names);
}

/** One message of a known role: exclusion, dispatch, and what its result appends to `out`. */
export function step(entry: RoleEntry, message: AgentMessage, index: number, port: LoopPort, out: Message[]): void {
	if (entry.excludedBy !== undefined && (message as { excludeFromContext?: unknown }).excludeFromContext) {
		port.excluded(index, entry.excludedBy);
		return;
	}
	if (entry.identity) {
		port.take(message as Message, index, entry.list.names[0] as string, out);
		return;
	}
	const asked = dispatch(entry, message, index, port, out);
	if (asked === undefined) port.unhandled(index, entry.role, customTypeOf(message), namesAsked(entry, message));
}

/** No converter names: for a role nobody registered. */
export const NONE: readonly string[] = Object.freeze([]);
