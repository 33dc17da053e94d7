/**
 * One conversion's run, wired from its parts: where problems go ({@link Reports}), the input as
 * plugins see it ({@link RunInput}), the output being built ({@link Collector}), the loop's port
 * ({@link RunPort}) and the taps' context. The pipeline holds the run; the loop sees only the port.
 */
import type { ConvertToLlmError } from "../errors.js";
import { Collector } from "./collector.js";
import type { HookContext } from "./hook-types.js";
import { type Observer, Reports } from "./reports.js";
import { RunInput } from "./run-input.js";
import { RunPort } from "./run-port.js";
import { Sources } from "./sources.js";
import { HookView } from "./views.js";

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
	/** `run` and `explain`: every problem is collected here (whatever `strict` says), none thrown or emitted. */
	readonly problems?: ConvertToLlmError[] | undefined;
}

export class Run {
	readonly reports: Reports;
	readonly input: RunInput;
	readonly output: Collector;
	readonly port: RunPort;
	/** Where outputs came from, when tracked. */
	readonly sources: Sources | undefined;
	private hookView: HookView | undefined;

	constructor(input: readonly unknown[], options: RunOptions) {
		this.reports = new Reports(options);
		this.input = new RunInput(input, options.exclusions, this.reports);
		const tracking = options.trackSources || options.observer !== undefined;
		this.sources = tracking ? new Sources() : undefined;
		this.output = new Collector(options.isolate, this.reports, this.sources);
		this.port = new RunPort(this.reports, this.input, this.output, this.sources?.starts);
	}

	/** The context taps get, made when the first tap asks. */
	hookContext(): HookContext {
		this.hookView ??= new HookView(this.reports, this.input, this.output);
		return this.hookView;
	}
}

export type { Observer } from "./reports.js";
