/**
 * `registry.explain()`: the pipeline's own run, observed. The observer records, for each input
 * message, the plugin that decided it and the outputs it became, and for each post-conversion tap
 * what it changed; `convert` runs without one and pays nothing for it.
 */
import type { Message } from "@earendil-works/pi-ai";
import { type ConvertToLlmError, InvalidMessageError, UnknownRoleError } from "../errors.js";
import { isRecord } from "../values.js";
import type { DropReason, Explanation, MessageExplanation, TapExplanation } from "./explain-types.js";
import type { Observer } from "./reports.js";
import { isHole, nextPresent } from "./sparse.js";

export class Trace implements Observer {
	readonly errors: ConvertToLlmError[] = [];
	private readonly decidedBy = new Map<number, string>();
	private readonly excludedBy = new Map<number, string>();
	/** Output position → input index (-1 for a message a tap added). */
	private origin: number[] = [];
	/** Input index → the tap that removed its last output. */
	private readonly removedBy = new Map<number, string>();
	private readonly taps: TapExplanation[] = [];

	converted(): void {
		// Explain follows each output from the converter that decided it (`decided`).
	}

	decided(index: number, plugin: string, count: number): void {
		this.decidedBy.set(index, plugin);
		for (let i = 0; i < count; i++) this.origin.push(index);
	}

	excluded(index: number, plugin: string): void {
		this.excludedBy.set(index, plugin);
	}

	/** Records what one tap did: by position when it replaced messages in place, by identity otherwise. */
	tapped(hook: string, plugin: string, before: readonly Message[], after: readonly Message[]): void {
		const entry: TapExplanation = { hook: hook as TapExplanation["hook"], plugin, changed: [], removed: 0, added: 0 };
		if (after.length === before.length && !reordered(before, after)) {
			for (let i = 0; i < after.length; i++) if (after[i] !== before[i]) entry.changed.push(i);
		} else {
			const pending = new Map<Message, number[]>();
			before.forEach((message, i) => {
				const list = pending.get(message);
				if (list === undefined) pending.set(message, [this.origin[i] ?? -1]);
				else list.push(this.origin[i] ?? -1);
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
					if (index >= 0) this.removedBy.set(index, plugin);
				}
			}
			this.origin = origin;
		}
		// The final check of the output is not a tap: it is listed only when it removed something.
		this.taps.push(entry);
	}

	/** The explanation of a run over `input` that returned `output`. */
	finish(output: Message[], input: readonly unknown[]): Explanation {
		const byIndex = new Map<number, ConvertToLlmError[]>();
		for (const error of this.errors) {
			if (error.index === undefined) continue;
			const list = byIndex.get(error.index);
			if (list === undefined) byIndex.set(error.index, [error]);
			else list.push(error);
		}
		const messages: MessageExplanation[] = [];
		const at = new Map<number, MessageExplanation>();
		const keys = {};
		for (let index = 0; index < input.length; index++) {
			const message = input[index];
			const entry = this.entryFor(index, message, byIndex.get(index) ?? []);
			messages.push(entry);
			at.set(index, entry);
			// A run of holes is one entry (its first index), as it is one report.
			if (message === undefined && isHole(input, index)) index = nextPresent(input, index, keys) - 1;
		}
		this.origin.forEach((index, position) => {
			at.get(index)?.outputs.push(position);
		});
		for (const entry of messages) {
			if (entry.outputs.length > 0) continue;
			entry.dropped = this.dropReason(entry);
			if (entry.dropped === "filtered") entry.droppedBy = this.removedBy.get(entry.index);
			if (entry.dropped === "excluded") entry.plugin = this.excludedBy.get(entry.index);
		}
		return { output, messages, taps: this.taps, errors: this.errors };
	}

	/** What is left to say when something no guard foresaw broke the run. */
	unexplained(): Explanation {
		return { output: [], messages: [], taps: [], errors: this.errors };
	}

	private entryFor(index: number, message: unknown, errors: ConvertToLlmError[]): MessageExplanation {
		const role = readField(message, "role");
		const customType = role === "custom" ? readField(message, "customType") : undefined;
		return {
			index,
			role: typeof role === "string" ? role : undefined,
			customType: typeof customType === "string" ? customType : undefined,
			plugin: this.decidedBy.get(index),
			outputs: [],
			dropped: undefined,
			droppedBy: undefined,
			errors,
		};
	}

	private dropReason(entry: MessageExplanation): DropReason {
		if (this.removedBy.has(entry.index)) return "filtered";
		if (this.excludedBy.has(entry.index)) return "excluded";
		if (this.decidedBy.has(entry.index)) return "converter";
		if (entry.errors.some((error) => error instanceof InvalidMessageError)) return "invalid-message";
		if (entry.errors.some((error) => error instanceof UnknownRoleError)) return "unknown-role";
		return "converter-failed";
	}
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

/** A field of an input entry, or `undefined` when it is not an object or reading the field throws. */
function readField(message: unknown, field: string): unknown {
	try {
		return isRecord(message) ? message[field] : undefined;
	} catch {
		return undefined;
	}
}
