/**
 * The two read-only views a conversion hands to plugins: converters get a frozen `ConvertContext`,
 * taps a frozen `HookContext` whose run only this module (and the guard, through `runOf`) can reach.
 */
import type { Message } from "@mariozechner/pi-ai";
import type { ConvertToLlmError } from "../errors.js";
import { isRecord } from "../values.js";
import type { ConvertContext } from "./converter-types.js";
import type { HookContext, MessageSource } from "./hook-types.js";

/** What the views read of their run (`Run` implements it). */
export interface ViewSource {
	readonly index: number;
	readonly strict: boolean;
	readonly listening: boolean;
	readonly observer:
		| { tapped(hook: string, plugin: string, before: readonly Message[], after: readonly Message[]): void }
		| undefined;
	maskedInput(): readonly unknown[];
	sourceOf(message: Message): MessageSource | undefined;
	inheritSource(message: Message, from: Message): void;
	report(error: ConvertToLlmError): void;
}

/** What converters are told: read-only, so no converter can change what the next one or the registry sees. */
export class ConverterView implements ConvertContext {
	readonly #run: ViewSource;
	constructor(run: ViewSource) {
		this.#run = run;
		Object.freeze(this);
	}
	get index(): number {
		return this.#run.index;
	}
	get messages(): readonly unknown[] {
		return this.#run.maskedInput();
	}
	get strict(): boolean {
		return this.#run.strict;
	}
}
Object.freeze(ConverterView.prototype);

/** What taps are told. Its methods work unbound; the run behind it is reachable from this module only. */
export class HookView implements HookContext {
	readonly #run: ViewSource;
	readonly sourceOf: (message: Message) => MessageSource | undefined;
	readonly inheritSource: (message: Message, from: Message) => void;
	readonly report: (error: ConvertToLlmError) => void;
	constructor(run: ViewSource) {
		this.#run = run;
		this.sourceOf = (message) => run.sourceOf(message);
		this.inheritSource = (message, from) => run.inheritSource(message, from);
		this.report = (error) => run.report(error);
		Object.freeze(this);
	}
	get input(): readonly unknown[] {
		return this.#run.maskedInput();
	}
	get strict(): boolean {
		return this.#run.strict;
	}
	get listening(): boolean {
		return this.#run.listening;
	}
	/** The run behind a context a tap was called with, or `undefined` for one the registry did not make. */
	static runOf(ctx: unknown): ViewSource | undefined {
		return isRecord(ctx) && #run in ctx ? (ctx as HookView).#run : undefined;
	}
}
Object.freeze(HookView.prototype);
