/**
 * Where one conversion's problems go: collected (`explain`, `run`), thrown (strict) or emitted on
 * `hooks.error` (lenient), at most one per input message.
 */
import type { Message } from "@earendil-works/pi-ai";
import type { ConvertToLlmError } from "../errors.js";

/** What `explain` and `run` observe of a conversion; `convert` runs have none. */
export interface Observer {
	/** A converter decided on input `index`; its last `count` outputs are what it became. */
	decided(index: number, plugin: string, count: number): void;
	excluded(index: number, plugin: string): void;
	/** The loop is done: `output` is what the converters made, before any tap. */
	converted(output: readonly Message[]): void;
	tapped(hook: string, plugin: string, before: readonly Message[], after: readonly Message[]): void;
}

/** How a run's reports are set up by the pipeline. */
export interface ReportOptions {
	readonly strict: boolean;
	/** Emits a report when nobody else takes it (lenient: `hooks.error`), or `undefined` when nobody listens. */
	readonly emit: ((error: ConvertToLlmError) => void) | undefined;
	readonly observer: Observer | undefined;
	/** `run` and `explain`: every problem is collected here (whatever `strict` says), none thrown or emitted. */
	readonly problems?: ConvertToLlmError[] | undefined;
}

export class Reports {
	readonly strict: boolean;
	/** Whether a report is seen by anyone; when not, no error object is built. */
	readonly listening: boolean;
	readonly observer: Observer | undefined;
	private readonly emit: ((error: ConvertToLlmError) => void) | undefined;
	private readonly problems: ConvertToLlmError[] | undefined;
	private reportedAt = -1;
	private thrown: unknown;

	constructor(options: ReportOptions) {
		this.strict = options.strict;
		this.observer = options.observer;
		this.emit = options.emit;
		this.problems = options.problems;
		this.listening =
			options.strict ||
			options.emit !== undefined ||
			options.observer !== undefined ||
			options.problems !== undefined;
	}

	/** The one way a problem leaves a run: collected (`explain`, `run`), thrown (strict) or emitted (lenient). */
	report(error: ConvertToLlmError): void {
		if (this.problems !== undefined) this.problems.push(error);
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

	/** Whether `cause` is a strict report this run threw: it goes on up, never reported twice. */
	threw(cause: unknown): boolean {
		return cause !== undefined && cause === this.thrown;
	}
}
