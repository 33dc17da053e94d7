/**
 * What each post-conversion tap changed, message by message: before `explain` runs, a registry made
 * for one report gets a snapshot tap in front of each `afterConvert` / `afterConvertAsync` tap and
 * one after the last, each recording the messages as they are at that point (and returning
 * `undefined`, so nothing changes). A snapshot tap goes only on a hook that is already tapped, so the
 * hooks the registry skips stay skipped. Never use it on a registry that serves requests.
 */
import type { Message } from "@earendil-works/pi-ai";
import type { Registry, TapExplanation } from "../registry/types.js";
import { type DiffLine, lineDiff } from "./line-diff.js";
import { messageParts, partsText } from "./message-parts.js";

/** The name of every snapshot tap; the report leaves taps of this name out of the explanation. */
export const SNAPSHOT_TAP = "convert-to-llm:report-snapshot";

type Hook = "afterConvert" | "afterConvertAsync";

/** The messages each tap was given, and what the last tap of each hook returned. */
export interface TapSnapshots {
	/** In the order the taps ran: the tap and the messages it was given. */
	readonly given: { hook: Hook; plugin: string; messages: Message[] }[];
	/** The messages after the last tap of each hook. */
	readonly last: Map<Hook, Message[]>;
}

/** One message a tap changed: replaced at `index`, added at `index`, or removed (`index` before it ran). */
export interface MessageChange {
	change: "replaced" | "added" | "removed";
	index: number;
	role: string;
	diff: DiffLine[];
}

/** What one tap did, with the change to each message. */
export interface TapChanges {
	hook: Hook;
	plugin: string;
	changes: MessageChange[];
}

/** Adds the snapshot taps to `registry` (which must be made for this one report) and returns what they record. */
export function observeTaps(registry: Registry): TapSnapshots {
	const snapshots: TapSnapshots = { given: [], last: new Map() };
	for (const hook of ["afterConvert", "afterConvertAsync"] as const) {
		const target = registry.hooks[hook];
		const taps = target.taps.map((tap) => ({ name: tap.name, stage: tap.stage ?? 0 }));
		if (taps.length === 0) continue;
		for (const { name, stage } of taps) {
			target.tap({ name: SNAPSHOT_TAP, stage, before: name }, (messages: Message[]) => {
				snapshots.given.push({ hook, plugin: name, messages: messages.slice() });
				return undefined;
			});
		}
		target.tap({ name: SNAPSHOT_TAP, stage: Number.MAX_SAFE_INTEGER }, (messages: Message[]) => {
			snapshots.last.set(hook, messages.slice());
			return undefined;
		});
	}
	return snapshots;
}

/** The taps of `taps` that are not snapshot taps. */
export const withoutSnapshots = (taps: readonly TapExplanation[]): TapExplanation[] =>
	taps.filter((tap) => tap.plugin !== SNAPSHOT_TAP);

/**
 * For each tap that ran, the messages it replaced, added or removed, each with a line diff of their
 * texts; `see` is shown each whole text before it is split into lines (the redaction's scan reads it).
 */
export function tapChanges(snapshots: TapSnapshots, see: (text: string) => unknown = () => {}): TapChanges[] {
	const result: TapChanges[] = [];
	const { given } = snapshots;
	for (let t = 0; t < given.length; t++) {
		const step = given[t] as (typeof given)[number];
		const next = given[t + 1];
		const after = next !== undefined && next.hook === step.hook ? next.messages : snapshots.last.get(step.hook);
		if (after === undefined) continue;
		result.push({ hook: step.hook, plugin: step.plugin, changes: changesOf(step.messages, after, see) });
	}
	return result;
}

/** By position when the length and order are kept (as `explain` compares), by identity otherwise. */
function changesOf(
	before: readonly Message[],
	after: readonly Message[],
	see: (text: string) => unknown,
): MessageChange[] {
	const changes: MessageChange[] = [];
	if (before.length === after.length && sameOrder(before, after)) {
		for (let i = 0; i < after.length; i++) {
			if (after[i] !== before[i]) changes.push(change("replaced", i, before[i], after[i], see));
		}
		return changes;
	}
	const kept = new Set<Message>(after);
	const was = new Set<Message>(before);
	for (let i = 0; i < before.length; i++) {
		if (!kept.has(before[i] as Message)) changes.push(change("removed", i, before[i], undefined, see));
	}
	for (let i = 0; i < after.length; i++) {
		if (!was.has(after[i] as Message)) changes.push(change("added", i, undefined, after[i], see));
	}
	return changes;
}

/** Whether the messages both arrays hold come in the same order (a tap that only replaced some). */
function sameOrder(before: readonly Message[], after: readonly Message[]): boolean {
	const at = new Map<Message, number>();
	for (let i = 0; i < before.length; i++) at.set(before[i] as Message, i);
	let last = -1;
	for (const message of after) {
		const i = at.get(message);
		if (i === undefined) continue;
		if (i < last) return false;
		last = i;
	}
	return true;
}

function change(
	kind: MessageChange["change"],
	index: number,
	before: unknown,
	after: unknown,
	see: (text: string) => unknown,
): MessageChange {
	const text = (message: unknown) => {
		const whole = message === undefined ? "" : partsText(messageParts(message, sendsImages(message)));
		see(whole);
		return whole;
	};
	return { change: kind, index, role: roleOf(after ?? before), diff: lineDiff(text(before), text(after)) };
}

const roleOf = (message: unknown): string => {
	const role = (message as { role?: unknown } | null)?.role;
	return typeof role === "string" ? role : "?";
};

const sendsImages = (message: unknown): boolean => {
	const role = roleOf(message);
	return role === "user" || role === "toolResult";
};
