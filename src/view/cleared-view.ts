/**
 * Which model messages `clearToolResults` cleared, and how large each was in the history: the view's
 * marker, the `--explain` line and the HTML report's change marker all say it from here.
 */
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { CLEAR_TOOL_RESULTS_PLUGIN } from "../filters/clear-tool-results-options.js";
import { contentSize, readsAsCleared } from "../filters/clear-tool-results-placeholder.js";
import type { Explanation } from "../registry/types.js";
import { isRecord } from "../values.js";
import { plural } from "./render.js";

/** A cleared tool result: the plugin that cleared it and what its history message held. */
export interface ClearedResult {
	plugin: string;
	/** Characters of text and images of the history message it came from. */
	chars: number;
	images: number;
}

/**
 * For each model message of `explanation.output`, the clearing that made it, or `undefined`.
 *
 * The clearing tap's own account (`changed`) gives the messages by position; when a later tap added
 * or removed messages the positions moved, and a cleared result is known by its content instead
 * (a tool result that reads as cleared where its history message did not).
 */
export function clearedResults(
	explanation: Explanation,
	history: readonly AgentMessage[],
): (ClearedResult | undefined)[] | undefined {
	const taps = explanation.taps;
	let at = -1;
	for (let t = 0; t < taps.length; t++) if (taps[t]?.plugin === CLEAR_TOOL_RESULTS_PLUGIN) at = t;
	if (at < 0) return undefined;
	const tap = taps[at] as (typeof taps)[number];
	if (tap.changed.length === 0) return undefined;
	let moved = false;
	for (let t = at + 1; t < taps.length; t++) {
		const later = taps[t] as (typeof taps)[number];
		if (later.added > 0 || later.removed > 0) moved = true;
	}
	const output = explanation.output;
	const sources = new Array<number>(output.length).fill(-1);
	for (const item of explanation.messages) for (const o of item.outputs) sources[o] = item.index;
	const result: (ClearedResult | undefined)[] = new Array(output.length);
	const candidates = moved ? output.map((_, i) => i) : tap.changed;
	for (const i of candidates) {
		const message = output[i] as unknown;
		if (!isRecord(message) || message.role !== "toolResult") continue;
		const source = history[sources[i] ?? -1] as unknown;
		const original = isRecord(source) ? source.content : undefined;
		if (moved && (!readsAsCleared(message.content, undefined) || readsAsCleared(original, undefined))) continue;
		const size = contentSize(original);
		result[i] = { plugin: CLEAR_TOOL_RESULTS_PLUGIN, chars: size.chars, images: size.images };
	}
	return result;
}

/** `cleared by convert-to-llm:clear-tool-results (was 12,400 characters)`. */
export function clearedText(cleared: ClearedResult): string {
	const was: string[] = [plural(cleared.chars, "character")];
	if (cleared.images > 0) was.push(plural(cleared.images, "image"));
	return `cleared by ${cleared.plugin} (was ${was.join(" and ")})`;
}
