/**
 * One conversion's output as the loop builds it: each converter result appended (copied under
 * `isolate`), traced to the input it came from when sources are tracked, and, under `isolate`, every
 * entry a tap put there copied too, so nothing in the output is shared with the input.
 */
import type { Message } from "@earendil-works/pi-ai";
import { isRecord } from "../values.js";
import type { MessageSource } from "./hook-types.js";
import { Copier } from "./isolate.js";
import { adoptFailed, copyFailed } from "./registry-errors.js";
import type { Reports } from "./reports.js";
import type { Sources } from "./sources.js";

export class Collector {
	private copier: Copier | undefined;
	/** Under `isolate`: the loop's output as it was before the taps (every entry a copy the run made). */
	private copied: ReadonlySet<Message> = new Set();
	/** Whether outputs are traced to their inputs (`trackSources()` or `explain`): `sources` is given. */
	readonly tracking: boolean;
	/**
	 * Under `isolate`: whether a copy the loop appended has a role that is not a model role (a `role`
	 * getter that changed its answer): the final check must then run, even with no tap.
	 */
	unchecked = false;

	constructor(
		readonly isolate: boolean,
		private readonly reports: Reports,
		/** Where each output came from, when tracked (the loop writes most of it). */
		private readonly sources: Sources | undefined,
	) {
		this.tracking = sources !== undefined;
	}

	/** Appends converter `plugin`'s (checked) result for input `index`; `null` and `[]` append nothing. */
	take(result: Message | readonly Message[] | null, index: number, plugin: string, out: Message[]): void {
		const from = out.length;
		if (result !== null) {
			if (Array.isArray(result)) {
				const list = result as readonly Message[];
				for (let j = 0; j < list.length; j++) this.push(list[j] as Message, index, plugin, out);
			} else this.push(result as Message, index, plugin, out);
		}
		if (this.sources !== undefined) {
			this.sources.deciders[index] = plugin;
			this.reports.observer?.decided(index, plugin, out.length - from);
		}
	}

	/**
	 * The loop is done and `output` is what it made. Under `isolate` with taps (`snapshot`), kept as
	 * it is before any tap sees it: what `adoptAll` knows to be copies.
	 */
	converted(output: readonly Message[], snapshot: boolean): void {
		this.sources?.done(output);
		if (snapshot) this.copied = new Set(output);
	}

	/**
	 * `isolate`, after the taps: every entry of `output` that is not a copy the run made (a tap put a
	 * history message there, or made one sharing its parts) is copied too, so nothing is shared.
	 */
	adoptAll(output: Message[]): Message[] {
		const copied = this.copied;
		let adopted: Message[] | undefined;
		for (let i = 0; i < output.length; i++) {
			const message = output[i] as Message;
			// Not an object: left for the final check, which drops it.
			if (message === null || typeof message !== "object" || copied.has(message)) {
				adopted?.push(message);
				continue;
			}
			adopted ??= output.slice(0, i);
			const copy = this.copyOf(message, i, undefined);
			if (copy === undefined) continue;
			this.inheritSource(copy, message);
			adopted.push(copy);
		}
		return adopted ?? output;
	}

	sourceOf(message: Message): MessageSource | undefined {
		return this.sources?.of(message);
	}

	inheritSource(message: Message, from: Message): void {
		this.sources?.inherit(message, from);
	}

	private push(message: Message, index: number, plugin: string, out: Message[]): void {
		if (!this.isolate) {
			out.push(message);
			return;
		}
		const copy = this.copyOf(message, index, plugin);
		if (copy === undefined) return;
		// Read now, while the copy is fresh (its role is data): when every one is a model role and no
		// tap runs, the final check has nothing left to find.
		const role = copy.role;
		if (role !== "user" && role !== "assistant" && role !== "toolResult" && role !== "system") this.unchecked = true;
		out.push(copy);
	}

	/**
	 * `isolate`: a copy of `message`, or `undefined` when it cannot be copied at all. A failure is
	 * reported as converter `plugin`'s for input `index`, or, with no plugin, as output entry `index`'s
	 * (put there by a tap).
	 */
	private copyOf(message: Message, index: number, plugin: string | undefined): Message | undefined {
		this.copier ??= new Copier();
		const before = this.copier.leftOut;
		let copy: Message;
		try {
			copy = this.copier.copyMessage(message);
		} catch (cause) {
			this.copyFailed(message, index, plugin, "it cannot be read as data", cause);
			return undefined;
		}
		if (this.copier.leftOut !== before) this.copyFailed(message, index, plugin, "it holds values that are not data");
		return copy;
	}

	private copyFailed(
		message: Message,
		index: number,
		plugin: string | undefined,
		what: string,
		cause?: unknown,
	): void {
		if (plugin === undefined) this.reports.report(adoptFailed(index, what, cause));
		else this.reports.reportAt(index, copyFailed(index, roleOf(message), plugin, what, cause));
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
