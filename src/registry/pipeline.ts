/**
 * The conversion pipeline, written once: the array check, `beforeConvert`, the converter loop,
 * `afterConvert`, the final check of the output, and the async tail. `convert`, `convertAsync`,
 * `explain` and `explainAsync` are thin calls into it; `explain` differs only by the observer it
 * gives the run.
 */
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { Message } from "@earendil-works/pi-ai";
import type { ConvertToLlmError } from "../errors.js";
import { isModelMessage } from "../messages.js";
import type { RegistryHooks } from "./hook-types.js";
import { convertLoop } from "./loop/index.js";
import { asOurs, notAnArray, outputRejected, unexpected } from "./registry-errors.js";
import { type Observer, Run } from "./run.js";
import { isHole, nextPresent } from "./sparse.js";
import type { ConverterStore } from "./store.js";

/** The name under which `explain` lists what the final check of the output removed. */
export const OUTPUT_CHECK = "convert-to-llm:output-check";

/** What the pipeline needs of its registry. */
export interface Pipeline {
	readonly hooks: RegistryHooks;
	readonly store: ConverterStore;
	readonly strict: boolean;
	readonly isolate: boolean;
	readonly trackSources: () => boolean;
}

export interface Converted {
	readonly output: Message[];
	readonly run: Run;
}

/** Where a conversion's problems go besides the run's defaults: `explain` observes, `run` collects. */
export interface Collect {
	readonly observer?: Observer | undefined;
	readonly problems?: ConvertToLlmError[] | undefined;
}

function newRun(pipeline: Pipeline, input: readonly unknown[], collect: Collect): Run {
	const { hooks } = pipeline;
	return new Run(input, {
		strict: pipeline.strict,
		isolate: pipeline.isolate,
		trackSources: pipeline.trackSources(),
		exclusions: pipeline.store.exclusions,
		emit: hooks.error.isUsed() ? (error) => hooks.error.call(error) : undefined,
		observer: collect.observer,
		problems: collect.problems,
	});
}

/** Everything but the async tail. Throws only what a strict run throws, or what no guard foresaw. */
export function convertSync(
	pipeline: Pipeline,
	messages: readonly AgentMessage[],
	method: string,
	collect: Collect = {},
): Converted {
	const { hooks, store } = pipeline;
	if (!Array.isArray(messages)) {
		const run = newRun(pipeline, [], collect);
		run.reports.report(notAnArray(method, messages));
		return { output: [], run };
	}
	let input: readonly unknown[] = messages;
	if (hooks.beforeConvert.isUsed()) {
		const before = newRun(pipeline, input, collect);
		input = hooks.beforeConvert.call(messages, before.hookContext()) ?? input;
	}
	const run = newRun(pipeline, input, collect);
	const { isolate } = run.output;
	let output = convertLoop(store.getTable(), input, run.port);
	// What the taps may change is compared with this snapshot afterwards (`adoptAll`); with no tap, nothing is.
	const tapped = hooks.afterConvert.isUsed() || hooks.afterConvertAsync.isUsed();
	run.output.converted(output, isolate && tapped);
	run.reports.observer?.converted(output);
	if (hooks.afterConvert.isUsed())
		output = checkOutput(hooks.afterConvert.call(output, run.hookContext()) ?? output, run, "afterConvert");
	// Untapped, the output is the loop's copies, whose roles were read as each was made (`Collector.push`).
	else if (isolate && run.output.unchecked) output = checkOutput(output, run, "afterConvert");
	return { output, run };
}

/** `convertSync`, then `afterConvertAsync` and the final check of what it returned. */
export async function convertAsync(
	pipeline: Pipeline,
	messages: readonly AgentMessage[],
	method: string,
	collect: Collect = {},
): Promise<Converted> {
	const converted = convertSync(pipeline, messages, method, collect);
	const { hooks } = pipeline;
	if (!hooks.afterConvertAsync.isUsed()) return converted;
	const { run } = converted;
	const output = (await hooks.afterConvertAsync.promise(converted.output, run.hookContext())) ?? converted.output;
	return { output: checkOutput(output, run, "afterConvertAsync"), run };
}

/**
 * The last line of "never throws": something no guard foresaw (an input whose `length` getter
 * throws, a tap that never settled within `asyncTimeoutMs`). Thrown by strict registries, collected
 * by `explain` and `run`, reported by lenient ones; the conversion fails closed with `[]`.
 */
export function failsafe(pipeline: Pipeline, what: string, cause: unknown, collect: Collect = {}): Message[] {
	const error: ConvertToLlmError = asOurs(cause, (c) => unexpected(what, c));
	if (collect.problems !== undefined) collect.problems.push(error);
	else if (pipeline.strict) throw error;
	else if (pipeline.hooks.error.isUsed()) pipeline.hooks.error.call(error);
	return [];
}

/**
 * The final check, whatever the taps did (a tap that changed the array in place, a `role` getter
 * that answers differently now): one pass over the roles; what is not a pi-ai message is dropped
 * and reported. Under `isolate` it reads the copies, whose roles are data.
 */
function checkOutput(given: Message[], run: Run, hook: string): Message[] {
	// Under isolate, what the taps put there is copied first: the check then reads data, not getters.
	const output = run.output.isolate ? run.output.adoptAll(given) : given;
	if (output.length !== given.length) run.reports.observer?.tapped(hook, OUTPUT_CHECK, given, output);
	const length = output.length;
	let first = 0;
	try {
		// The common case, one property read per entry: every entry a pi-ai message. MODEL_ROLES
		// (messages.ts), inlined for speed: a role missing here only sends its entries through the
		// careful pass, which asks isModelMessage and keeps them.
		for (; first < length; first++) {
			const item: unknown = output[first];
			if (typeof item !== "object" || item === null) break;
			const role = (item as { role?: unknown }).role;
			if (role !== "user" && role !== "assistant" && role !== "toolResult" && role !== "system") break;
		}
	} catch {
		// A getter or a proxy trap threw: the careful pass below reads that entry again.
	}
	return first === length ? output : recheck(output, first, run, hook);
}

/** The careful pass, from the first entry that is not obviously a pi-ai message. */
function recheck(output: Message[], from: number, run: Run, hook: string): Message[] {
	const { reports } = run;
	let kept: Message[] | undefined;
	const keys = {};
	const length = output.length;
	for (let i = from; i < length; i++) {
		const item: unknown = output[i];
		if (isModelMessage(item)) {
			kept?.push(item);
			continue;
		}
		kept ??= output.slice(0, i);
		if (item === undefined && isHole(output, i)) {
			if (reports.listening) reports.report(outputRejected(i, undefined));
			i = nextPresent(output, i, keys) - 1;
			continue;
		}
		if (reports.listening) reports.report(outputRejected(i, item));
	}
	if (kept === undefined) return output;
	reports.observer?.tapped(hook, OUTPUT_CHECK, output, kept);
	return kept;
}
