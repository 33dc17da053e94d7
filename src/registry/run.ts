/**
 * One conversion's state: where its problems go (one `report`: thrown, emitted or collected), what
 * is excluded, where each output came from, and the two read-only views handed to plugins.
 */
import type { Message } from "@mariozechner/pi-ai";
import { ConvertToLlmError } from "../errors.js";
import { isInstance, isRecord } from "../values.js";
import type { ConvertContext } from "./converter-types.js";
import type { HookContext, MessageSource } from "./hook-types.js";
import { Copier } from "./isolate.js";
import { adoptFailed, copyFailed, holes, invalidEntry, messageFailed, unhandled } from "./registry-errors.js";
import { Sources } from "./sources.js";
import { isHole, nextPresent } from "./sparse.js";
import { ConverterView, HookView } from "./views.js";

/** What `explain` observes of a run; `convert` runs have none. */
export interface Observer {
	readonly errors: ConvertToLlmError[];
	/** A converter decided on input `index`; its last `count` outputs are what it became. */
	decided(index: number, plugin: string, count: number): void;
	excluded(index: number, plugin: string): void;
	tapped(hook: string, plugin: string, before: readonly Message[], after: readonly Message[]): void;
}

/** How a run is set up by the pipeline. */
export interface RunOptions {
	readonly strict: boolean;
	readonly isolate: boolean;
	readonly trackSources: boolean;
	/** Role → the name of the plugin that excludes it (see `Registry.exclude`). */
	readonly exclusions: ReadonlyMap<string, string>;
	/** Emits a report when nobody else takes it (lenient: `hooks.error`), or `undefined` when nobody listens. */
	readonly emit: ((error: ConvertToLlmError) => void) | undefined;
	readonly observer: Observer | undefined;
	/** `registry.run`: every problem is collected here (whatever `strict` says), none thrown or emitted. */
	readonly problems?: ConvertToLlmError[] | undefined;
}

export class Run {
	readonly strict: boolean;
	readonly isolate: boolean;
	/** Whether outputs are traced to their inputs (`trackSources()` or `explain`). */
	readonly tracking: boolean;
	/** Whether a report is seen by anyone; when not, no error object is built. */
	readonly listening: boolean;
	readonly observer: Observer | undefined;
	readonly view: ConvertContext;
	/** The message converters are being asked about (what `view.index` says). */
	index = 0;
	/** The name of the converter whose result the last dispatch returned. */
	decidedBy = "";
	private readonly exclusions: ReadonlyMap<string, string>;
	private readonly emit: ((error: ConvertToLlmError) => void) | undefined;
	private readonly problems: ConvertToLlmError[] | undefined;
	private reportedAt = -1;
	private thrown: unknown;
	private masked: readonly unknown[] | undefined;
	private hookView: HookView | undefined;
	private copier: Copier | undefined;
	/** Under `isolate`: the loop's output as it was before the taps (every entry a copy the run made). */
	private copied: readonly Message[] = [];
	private readonly keys: { list?: string[] } = {};
	private readonly sources = new Sources();

	constructor(
		readonly input: readonly unknown[],
		options: RunOptions,
	) {
		this.strict = options.strict;
		this.isolate = options.isolate;
		this.observer = options.observer;
		this.exclusions = options.exclusions;
		this.emit = options.emit;
		this.problems = options.problems;
		this.tracking = options.trackSources || options.observer !== undefined;
		this.listening =
			options.strict ||
			options.emit !== undefined ||
			options.observer !== undefined ||
			options.problems !== undefined;
		this.view = new ConverterView(this);
	}

	/** The one way a problem leaves a run: collected (`explain`, `run`), thrown (strict) or emitted (lenient). */
	report(error: ConvertToLlmError): void {
		if (this.observer !== undefined) this.observer.errors.push(error);
		else if (this.problems !== undefined) this.problems.push(error);
		else if (this.strict) {
			this.thrown = error;
			throw error;
		} else this.emit?.(error);
	}

	/** Reports a problem of input message `index`: at most one per message, whatever else fails on it. */
	reportAt(index: number, error: ConvertToLlmError): void {
		if (index === this.reportedAt) return;
		this.reportedAt = index;
		this.report(error);
	}

	/** The views plugins get: a tap's context, made when the first tap asks. */
	hookContext(): HookContext {
		this.hookView ??= new HookView(this);
		return this.hookView;
	}

	/** The input with every excluded message replaced by `undefined` (the input itself when none is). */
	maskedInput(): readonly unknown[] {
		if (this.masked !== undefined) return this.masked;
		let masked: unknown[] | undefined;
		const input = this.input;
		if (this.exclusions.size > 0) {
			for (let i = 0; i < input.length; i++) {
				if (input[i] === undefined && isHole(input, i)) {
					i = nextPresent(input, i, this.keys) - 1;
					continue;
				}
				if (!this.isExcluded(input[i])) continue;
				masked ??= input.slice();
				masked[i] = undefined;
			}
		}
		this.masked = masked ?? input;
		return this.masked;
	}

	private isExcluded(message: unknown): boolean {
		try {
			return isRecord(message) && this.exclusions.has(message.role as string) && Boolean(message.excludeFromContext);
		} catch {
			return true; // Hidden, since it cannot be read: it is dropped and reported by the conversion.
		}
	}

	/** An entry that is not a message (or the first of a run of holes); returns the index to go on after. */
	invalid(input: readonly unknown[], index: number, message: unknown): number {
		if (message === undefined && isHole(input, index)) {
			const next = nextPresent(input, index, this.keys);
			if (this.listening) this.reportAt(index, holes(index, next - 1));
			return next - 1;
		}
		if (this.listening) this.reportAt(index, invalidEntry(message, index));
		return index;
	}

	excluded(index: number, plugin: string): void {
		this.observer?.excluded(index, plugin);
	}

	/** No converter of the role took the message (`names`: those asked, in order). */
	unhandled(index: number, role: string, customType: string | undefined, names: readonly string[]): void {
		if (this.listening) this.reportAt(index, unhandled(role, customType, index, names));
	}

	/** Something no converter guard caught (a throwing `role` getter): the message is dropped. */
	failed(index: number, message: unknown, cause: unknown): void {
		// A strict report thrown from inside the loop goes on up, never reported twice.
		if (cause === this.thrown) throw cause;
		if (!this.listening) return;
		let role: unknown;
		try {
			role = isRecord(message) ? message.role : undefined;
		} catch {
			role = undefined;
		}
		this.reportAt(index, isInstance(cause, ConvertToLlmError) ? cause : messageFailed(index, role, cause));
	}

	/** Appends a converter's (checked) result; `null` and `[]` append nothing. */
	take(result: Message | readonly Message[] | null, index: number, out: Message[]): void {
		const from = out.length;
		if (result !== null) {
			if (Array.isArray(result)) {
				const list = result as readonly Message[];
				for (let j = 0; j < list.length; j++) this.push(list[j] as Message, index, out);
			} else this.push(result as Message, index, out);
		}
		if (this.tracking) this.record(index, from, out);
	}

	private push(message: Message, index: number, out: Message[]): void {
		if (!this.isolate) {
			out.push(message);
			return;
		}
		const copy = this.copyOf(message, (what, cause) =>
			this.reportAt(index, copyFailed(index, roleOf(message), this.decidedBy, what, cause)),
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
			const copy = this.copyOf(message, (what, cause) => this.report(adoptFailed(i, what, cause)));
			if (copy === undefined) continue;
			this.inheritSource(copy, message);
			adopted.push(copy);
		}
		return adopted ?? output;
	}

	private record(index: number, from: number, out: readonly Message[]): void {
		this.sources.record(index, this.decidedBy, from, out);
		this.observer?.decided(index, this.decidedBy, out.length - from);
	}

	sourceOf(message: Message): MessageSource | undefined {
		return this.tracking ? this.sources.of(message) : undefined;
	}

	inheritSource(message: Message, from: Message): void {
		if (this.tracking) this.sources.inherit(message, from);
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
