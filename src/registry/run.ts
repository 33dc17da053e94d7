/**
 * One conversion's run, wired from its parts: where problems go ({@link Reports}), the input as
 * plugins see it ({@link RunInput}), the output being built ({@link Collector}), the loop's port
 * ({@link RunPort}) and the taps' context. The pipeline holds the run; the loop sees only the port.
 */
import type { ConvertToLlmError } from "../errors.js";
import { Collector, FusedSanitizer } from "./collector.js";
import type { HookContext, Sanitizer } from "./hook-types.js";
import { RunPort } from "./port.js";
import { type Observer, Reports } from "./reports.js";
import { RunInput } from "./run-input.js";
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
	/** `registry.run`: every problem is collected here (whatever `strict` says), none thrown or emitted. */
	readonly problems?: ConvertToLlmError[] | undefined;
}

export class Run {
	readonly reports: Reports;
	readonly input: RunInput;
	readonly output: Collector;
	readonly port: RunPort;
	/** Where outputs came from, when tracked: the loop's third argument. */
	readonly sources: Sources | undefined;
	private hookView: HookView | undefined;

	constructor(input: readonly unknown[], options: RunOptions) {
		this.reports = new Reports(options);
		this.input = new RunInput(input, options.exclusions, this.reports);
		const tracking = options.trackSources || options.observer !== undefined;
		this.sources = tracking ? new Sources(lengthOf(input)) : undefined;
		this.output = new Collector(options.isolate, this.reports, this.sources);
		this.port = new RunPort(this.reports, this.input, this.output);
	}

	/**
	 * Fuses `sanitizer` into this run's loop: prepared now, with a context whose reports are set
	 * aside until the sanitizer's tap would have made them; `checks`: it is the only tap, so the loop
	 * makes the final check of the output too. Returns whether the loop must apply it.
	 */
	fuse(sanitizer: Sanitizer, checks: boolean): boolean {
		const { reports, input, output } = this;
		const fused = new FusedSanitizer(sanitizer, checks, reports);
		try {
			fused.sanitize = sanitizer.prepare(new HookView(reports, input, output, (error) => fused.report(error)));
		} catch {
			// Not fused: its tap runs as any other, and reports the failure as a faulty tap.
			return false;
		}
		output.fused = fused;
		return fused.sanitize !== undefined;
	}

	/** The context taps get, made when the first tap asks. */
	hookContext(): HookContext {
		this.hookView ??= new HookView(this.reports, this.input, this.output);
		return this.hookView;
	}
}

/** The input's length for sizing records; 0 when it cannot be read (the loop then reports what it finds). */
function lengthOf(input: readonly unknown[]): number {
	try {
		const length = input.length;
		return typeof length === "number" ? length : 0;
	} catch {
		return 0;
	}
}

export type { Observer } from "./reports.js";
