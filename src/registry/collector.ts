/**
 * One conversion's output as the loop builds it: each converter result appended (copied under
 * `isolate`), traced to the input it came from when sources are tracked, and, under `isolate`, every
 * entry a tap put there copied too, so nothing in the output is shared with the input.
 */
import type { Message } from "@mariozechner/pi-ai";
import { isRecord } from "../values.js";
import type { MessageSource } from "./hook-types.js";
import { Copier } from "./isolate.js";
import { adoptFailed, copyFailed } from "./registry-errors.js";
import type { Reports } from "./reports.js";
import { Sources } from "./sources.js";

export class Collector {
	private copier: Copier | undefined;
	/** Under `isolate`: the loop's output as it was before the taps (every entry a copy the run made). */
	private copied: readonly Message[] = [];
	private readonly sources = new Sources();

	constructor(
		readonly isolate: boolean,
		/** Whether outputs are traced to their inputs (`trackSources()` or `explain`). */
		readonly tracking: boolean,
		private readonly reports: Reports,
	) {}

	/** Appends converter `plugin`'s (checked) result for input `index`; `null` and `[]` append nothing. */
	take(result: Message | readonly Message[] | null, index: number, plugin: string, out: Message[]): void {
		const from = out.length;
		if (result !== null) {
			if (Array.isArray(result)) {
				const list = result as readonly Message[];
				for (let j = 0; j < list.length; j++) this.push(list[j] as Message, index, plugin, out);
			} else this.push(result as Message, index, plugin, out);
		}
		if (this.tracking) {
			this.sources.record(index, plugin, from, out);
			this.reports.observer?.decided(index, plugin, out.length - from);
		}
	}

	/** Under `isolate`, the loop's output before any tap sees it: what `adoptAll` knows to be copies. */
	converted(output: readonly Message[]): void {
		this.copied = output.slice();
	}

	/**
	 * `isolate`, after the taps: every entry of `output` that is not a copy the run made (a tap put a
	 * history message there, or made one sharing its parts) is copied too, so nothing is shared.
	 */
	adoptAll(output: Message[]): Message[] {
		const copied = this.copied;
		// Most entries are where the loop put them: compared by position; a `Set` only for the others.
		let moved: Set<Message> | undefined;
		const isCopy = (message: Message, i: number): boolean => {
			if (message === copied[i]) return true;
			moved ??= new Set(copied);
			return moved.has(message);
		};
		let adopted: Message[] | undefined;
		for (let i = 0; i < output.length; i++) {
			const message = output[i] as Message;
			// Not an object: left for the final check, which drops it.
			if (message === null || typeof message !== "object" || isCopy(message, i)) {
				adopted?.push(message);
				continue;
			}
			adopted ??= output.slice(0, i);
			const copy = this.copyOf(message, (what, cause) => this.reports.report(adoptFailed(i, what, cause)));
			if (copy === undefined) continue;
			this.inheritSource(copy, message);
			adopted.push(copy);
		}
		return adopted ?? output;
	}

	sourceOf(message: Message): MessageSource | undefined {
		return this.tracking ? this.sources.of(message) : undefined;
	}

	inheritSource(message: Message, from: Message): void {
		if (this.tracking) this.sources.inherit(message, from);
	}

	private push(message: Message, index: number, plugin: string, out: Message[]): void {
		if (!this.isolate) {
			out.push(message);
			return;
		}
		const copy = this.copyOf(message, (what, cause) =>
			this.reports.reportAt(index, copyFailed(index, roleOf(message), plugin, what, cause)),
		);
		if (copy !== undefined) out.push(copy);
	}

	/** `isolate`: a copy of `message` (remembered as one), or `undefined` when it cannot be copied at all. */
	private copyOf(message: Message, failed: (what: string, cause?: unknown) => void): Message | undefined {
		this.copier ??= new Copier();
		const before = this.copier.leftOut;
		let copy: Message;
		try {
			copy = this.copier.copyMessage(message);
		} catch (cause) {
			failed("it cannot be read as data", cause);
			return undefined;
		}
		if (this.copier.leftOut !== before) failed("it holds values that are not data");
		return copy;
	}
}

function roleOf(message: unknown): string {
	try {
		const role = isRecord(message) ? message.role : undefined;
		return typeof role === "string" ? role : "unknown";
	} catch {
		return "unknown";
	}
}
