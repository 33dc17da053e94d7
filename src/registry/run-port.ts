/**
 * The loop's port on one run ({@link LoopPort}): each call the loop makes, routed to the run's
 * reports, input and output. The run wires the parts; this is the one way the loop reaches them.
 */
import type { Message } from "@earendil-works/pi-ai";
import { ConvertToLlmError } from "../errors.js";
import { isInstance, isRecord } from "../values.js";
import type { Collector } from "./collector.js";
import type { ConvertContext } from "./converter-types.js";
import type { LoopPort } from "./loop/index.js";
import { messageFailed, unhandled } from "./registry-errors.js";
import type { Reports } from "./reports.js";
import type { RunInput } from "./run-input.js";
import { ConverterView } from "./views.js";

export class RunPort implements LoopPort {
	readonly view: ConvertContext;
	readonly listening: boolean;
	private index = 0;

	constructor(
		private readonly reports: Reports,
		private readonly input: RunInput,
		private readonly output: Collector,
		readonly starts: number[] | undefined,
	) {
		this.listening = reports.listening;
		this.view = new ConverterView(
			() => this.index,
			() => input.maskedInput(),
			reports.strict,
		);
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
