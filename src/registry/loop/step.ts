/**
 * One message through its role's converters, with SyncBailHook's semantics (the first result that is
 * not `undefined` wins): the one place where a converter's result is judged and appended.
 */
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { Message } from "@earendil-works/pi-ai";
import { isModelRole } from "../../messages.js";
import { describeValue, errorText, isRecord } from "../../values.js";
import type { ConverterResult } from "../converter-types.js";
import { asOurs, converterFailed } from "../registry-errors.js";
import type { LoopPort } from "./port.js";
import { type ConverterFn, type ConverterList, customTypeOf, type RoleEntry } from "./role-table.js";

/** What asking a list of converters came to: one decided, they failed (reported), or none took the message. */
type Asked = "taken" | "failed" | undefined;

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
	let failed = false;
	const typed = entry.byCustomType?.get(customTypeOf(message) as string);
	if (typed !== undefined) {
		const asked = ask(typed, message, index, port, out);
		if (asked === "taken") return;
		failed = asked === "failed";
	}
	const asked = ask(entry.list, message, index, port, out);
	if (asked === undefined && !failed)
		port.unhandled(index, entry.role, customTypeOf(message), [...(typed?.names ?? []), ...entry.list.names]);
}

/** Asks each converter of `list` in turn and appends the first result that is not `undefined`. */
function ask(list: ConverterList, message: AgentMessage, index: number, port: LoopPort, out: Message[]): Asked {
	let failed = false;
	for (let k = 0; k < list.fns.length; k++) {
		const plugin = list.names[k] as string;
		let result: ConverterResult;
		port.at(index);
		try {
			result = (list.fns[k] as ConverterFn)(message, port.view);
		} catch (cause) {
			if (port.listening)
				port.reportAt(
					index,
					asOurs(cause, (c) => failure(plugin, message, index, `it threw: ${errorText(c)}`, c)),
				);
			failed = true;
			continue;
		}
		if (result === undefined) continue;
		// A model-role message returned as is needs no check.
		const problem = result === null || (result === message && list.modelRole) ? undefined : badResult(result);
		if (problem !== undefined) {
			const text = `${problem}, not a pi-ai Message (system, user, assistant or toolResult)`;
			if (port.listening) port.reportAt(index, failure(plugin, message, index, text));
			failed = true;
			continue;
		}
		port.take(result as Message | readonly Message[] | null, index, plugin, out);
		return "taken";
	}
	return failed ? "failed" : undefined;
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

function failure(plugin: string, message: AgentMessage, index: number, text: string, cause?: unknown) {
	return converterFailed(plugin, message.role, customTypeOf(message), index, text, cause);
}
