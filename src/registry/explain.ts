/**
 * `registry.explain()`: the pipeline's own run, observed. The observer records, for each input
 * message, the plugin that decided it and the outputs it became, and for each post-conversion tap
 * what it changed; `convert` runs without one and pays nothing for it.
 */
import type { Message } from "@earendil-works/pi-ai";
import { type ConvertToLlmError, InvalidMessageError, UnknownRoleError } from "../errors.js";
import { isRecord } from "../values.js";
import type { DropReason, Explanation, MessageExplanation, TapExplanation } from "./explain-types.js";
import { follow } from "./origins.js";
import type { Collect, Converted } from "./pipeline.js";
import { prefixAgainst, recordingFrom, StageRecorder, withRecording } from "./prefix.js";
import type { Observer } from "./reports.js";
import { isHole, nextPresent } from "./sparse.js";
import type { ConversionOptions } from "./types.js";

export class Trace extends StageRecorder implements Observer {
	readonly errors: ConvertToLlmError[] = [];
	/** Where the pipeline sends what it sees of the run: to this trace. */
	readonly collect: Collect = { observer: this, problems: this.errors };
	private readonly decidedBy = new Map<number, string>();
	private readonly excludedBy = new Map<number, string>();
	/** Output position → input index (-1 for a message a tap added). */
	private origin: number[] = [];
	/** Input index → the tap that removed its last output. */
	private readonly removedBy = new Map<number, string>();
	private readonly taps: TapExplanation[] = [];

	override decided(index: number, plugin: string, count: number): void {
		this.decidedBy.set(index, plugin);
		for (let i = 0; i < count; i++) this.origin.push(index);
	}

	override excluded(index: number, plugin: string): void {
		this.excludedBy.set(index, plugin);
	}

	/** Records what one tap did: by position when it replaced messages in place, by identity otherwise. */
	override tapped(hook: string, plugin: string, before: readonly Message[], after: readonly Message[]): void {
		super.tapped(hook, plugin, before, after);
		const entry: TapExplanation = { hook: hook as TapExplanation["hook"], plugin, changed: [], removed: 0, added: 0 };
		const followed = follow(before, this.origin, after);
		if (followed.inPlace) {
			for (let i = 0; i < after.length; i++) if (after[i] !== before[i]) entry.changed.push(i);
		} else {
			entry.added = followed.added.length;
			for (const position of followed.added) entry.changed.push(position);
			entry.removed = followed.removed.length;
			for (const index of followed.removed) if (index >= 0) this.removedBy.set(index, plugin);
		}
		this.origin = followed.origin;
		// The final check of the output is not a tap: it is listed only when it removed something.
		this.taps.push(entry);
	}

	/** The explanation of a finished run, with how it keeps the prefix of `options.previous`. */
	explanation({ output, run }: Converted, options: ConversionOptions | undefined): Explanation {
		const explanation = this.finish(output, run.input.entries);
		const recording = recordingFrom(run, this.stages, output);
		explanation.prefix = prefixAgainst(options, recording, this.errors);
		return withRecording(explanation, recording);
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

/** A field of an input entry, or `undefined` when it is not an object or reading the field throws. */
function readField(message: unknown, field: string): unknown {
	try {
		return isRecord(message) ? message[field] : undefined;
	} catch {
		return undefined;
	}
}
