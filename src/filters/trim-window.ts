/**
 * The trim itself (`trimList`), apart from the plugin: every system message kept, plus the run of the others that
 * the strategy, the budget, `startOn`/`endOn` and the tool pairs allow; shared by the plugin and `trimMessageList`.
 */

import type { Message } from "@earendil-works/pi-ai";
import { ConversionError } from "../errors.js";
import type { ProblemSink } from "./problem-sink.js";
import { countEach } from "./token-counts.js";
import { splitCuts } from "./tool-pairs.js";

/** Name of the `trimToTokens` plugin (its tap on `afterConvert`, and every problem the trim reports). */
export const TRIM_TO_TOKENS_PLUGIN = "convert-to-llm:trim-to-tokens";

/** The options of a trim, read and checked once (see `readTrimOptions`). */
export interface TrimSettings {
	readonly maxTokens: number;
	readonly counter: (message: Message) => number;
	readonly strategy: "first" | "last";
	/** The roles the kept run may start on (`"last"`). */
	readonly starts: ReadonlySet<unknown>;
	/** The roles the kept run must end on; `undefined`: any. */
	readonly ends: ReadonlySet<unknown> | undefined;
	/** `"last"` only: the kept run starts on a grid of this many tokens; `undefined`: wherever it fits. */
	readonly step: number | undefined;
}

/** The kept run of non-system messages: `[start, end)`; every system message is kept besides. */
interface Window {
	readonly start: number;
	readonly end: number;
}

const isSystem = (message: Message): boolean => (message.role as string) === "system";

/**
 * Trims one converted history: every system message, plus the run `[start, end)` of the others that
 * the strategy, the budget, `startOn`/`endOn` and the tool pairs allow. Returns `messages` itself when
 * nothing goes. Reports an unusable count (once) and a history of which nothing but the system
 * messages fits (once), and never throws on a message it cannot read.
 */
export function trimList(messages: Message[], settings: TrimSettings, sink: ProblemSink): Message[] {
	const tokens = countAll(messages, settings.counter, sink);
	let systemTokens = 0;
	for (let i = 0; i < messages.length; i++) if (isSystem(messages[i] as Message)) systemTokens += tokens[i] as number;
	let split: Uint8Array | undefined;
	const cuts = (): Uint8Array => {
		split ??= splitCuts(messages);
		return split;
	};
	const budget = settings.maxTokens - systemTokens;
	const { start, end } =
		settings.strategy === "first"
			? headWindow(messages, tokens, cuts, budget, settings)
			: tailWindow(messages, tokens, cuts, budget, settings);
	const kept: Message[] = [];
	let others = 0;
	for (let i = 0; i < messages.length; i++) {
		const message = messages[i] as Message;
		if (isSystem(message)) kept.push(message);
		else if (i >= start && i < end) {
			kept.push(message);
			others++;
		}
	}
	if (systemTokens > settings.maxTokens || (others === 0 && messages.length > 0))
		sink.report(overBudget(messages, tokens, systemTokens, settings));
	return kept.length === messages.length ? messages : kept;
}

/** Each message's tokens; a bad count (or a throwing counter) is `Infinity`, reported once per call. */
function countAll(messages: readonly Message[], counter: (message: Message) => number, sink: ProblemSink): number[] {
	return countEach(messages, counter, (failure, i, cause) =>
		sink.report(
			new ConversionError(
				`trimToTokens: the token counter ${failure} for output message ${i}. That message counts as never fitting the budget (a system message is kept all the same); fix the counter.`,
				{ plugin: TRIM_TO_TOKENS_PLUGIN, cause },
			),
		),
	);
}

/**
 * `"last"`: the run ends at the end (or, with `endOn`, at the last cut after an `endOn` message that
 * splits no pair) and starts at the first `startOn` message, at a cut that splits no pair, at or after
 * the earliest start that fits; with `step`, at or after the grid line (see {@link gridStart}). When
 * the grid leaves no message to start on, the plain start is used, so a step never empties a request.
 */
function tailWindow(
	messages: readonly Message[],
	tokens: readonly number[],
	cuts: () => Uint8Array,
	budget: number,
	settings: TrimSettings,
): Window {
	const { starts, ends, step } = settings;
	const end = ends === undefined ? messages.length : endOn(messages, cuts, messages.length, ends);
	const fits = fittingStart(messages, tokens, end, budget);
	if (step !== undefined) {
		const from = Math.max(fits, gridStart(messages, tokens, end, budget, step));
		const start = startOn(messages, cuts, from, end, starts);
		if (start < end) return { start, end };
	}
	return { start: startOn(messages, cuts, fits, end, starts), end };
}

/** `"first"`: the longest run from the start that fits, shortened to end on `endOn` at a cut that splits no pair. */
function headWindow(
	messages: readonly Message[],
	tokens: readonly number[],
	cuts: () => Uint8Array,
	budget: number,
	settings: TrimSettings,
): Window {
	let end = 0;
	let used = 0;
	for (let i = 0; i < messages.length; i++) {
		if (isSystem(messages[i] as Message)) continue;
		used += tokens[i] as number;
		if (used > budget) break;
		end = i + 1;
	}
	if (settings.ends !== undefined) return { start: 0, end: endOn(messages, cuts, end, settings.ends) };
	while (end > 0 && end < messages.length && cuts()[end] === 1) end--;
	return { start: 0, end };
}

/** The earliest index from which the non-system messages before `end` fit `budget` (walking back from `end`). */
function fittingStart(messages: readonly Message[], tokens: readonly number[], end: number, budget: number): number {
	let start = end;
	let used = 0;
	for (let i = end - 1; i >= 0; i--) {
		if (isSystem(messages[i] as Message)) continue;
		used += tokens[i] as number;
		if (used > budget) break;
		start = i;
	}
	return start;
}

/**
 * The first index at or after the grid line: the tokens that must go (all the non-system tokens before
 * `end` minus the budget) rounded up to a multiple of `step`, counted from the history's start (after
 * the last message that never fits, if any). The line moves only when the history has grown by `step`
 * tokens, so the kept run, and the request's prefix, stays put in between.
 */
function gridStart(
	messages: readonly Message[],
	tokens: readonly number[],
	end: number,
	budget: number,
	step: number,
): number {
	let anchor = 0;
	let total = 0;
	for (let i = 0; i < end; i++) {
		if (isSystem(messages[i] as Message)) continue;
		const count = tokens[i] as number;
		if (Number.isFinite(count)) total += count;
		else {
			anchor = i + 1;
			total = 0;
		}
	}
	const need = total - budget;
	if (need <= 0) return anchor;
	const line = Math.ceil(need / step) * step;
	let cut = 0;
	for (let p = anchor; p < end; p++) {
		if (cut >= line) return p;
		if (!isSystem(messages[p] as Message)) cut += tokens[p] as number;
	}
	return end;
}

/** The first index from `from` (before `end`) of a `starts` role at a cut that splits no pair; `end` when none. */
function startOn(
	messages: readonly Message[],
	cuts: () => Uint8Array,
	from: number,
	end: number,
	starts: ReadonlySet<unknown>,
): number {
	for (let p = from; p < end; p++) {
		const role = (messages[p] as Message).role;
		if (role !== "toolResult" && (role as string) !== "system" && starts.has(role) && (p === 0 || cuts()[p] === 0))
			return p;
	}
	return end;
}

/** The last cut at or before `end` that follows an `ends` message and splits no pair; `0` when none. */
function endOn(messages: readonly Message[], cuts: () => Uint8Array, end: number, ends: ReadonlySet<unknown>): number {
	for (let p = end; p > 0; p--) {
		const message = messages[p - 1] as Message;
		if (!isSystem(message) && ends.has(message.role) && (p === messages.length || cuts()[p] === 0)) return p;
	}
	return 0;
}

function overBudget(
	messages: readonly Message[],
	tokens: readonly number[],
	systemTokens: number,
	settings: TrimSettings,
): ConversionError {
	const { maxTokens, strategy } = settings;
	const roles = (set: ReadonlySet<unknown>) => [...set].map((role) => `"${String(role)}"`).join(" or ");
	let need: string;
	if (systemTokens > maxTokens) need = `the system messages alone need ${systemTokens} tokens`;
	else if (strategy === "first") {
		const first = messages.findIndex((message) => !isSystem(message));
		need =
			first < 0
				? "no message but the system messages is there"
				: settings.ends === undefined
					? `the system messages need ${systemTokens} tokens and the first message ${tokens[first]} more`
					: `the system messages need ${systemTokens} tokens, and no run from the first message that fits ends on ${roles(settings.ends)}`;
	} else {
		// The smallest run that would do: from the last message of a start role to the end.
		let tail = 0;
		let found = false;
		for (let i = messages.length - 1; i >= 0 && !found; i--) {
			const message = messages[i] as Message;
			if (isSystem(message)) continue;
			tail += tokens[i] as number;
			found = settings.starts.has(message.role);
		}
		need = found
			? `the system messages need ${systemTokens} tokens and the last ${roles(settings.starts)} message with what follows it ${tail} more`
			: `no ${roles(settings.starts)} message is left to start on`;
		if (settings.ends !== undefined) need += ` (the kept messages must also end on ${roles(settings.ends)})`;
	}
	return new ConversionError(
		`trimToTokens: nothing but the system messages fits the budget of ${maxTokens} tokens: ${need}. Only the system messages were kept; raise maxTokens or compact the history.`,
		{ plugin: TRIM_TO_TOKENS_PLUGIN },
	);
}
