/**
 * Following outputs through a post-conversion tap: which input each message of the tap's result came
 * from. Used by `explain` (what each tap changed, added and removed) and by the prefix comparison
 * (where a break came from), so both follow a tap the same way.
 */
import type { Message } from "@earendil-works/pi-ai";

/** Where a tap's result came from: each position's input index (-1: the tap made it). */
export interface Followed {
	/** Output position (in the tap's result) → the input index its message came from; -1 for one the tap added. */
	readonly origin: number[];
	/** Positions (in the tap's result) of messages the tap added. */
	readonly added: number[];
	/** The input indices of messages the tap no longer returns (-1: one an earlier tap had added). */
	readonly removed: number[];
	/** Whether the tap kept the length and the order: positions map one to one (a replaced message keeps its origin). */
	readonly inPlace: boolean;
}

/**
 * Follows `before` (whose position `p` came from input `origin[p]`) to `after`: by position when the
 * tap kept the length and moved nothing, by identity otherwise (a message returned twice keeps one
 * origin per copy it had).
 */
export function follow(before: readonly Message[], origin: readonly number[], after: readonly Message[]): Followed {
	if (after.length === before.length && !reordered(before, after))
		return { origin: origin.slice(0, after.length), added: [], removed: [], inPlace: true };
	const pending = new Map<Message, number[]>();
	for (let i = 0; i < before.length; i++) {
		const message = before[i] as Message;
		const list = pending.get(message);
		if (list === undefined) pending.set(message, [origin[i] ?? -1]);
		else list.push(origin[i] ?? -1);
	}
	const added: number[] = [];
	const followed: number[] = [];
	for (let i = 0; i < after.length; i++) {
		const from = pending.get(after[i] as Message)?.shift();
		if (from !== undefined) followed.push(from);
		else {
			added.push(i);
			followed.push(-1);
		}
	}
	const removed: number[] = [];
	for (const left of pending.values()) for (const index of left) removed.push(index);
	return { origin: followed, added, removed, inPlace: false };
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
