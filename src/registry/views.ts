/**
 * The two read-only views a conversion hands to plugins: converters get a frozen `ConvertContext`,
 * taps a frozen `HookContext` whose reports only this module (and the guard, through `runOf`) can reach.
 */
import type { Message } from "@earendil-works/pi-ai";
import type { ConvertToLlmError } from "../errors.js";
import { isRecord } from "../values.js";
import type { Collector } from "./collector.js";
import type { ConvertContext } from "./converter-types.js";
import type { HookContext, MessageSource } from "./hook-types.js";
import type { Reports } from "./reports.js";
import type { RunInput } from "./run-input.js";

/** What converters are told: read-only, so no converter can change what the next one or the registry sees. */
export class ConverterView implements ConvertContext {
	readonly #index: () => number;
	readonly #messages: () => readonly unknown[];
	readonly #strict: boolean;
	constructor(index: () => number, messages: () => readonly unknown[], strict: boolean) {
		this.#index = index;
		this.#messages = messages;
		this.#strict = strict;
		Object.freeze(this);
	}
	get index(): number {
		return this.#index();
	}
	get messages(): readonly unknown[] {
		return this.#messages();
	}
	get strict(): boolean {
		return this.#strict;
	}
}
Object.freeze(ConverterView.prototype);

/** What taps are told. Its methods work unbound; the run's reports are reachable from this module only. */
export class HookView implements HookContext {
	readonly #reports: Reports;
	readonly #input: RunInput;
	readonly sourceOf: (message: Message) => MessageSource | undefined;
	readonly inheritSource: (message: Message, from: Message) => void;
	readonly report: (error: ConvertToLlmError) => void;
	constructor(reports: Reports, input: RunInput, output: Collector) {
		this.#reports = reports;
		this.#input = input;
		// Bound methods, not arrows closing over this constructor's scope: with the arrows, each
		// conversion's output survived V8's young-generation collections until a full one (a tracked
		// conversion with one afterConvert tap: 1.7 ms, half of it GC, against 0.7 ms bound).
		this.sourceOf = output.sourceOf.bind(output);
		this.inheritSource = output.inheritSource.bind(output);
		this.report = (error) => reports.report(error);
		Object.freeze(this);
	}
	get input(): readonly unknown[] {
		return this.#input.maskedInput();
	}
	get strict(): boolean {
		return this.#reports.strict;
	}
	get listening(): boolean {
		return this.#reports.listening;
	}
	/** The reports behind a context a tap was called with, or `undefined` for one the registry did not make. */
	static runOf(ctx: unknown): Reports | undefined {
		return isRecord(ctx) && #reports in ctx ? (ctx as HookView).#reports : undefined;
	}
}
Object.freeze(HookView.prototype);
