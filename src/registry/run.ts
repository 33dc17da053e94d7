/**
 * One conversion's run, wired from its parts: where problems go ({@link Reports}), the input as
 * plugins see it ({@link RunInput}), the output being built ({@link Collector}) and the taps'
 * context. The run is the loop's port: the loop calls it and nothing else.
 */
import type { Message } from "@earendil-works/pi-ai";
import { ConvertToLlmError } from "../errors.js";
import { isInstance, isRecord } from "../values.js";
import { Collector } from "./collector.js";
import type { ConvertContext } from "./converter-types.js";
import type { HookContext } from "./hook-types.js";
import type { LoopPort } from "./loop/index.js";
import { messageFailed, unhandled } from "./registry-errors.js";
import { type Observer, Reports } from "./reports.js";
import { RunInput } from "./run-input.js";
import { Sources } from "./sources.js";
import { ConverterView, HookView } from "./views.js";

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

export class Run implements LoopPort {
	readonly reports: Reports;
	readonly input: RunInput;
	readonly output: Collector;
	/** Where outputs came from, when tracked. */
	readonly sources: Sources | undefined;
	readonly view: ConvertContext;
	readonly listening: boolean;
	readonly starts: number[] | undefined;
	private index = 0;
	private hookView: HookView | undefined;

	constructor(input: readonly unknown[], options: RunOptions) {
		this.reports = new Reports(options);
		this.input = new RunInput(input, options.exclusions, this.reports);
		const tracking = options.trackSources || options.observer !== undefined;
		this.sources = tracking ? new Sources() : undefined;
		this.starts = this.sources?.starts;
		this.output = new Collector(options.isolate, this.reports, this.sources);
		this.listening = this.reports.listening;
		const runInput = this.input;
		this.view = new ConverterView(
			() => this.index,
			() => runInput.maskedInput(),
			options.strict,
		);
	}

	/** The context taps get, made when the first tap asks. */
	hookContext(): HookContext {
		this.hookView ??= new HookView(this.reports, this.input, this.output);
		return this.hookView;
	}

	at(index: number): void {
		this.index = index;
	}

	invalid(input: readonly unknown[], index: number, message: unknown): number {
		return this.input.invalid(input, index, message);
	}

	unhandled(index: number, role: string, customType: string | undefined, names: readonly string[]): void {
		if (this.listening) this.reports.reportAt(index, unhandled(role, customType, index, names));
	}

	failed(index: number, message: unknown, cause: unknown): void {
		// A strict report thrown from inside the loop goes on up, never reported twice.
		if (this.reports.threw(cause)) throw cause;
		if (!this.listening) return;
		let role: unknown;
		try {
			role = isRecord(message) ? message.role : undefined;
		} catch {
			role = undefined;
		}
		this.reports.reportAt(index, isInstance(cause, ConvertToLlmError) ? cause : messageFailed(index, role, cause));
	}

	excluded(index: number, plugin: string): void {
		this.reports.observer?.excluded(index, plugin);
	}

	reportAt(index: number, error: ConvertToLlmError): void {
		this.reports.reportAt(index, error);
	}

	take(result: Message | readonly Message[] | null, index: number, plugin: string, out: Message[]): void {
		this.output.take(result, index, plugin, out);
	}
}

export type { Observer } from "./reports.js";
