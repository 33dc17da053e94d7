/**
 * The port of a conversion loop: exactly what the interpreted loop (`dispatch.ts`) and the generated
 * one (`compile.ts`) may call on their run, implemented once ({@link RunPort}). The generated
 * source names these members through {@link PORT}, whose type is checked against the interface, so
 * renaming a member fails the type check instead of the conversion.
 */
import type { Message } from "@mariozechner/pi-ai";
import { ConvertToLlmError } from "../errors.js";
import { isInstance, isRecord } from "../values.js";
import type { Collector } from "./collector.js";
import type { ConvertContext } from "./converter-types.js";
import { messageFailed, unhandled } from "./registry-errors.js";
import type { Reports } from "./reports.js";
import type { RunInput } from "./run-input.js";
import { ConverterView } from "./views.js";

/** What a conversion loop may call on its run, and nothing else. */
export interface LoopPort {
	/** The context converters are given (what `at` last set is its `index`). */
	readonly view: ConvertContext;
	/** Whether a report is seen by anyone; when not, no error object need be built. */
	readonly listening: boolean;
	/** Converters are about to be asked about input message `index`. */
	at(index: number): void;
	/** An entry that is not a message (or the first of a run of holes); returns the index to go on after. */
	invalid(input: readonly unknown[], index: number, message: unknown): number;
	/** No converter of the role took the message (`names`: those asked, in order). */
	unhandled(index: number, role: string, customType: string | undefined, names: readonly string[]): void;
	/** Something no converter guard caught (a throwing `role` getter): the message is dropped. */
	failed(index: number, message: unknown, cause: unknown): void;
	/** The message was excluded from context by `plugin` (see `Registry.exclude`). */
	excluded(index: number, plugin: string): void;
	/** Reports a problem of input message `index` (at most one per message). */
	reportAt(index: number, error: ConvertToLlmError): void;
	/** Appends converter `plugin`'s checked result for input `index` to `out`. */
	take(result: Message | readonly Message[] | null, index: number, plugin: string, out: Message[]): void;
	/**
	 * What to append for a model message that needs no check (a pass-through, or a converter's single
	 * result): the message itself, or what the fused sanitizer makes of it; `null`: nothing.
	 * `role`: the message's role as the loop read it.
	 */
	keep(message: Message, role: string): Message | null;
}

/** Each member of `T` under its own name: a rename in `T` fails where such an object is written. */
export type NamesOf<T> = { readonly [K in keyof T]-?: K };

/** The port's member names, as the generated source spells them. */
export const PORT = Object.freeze({
	view: "view",
	listening: "listening",
	at: "at",
	invalid: "invalid",
	unhandled: "unhandled",
	failed: "failed",
	excluded: "excluded",
	reportAt: "reportAt",
	take: "take",
	keep: "keep",
} as const satisfies NamesOf<LoopPort>);

/** The one implementation of {@link LoopPort}: the loop's calls, routed to the run's reports, input and output. */
export class RunPort implements LoopPort {
	readonly view: ConvertContext;
	readonly listening: boolean;
	private index = 0;

	constructor(
		private readonly reports: Reports,
		private readonly input: RunInput,
		private readonly output: Collector,
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

	keep(message: Message, role: string): Message | null {
		return this.output.keep(message, role);
	}
}
