/**
 * `registry.explain()`: the same conversion as `convert`, traced. It runs on its own path (a
 * tracing run and post-conversion taps called one by one), so `convert` pays nothing for it.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import type { Message } from "@mariozechner/pi-ai";
import { ConversionError, ConvertToLlmError, InvalidMessageError, UnknownRoleError } from "../errors.js";
import { ConvertRun } from "./convert-run.js";
import type { RegistryInternals } from "./create-registry.js";
import { asyncTapsError, causeText, describeValue } from "./guard.js";
import type { DropReason, Explanation, MessageExplanation, TapExplanation } from "./types.js";

/** A run that remembers, for each input index, the deciding plugin and the output positions. */
class ExplainRun extends ConvertRun {
	readonly decided = new Map<number, string>();
	/** Output position → input index (-1 for a message a tap added). */
	origin: number[] = [];
	/** Input index → the tap that removed its last output. */
	readonly removedBy = new Map<number, string>();

	/** Converters and taps see the registry's `strict`, as in `convert`; problems are collected, never thrown. */
	constructor(messages: readonly unknown[], strict: boolean, errors: ConvertToLlmError[]) {
		super(messages, strict, (error) => errors.push(error), true, true);
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

/** `registry.explain`: sync; throws like `convert` when `afterConvertAsync` has taps, and on nothing else. */
export function explainSync(internals: RegistryInternals, messages: readonly AgentMessage[]): Explanation {
	const asyncTaps = internals.hooks.afterConvertAsync.taps;
	if (asyncTaps.length > 0) throw asyncTapsError(asyncTaps, "explain", "explainAsync");
	const errors: ConvertToLlmError[] = [];
	try {
		const trace = start(internals, messages, errors);
		for (const tap of internals.hooks.afterConvert.taps) {
			applyTap(trace, "afterConvert", tap, (tap.fn as TapFn)(trace.output, trace.run));
		}
		return finish(trace);
	} catch (cause) {
		return unexplained(errors, cause);
	}
}

/** `registry.explainAsync`: also runs the `afterConvertAsync` taps. Never rejects. */
export async function explainAsync(
	internals: RegistryInternals,
	messages: readonly AgentMessage[],
): Promise<Explanation> {
	const errors: ConvertToLlmError[] = [];
	try {
		const trace = start(internals, messages, errors);
		for (const tap of internals.hooks.afterConvert.taps) {
			applyTap(trace, "afterConvert", tap, (tap.fn as TapFn)(trace.output, trace.run));
		}
		for (const tap of internals.hooks.afterConvertAsync.taps as readonly Tap[]) {
			applyTap(trace, "afterConvertAsync", tap, await callAsyncTap(tap, trace.output, trace.run));
		}
		return finish(trace);
	} catch (cause) {
		return unexplained(errors, cause);
	}
}

/** What is left to say when something no guard foresaw broke the trace (e.g. a revoked proxy as input). */
function unexplained(errors: ConvertToLlmError[], cause: unknown): Explanation {
	const error =
		cause instanceof ConvertToLlmError
			? cause
			: new ConversionError(
					`explain failed unexpectedly: ${causeText(cause)}. Nothing could be explained; check the plugins in use and the history given.`,
					{ cause },
				);
	return { output: [], messages: [], taps: [], errors: [...errors, error] };
}

function start(internals: RegistryInternals, messages: readonly AgentMessage[], errors: ConvertToLlmError[]): Trace {
	const { strict } = internals;
	if (!Array.isArray(messages)) {
		errors.push(
			new InvalidMessageError(
				`explain expects an array of AgentMessages, got ${describeValue(messages)}. Pass the agent's message history (an array).`,
			),
		);
		const run = new ExplainRun([], strict, errors);
		return { run, input: [], errors, taps: [], output: [] };
	}
	let input: readonly AgentMessage[] = messages;
	if (internals.hooks.beforeConvert.taps.length > 0) {
		input = internals.hooks.beforeConvert.call(input, new ExplainRun(input, strict, errors)) ?? input;
	}
	const run = new ExplainRun(input, strict, errors);
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

/** Whether a same-length result moved messages around (a slot holds a message from another slot). */
function reordered(before: readonly Message[], after: readonly Message[]): boolean {
	let earlier: Set<Message> | undefined;
	for (let i = 0; i < after.length; i++) {
		if (after[i] === before[i]) continue;
		earlier ??= new Set(before);
		if (earlier.has(after[i] as Message)) return true;
	}
	return false;
}

/** Records what one tap did: by position when it replaced messages in place, by identity otherwise. */
function applyTap(trace: Trace, hook: TapExplanation["hook"], tap: Tap, result: unknown): void {
	const before = trace.output;
	const after = Array.isArray(result) ? (result as Message[]) : before;
	const { run } = trace;
	const entry: TapExplanation = { hook, plugin: tap.name, changed: [], removed: 0, added: 0 };
	if (after.length === before.length && !reordered(before, after)) {
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
	const byIndex = new Map<number, ConvertToLlmError[]>();
	for (const error of errors) {
		if (error.index === undefined) continue;
		const list = byIndex.get(error.index);
		if (list === undefined) byIndex.set(error.index, [error]);
		else list.push(error);
	}
	const messages: MessageExplanation[] = input.map((message, index) => {
		const role = readField(message, "role");
		const customType = role === "custom" ? readField(message, "customType") : undefined;
		return {
			index,
			role: typeof role === "string" ? role : undefined,
			customType: typeof customType === "string" ? customType : undefined,
			plugin: run.decided.get(index),
			outputs: [],
			dropped: undefined,
			droppedBy: undefined,
			errors: byIndex.get(index) ?? [],
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

/** A field of an input entry, or `undefined` when it is not an object or reading the field throws. */
function readField(message: unknown, field: string): unknown {
	if (message === null || typeof message !== "object") return undefined;
	try {
		return (message as Record<string, unknown>)[field];
	} catch {
		return undefined;
	}
}

function dropReason(entry: MessageExplanation, run: ExplainRun): DropReason {
	if (run.removedBy.has(entry.index)) return "filtered";
	if (run.decided.has(entry.index)) return "converter";
	if (entry.errors.some((error) => error instanceof InvalidMessageError)) return "invalid-message";
	if (entry.errors.some((error) => error instanceof UnknownRoleError)) return "unknown-role";
	return "converter-failed";
}
