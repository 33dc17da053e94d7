/**
 * The conversion loop, interpreted: what a host that refuses code generation (CSP) runs, and what
 * runs while a registry's converters change between conversions. The same loop as the compiled one
 * (`compile.ts`), written once as plain code, calling the same {@link step} and {@link judge}.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import type { Message } from "@mariozechner/pi-ai";
import type { ConverterResult } from "./converter-types.js";
import {
	askOthers,
	type ConverterFn,
	type ConvertLoop,
	customTypeOf,
	FAILED,
	judge,
	type LoopKind,
	NONE,
	type RoleEntry,
	type RoleTable,
	step,
	threw,
} from "./dispatch.js";
import type { LoopPort } from "./port.js";

/**
 * A role with no `customType` converters, when outputs are neither copied nor traced: its first
 * converter called directly, a single model message appended at once, anything else judged as
 * `step` would, and the others asked when the first did not decide (the interpreted form of the
 * compiled loop's `single` case).
 */
function single(
	entry: RoleEntry,
	message: AgentMessage,
	i: number,
	port: LoopPort,
	out: Message[],
	fused: boolean,
	deciders: string[] | undefined,
) {
	// Excluded messages are dropped before the converter; nobody observes a run that is not traced.
	if (entry.excludedBy !== undefined && (message as { excludeFromContext?: unknown }).excludeFromContext) return;
	const list = entry.list;
	port.at(i);
	let result: ConverterResult;
	try {
		result = (list.fns[0] as ConverterFn)(message, port.view);
	} catch (cause) {
		threw(list, 0, message, i, port, cause);
		if (list.fns.length > 1) askOthers(entry, message, i, port, out, true);
		return;
	}
	if (result !== null && typeof result === "object" && result !== message) {
		// A result whose role cannot be read is left to judge, which reports it as this converter's.
		let to: unknown;
		try {
			to = (result as { role?: unknown }).role;
		} catch {
			to = undefined;
		}
		if (to === "user" || to === "assistant" || to === "toolResult" || to === "system") {
			if (deciders !== undefined) deciders[i] = list.names[0] as string;
			const kept = fused ? port.keep(result as Message, to) : (result as Message);
			if (kept !== null) out.push(kept);
			return;
		}
	}
	const judged = judge(list, 0, message, i, port, result);
	if (judged !== FAILED && judged !== undefined) port.take(judged, i, list.names[0] as string, out);
	else if (list.fns.length > 1) askOthers(entry, message, i, port, out, judged === FAILED);
	else if (judged === undefined) port.unhandled(i, entry.role, customTypeOf(message), list.names);
}

/**
 * The loop, interpreted: a `Map` look-up per message. What a host that refuses code generation
 * (CSP) runs, and what runs while a registry's converters change between conversions. As in the
 * compiled loop, a pass-through role's message is appended with no call unless `kind` is `traced`.
 */
export function interpret(table: RoleTable, kind: LoopKind): ConvertLoop {
	const inlineIdentity = kind !== "traced";
	const fused = kind === "fused";
	return (input, port, records) => {
		const out: Message[] = [];
		const starts = records?.starts;
		const deciders = kind === "tracked" ? records?.deciders : undefined;
		const length = input.length;
		for (let i = 0; i < length; i++) {
			const message = input[i];
			try {
				const role = message === null || typeof message !== "object" ? undefined : (message as AgentMessage).role;
				if (typeof role !== "string") {
					i = port.invalid(input, i, message);
					continue;
				}
				if (starts !== undefined) starts[i] = out.length;
				const entry = table.get(role);
				if (entry === undefined) port.unhandled(i, role, customTypeOf(message), NONE);
				else if (!inlineIdentity) step(entry, message as AgentMessage, i, port, out);
				else if (entry.identity && entry.excludedBy === undefined) {
					if (deciders !== undefined) deciders[i] = entry.list.names[0] as string;
					const kept = fused ? port.keep(message as Message, role) : (message as Message);
					if (kept !== null) out.push(kept);
				} else if (entry.byCustomType === undefined && !entry.identity)
					single(entry, message as AgentMessage, i, port, out, fused, deciders);
				else step(entry, message as AgentMessage, i, port, out);
			} catch (cause) {
				port.failed(i, message, cause);
			}
		}
		return out;
	};
}
