/**
 * `registry.explain()`: the same conversion as `convert`, traced. It runs on its own path (a
 * tracing run and post-conversion taps called one by one), so `convert` pays nothing for it.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import type { Message } from "@mariozechner/pi-ai";
import { type ConvertToLlmError, InvalidMessageError, UnknownRoleError } from "../errors.js";
import type { CustomMessage } from "../messages.js";
import { ConvertRun } from "./convert-run.js";
import type { RegistryInternals } from "./create-registry.js";
import { asyncTapsError, describeValue } from "./guard.js";
import type { DropReason, Explanation, MessageExplanation, TapExplanation } from "./types.js";

/** A run that remembers, for each input index, the deciding plugin and the output positions. */
class ExplainRun extends ConvertRun {
	readonly decided = new Map<number, string>();
	/** Output position → input index (-1 for a message a tap added). */
	origin: number[] = [];
	/** Input index → the tap that removed its last output. */
	readonly removedBy = new Map<number, string>();

	constructor(messages: readonly unknown[], errors: ConvertToLlmError[]) {
		super(messages, false, (error) => errors.push(error), true, true);
	}

	override record(outputs: readonly Message[], from: number): void {
		super.record(outputs, from);
		this.decided.set(this.index, this.plugin);
		for (let i = from; i < outputs.length; i++) this.origin.push(this.index);
	}
}

type TapFn = (...args: unknown[]) => unknown;
interface Tap {
	readonly name: string;
	readonly type: "sync" | "async" | "promise";
	readonly fn: unknown;
}

interface Trace {
	readonly run: ExplainRun;
	readonly input: readonly unknown[];
	readonly errors: ConvertToLlmError[];
	readonly taps: TapExplanation[];
	output: Message[];
}

/** `registry.explain`: sync; throws like `convert` when `afterConvertAsync` has taps. */
export function explainSync(internals: RegistryInternals, messages: readonly AgentMessage[]): Explanation {
	const asyncTaps = internals.hooks.afterConvertAsync.taps;
	if (asyncTaps.length > 0) throw asyncTapsError(asyncTaps, "explain", "explainAsync");
	const trace = start(internals, messages);
	for (const tap of internals.hooks.afterConvert.taps) {
		applyTap(trace, "afterConvert", tap, (tap.fn as TapFn)(trace.output, trace.run));
	}
	return finish(trace);
}

/** `registry.explainAsync`: also runs the `afterConvertAsync` taps. */
export async function explainAsync(
	internals: RegistryInternals,
	messages: readonly AgentMessage[],
): Promise<Explanation> {
	const trace = start(internals, messages);
	for (const tap of internals.hooks.afterConvert.taps) {
		applyTap(trace, "afterConvert", tap, (tap.fn as TapFn)(trace.output, trace.run));
	}
	for (const tap of internals.hooks.afterConvertAsync.taps as readonly Tap[]) {
		applyTap(trace, "afterConvertAsync", tap, await callAsyncTap(tap, trace.output, trace.run));
	}
	return finish(trace);
}

function start(internals: RegistryInternals, messages: readonly AgentMessage[]): Trace {
	const errors: ConvertToLlmError[] = [];
	if (!Array.isArray(messages)) {
		errors.push(
			new InvalidMessageError(
				`explain expects an array of AgentMessages, got ${describeValue(messages)}. Pass the agent's message history (an array).`,
			),
		);
		const run = new ExplainRun([], errors);
		return { run, input: [], errors, taps: [], output: [] };
	}
	let input: readonly AgentMessage[] = messages;
	if (internals.hooks.beforeConvert.taps.length > 0) {
		input = internals.hooks.beforeConvert.call(input, new ExplainRun(input, errors)) ?? input;
	}
	const run = new ExplainRun(input, errors);
	const output = internals.convertMessages(input, run);
	return { run, input, errors, taps: [], output };
}

function callAsyncTap(tap: Tap, messages: Message[], run: ExplainRun): Promise<unknown> {
	const fn = tap.fn as TapFn;
	if (tap.type === "async") {
		// The guard reports failures and always calls back without an error in a lenient run.
		return new Promise((resolve) => fn(messages, run, (_error: unknown, result?: unknown) => resolve(result)));
	}
	return Promise.resolve(fn(messages, run));
}

/** Records what one tap did, by position when it kept the length, by identity otherwise. */
function applyTap(trace: Trace, hook: TapExplanation["hook"], tap: Tap, result: unknown): void {
	const before = trace.output;
	const after = Array.isArray(result) ? (result as Message[]) : before;
	const { run } = trace;
	const entry: TapExplanation = { hook, plugin: tap.name, changed: [], removed: 0, added: 0 };
	if (after.length === before.length) {
		for (let i = 0; i < after.length; i++) {
			if (after[i] !== before[i]) entry.changed.push(i);
		}
	} else {
		const pending = new Map<Message, number[]>();
		before.forEach((message, i) => {
			const list = pending.get(message);
			if (list === undefined) pending.set(message, [run.origin[i] ?? -1]);
			else list.push(run.origin[i] ?? -1);
		});
		const origin = after.map((message, i) => {
			const from = pending.get(message)?.shift();
			if (from !== undefined) return from;
			entry.added++;
			entry.changed.push(i);
			return -1;
		});
		for (const left of pending.values()) {
			for (const index of left) {
				entry.removed++;
				if (index >= 0) run.removedBy.set(index, tap.name);
			}
		}
		run.origin = origin;
	}
	trace.taps.push(entry);
	trace.output = after;
}

function finish(trace: Trace): Explanation {
	const { run, input, errors, output } = trace;
	const messages: MessageExplanation[] = input.map((message, index) => {
		const role = (message as { role?: unknown } | null)?.role;
		return {
			index,
			role: typeof role === "string" ? role : undefined,
			customType: role === "custom" ? (message as CustomMessage).customType : undefined,
			plugin: run.decided.get(index),
			outputs: [],
			dropped: undefined,
			droppedBy: undefined,
			errors: errors.filter((error) => error.index === index),
		};
	});
	run.origin.forEach((index, position) => {
		messages[index]?.outputs.push(position);
	});
	for (const entry of messages) {
		if (entry.outputs.length > 0) continue;
		entry.dropped = dropReason(entry, run);
		if (entry.dropped === "filtered") entry.droppedBy = run.removedBy.get(entry.index);
	}
	return { output, messages, taps: trace.taps, errors };
}

function dropReason(entry: MessageExplanation, run: ExplainRun): DropReason {
	if (run.removedBy.has(entry.index)) return "filtered";
	if (run.decided.has(entry.index)) return "converter";
	if (entry.errors.some((error) => error instanceof InvalidMessageError)) return "invalid-message";
	if (entry.errors.some((error) => error instanceof UnknownRoleError)) return "unknown-role";
	return "converter-failed";
}
