/**
 * Which post-conversion hooks changed each model message, for the marker on its card: from the
 * snapshots of each tap when the report observed them (exact, by object), else from `explain`'s own
 * account of each tap (by position; a tap that removed messages hides which of the kept ones the taps
 * before it changed, so those marks end there).
 */
import type { Message } from "@earendil-works/pi-ai";
import type { Explanation, TapExplanation } from "../registry/types.js";
import type { TapSnapshots } from "./tap-snapshots.js";

/** For each message of `explanation.output`, the plugins of the taps that changed it, in the order they ran. */
export function changeMarks(
	explanation: Explanation,
	taps: readonly TapExplanation[],
	snapshots: TapSnapshots | undefined,
): (string[] | undefined)[] {
	const output = explanation.output;
	if (snapshots !== undefined && snapshots.given.length > 0) return observedMarks(output, snapshots);
	return summaryMarks(output.length, taps);
}

function observedMarks(output: readonly Message[], snapshots: TapSnapshots): (string[] | undefined)[] {
	const marks = new Map<Message, string[]>();
	const { given, last } = snapshots;
	for (let t = 0; t < given.length; t++) {
		const step = given[t] as (typeof given)[number];
		const next = given[t + 1];
		const after = next !== undefined && next.hook === step.hook ? next.messages : last.get(step.hook);
		if (after === undefined) continue;
		const before = step.messages;
		if (before.length === after.length) {
			for (let i = 0; i < after.length; i++) {
				const now = after[i] as Message;
				if (now !== before[i]) marks.set(now, withPlugin(marks.get(before[i] as Message), step.plugin));
			}
			continue;
		}
		const was = new Set<Message>(before);
		for (const now of after) if (!was.has(now)) marks.set(now, [step.plugin]);
	}
	const result: (string[] | undefined)[] = new Array(output.length);
	for (let i = 0; i < output.length; i++) result[i] = marks.get(output[i] as Message);
	return result;
}

function summaryMarks(count: number, taps: readonly TapExplanation[]): (string[] | undefined)[] {
	let length = count;
	for (const tap of taps) length -= tap.added - tap.removed;
	let marks: (string[] | undefined)[] = new Array(Math.max(0, length));
	for (const tap of taps) {
		if (tap.removed === 0 && tap.added === 0) {
			for (const i of tap.changed) marks[i] = withPlugin(marks[i], tap.plugin);
			continue;
		}
		const next: (string[] | undefined)[] = new Array(Math.max(0, marks.length - tap.removed + tap.added));
		const added = new Set(tap.changed);
		let kept = 0;
		for (let i = 0; i < next.length; i++) {
			if (added.has(i)) next[i] = [tap.plugin];
			// Only additions: the kept messages are the ones before, in order.
			else if (tap.removed === 0) next[i] = marks[kept++];
		}
		marks = next;
	}
	return marks.length === count ? marks : new Array(count);
}

const withPlugin = (marks: readonly string[] | undefined, plugin: string): string[] =>
	marks === undefined ? [plugin] : marks[marks.length - 1] === plugin ? [...marks] : [...marks, plugin];
