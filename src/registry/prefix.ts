/**
 * The prompt prefix one conversion keeps of the one before it: how many leading messages of the
 * earlier output the new one repeats byte for byte (as `JSON.stringify` writes them), where it
 * breaks, and what broke it. Providers bill a cached prefix at about a tenth of the input price and
 * rewrite everything after a break, so this is what a filter costs.
 *
 * Each observed conversion (`run`, `runAsync`, `explain`, `explainAsync`) keeps a {@link Recording}
 * of its stages on its result; comparing two recordings needs nothing else.
 */
import type { Message } from "@earendil-works/pi-ai";
import type { ConvertToLlmError } from "../errors.js";
import type { Prefix } from "./explain-types.js";
import { follow } from "./origins.js";
import { prefixBroke } from "./registry-errors.js";
import type { Observer } from "./reports.js";
import type { Run } from "./run.js";
import type { ConversionOptions } from "./types.js";

/** What the history's own change is called, as a break's cause. */
export const HISTORY = "history";

/** One stage of a conversion: what the converters made (`plugin` `""`), then each tap's result. */
export interface StageOutput {
	readonly plugin: string;
	readonly output: readonly Message[];
}

/** What an observed conversion keeps, so that a later one can say where and why its prefix broke. */
export interface Recording {
	/** The history converted (after `beforeConvert`), as it was. */
	readonly input: readonly unknown[];
	readonly stages: readonly StageOutput[];
	/** Input index → where its converted outputs begin, and the converter that decided it. */
	readonly starts: readonly number[];
	readonly deciders: readonly string[];
	readonly output: readonly Message[];
	/** The output as `JSON.stringify` writes each message, made when first compared. */
	strings?: string[];
	/** Input index → the converted outputs it became, `[from, to)`, made when a break is first explained. */
	ranges?: Map<number, readonly [number, number]>;
}

/** The key of a result's recording: a symbol, so that `JSON.stringify` and spreads leave it out. */
const RECORDING = Symbol("convert-to-llm:recording");

/** Attaches `recording` to `result` (not enumerable) and returns the result. */
export function withRecording<T extends object>(result: T, recording: Recording | undefined): T {
	if (recording !== undefined) Object.defineProperty(result, RECORDING, { value: recording });
	return result;
}

/** The recording of a conversion's result, or `undefined` for anything else. */
export function recordingOf(result: unknown): Recording | undefined {
	if (typeof result !== "object" || result === null) return undefined;
	return (result as { [RECORDING]?: Recording })[RECORDING];
}

/** Records each stage's output of one conversion, as it happens (copies of the arrays, not of the messages). */
export class StageRecorder implements Observer {
	readonly stages: StageOutput[] = [];

	decided(_index: number, _plugin: string, _count: number): void {
		// Where outputs came from is read from the run's sources.
	}

	excluded(_index: number, _plugin: string): void {
		// An excluded message makes no output.
	}

	converted(output: readonly Message[]): void {
		this.stages.push({ plugin: "", output: output.slice() });
	}

	tapped(_hook: string, plugin: string, _before: readonly Message[], after: readonly Message[]): void {
		this.stages.push({ plugin, output: after.slice() });
	}
}

/** The recording of a finished run whose stages `stages` recorded and whose final output is `output`. */
export function recordingFrom(run: Run, stages: readonly StageOutput[], output: readonly Message[]): Recording {
	return {
		input: run.input.entries.slice(),
		stages,
		starts: run.sources?.starts ?? [],
		deciders: run.sources?.deciders ?? [],
		output,
	};
}

/**
 * How `recording` keeps the prefix of `options.previous`, or `undefined` when there is none to
 * compare with; a break is also added to `problems`, as a notice.
 */
export function prefixAgainst(
	options: ConversionOptions | undefined,
	recording: Recording,
	problems: ConvertToLlmError[],
): Prefix | undefined {
	const previous = recordingOf(options?.previous);
	if (previous === undefined) return undefined;
	const prefix = comparePrefix(previous, recording);
	if (prefix.breakAt !== null) problems.push(prefixBroke(prefix, previous.output.length));
	return prefix;
}

/** How `next` keeps the prefix of `previous`. */
export function comparePrefix(previous: Recording, next: Recording): Prefix {
	const before = stringsOf(previous);
	const now = stringsOf(next);
	let kept = 0;
	while (kept < before.length && kept < now.length && before[kept] === now[kept]) kept++;
	if (kept >= before.length) return { kept, breakAt: null, cause: null };
	return { kept, breakAt: kept, cause: causeOf(previous, next, kept) };
}

function stringsOf(recording: Recording): string[] {
	recording.strings ??= recording.output.map((message, i) => jsonOf(message, i));
	return recording.strings;
}

/** A message as the provider would receive it; one that cannot be written equals nothing. */
function jsonOf(value: unknown, position: number): string {
	try {
		return JSON.stringify(value) ?? `\u0000undefined#${position}`;
	} catch {
		return `\u0000unwritable#${position}`;
	}
}

/**
 * What made the message at `at` differ: the history, when a message it came from (on either side)
 * differs; else the converter that converted such a message differently; else the first tap whose
 * result differs where it matters; the history when nothing else explains it.
 */
function causeOf(previous: Recording, next: Recording, at: number): string {
	const before = originsOf(previous);
	const now = originsOf(next);
	const concerned: number[] = [];
	let tapMade = false;
	for (const [origins, fresh] of [
		[before.at(-1) ?? [], false],
		[now.at(-1) ?? [], true],
	] as const) {
		if (at >= origins.length) continue;
		const origin = origins[at] as number;
		if (origin < 0) tapMade = true;
		// A message the history added since the earlier conversion is here because something before it went.
		else if (fresh && origin >= previous.input.length) continue;
		else if (!concerned.includes(origin)) concerned.push(origin);
	}
	for (const index of concerned) {
		if (index >= previous.input.length || index >= next.input.length) return HISTORY;
		const was = previous.input[index];
		const is = next.input[index];
		if (was !== is && jsonOf(was, -1) !== jsonOf(is, -2)) return HISTORY;
	}
	for (const index of concerned)
		if (convertedText(previous, index) !== convertedText(next, index))
			return next.deciders[index] ?? previous.deciders[index] ?? HISTORY;
	const last = Math.max(-1, ...concerned);
	const taps = Math.min(previous.stages.length, next.stages.length);
	for (let s = 1; s < taps; s++) {
		const was = previous.stages[s] as StageOutput;
		const is = next.stages[s] as StageOutput;
		if (was.plugin !== is.plugin) return is.plugin;
		const k = commonPrefix(was.output, is.output);
		if (k >= was.output.length) continue;
		const wasFrom = before[s]?.[k] ?? -1;
		const isFrom = now[s]?.[k] ?? -1;
		if (tapMade || wasFrom < 0 || isFrom < 0 || wasFrom <= last || isFrom <= last) return is.plugin;
	}
	return next.stages[taps]?.plugin ?? previous.stages[taps]?.plugin ?? HISTORY;
}

/** Input index → the converted outputs it became, `[from, to)`, made once per recording. */
function rangesOf(recording: Recording): Map<number, readonly [number, number]> {
	if (recording.ranges !== undefined) return recording.ranges;
	const { starts, stages } = recording;
	const length = stages[0]?.output.length ?? 0;
	const map = new Map<number, readonly [number, number]>();
	let previous = -1;
	// The keys of a sparse history's records are few: walk them, not its length.
	for (const key of Object.keys(starts)) {
		const index = Number(key);
		if (previous >= 0) map.set(previous, [starts[previous] as number, starts[index] as number]);
		previous = index;
	}
	if (previous >= 0) map.set(previous, [starts[previous] as number, length]);
	recording.ranges = map;
	return map;
}

/** The origins of each stage's output: the input index each message came from (-1: made by a tap). */
function originsOf(recording: Recording): number[][] {
	const { stages } = recording;
	const first: number[] = new Array(stages[0]?.output.length ?? 0).fill(-1);
	for (const [index, [from, to]] of rangesOf(recording)) for (let p = from; p < to; p++) first[p] = index;
	const all = [first];
	for (let s = 1; s < stages.length; s++)
		all.push(
			follow((stages[s - 1] as StageOutput).output, all[s - 1] as number[], (stages[s] as StageOutput).output)
				.origin,
		);
	return all;
}

/** What the converters made of input `index`, as text. */
function convertedText(recording: Recording, index: number): string {
	const range = rangesOf(recording).get(index);
	if (range === undefined) return "";
	return jsonOf((recording.stages[0]?.output ?? []).slice(range[0], range[1]), -3);
}

function commonPrefix(a: readonly Message[], b: readonly Message[]): number {
	let k = 0;
	while (k < a.length && k < b.length && (a[k] === b[k] || jsonOf(a[k], -4) === jsonOf(b[k], -5))) k++;
	return k;
}
