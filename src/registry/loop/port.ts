/**
 * The port of the conversion loop: exactly what the loop may call on its run, and nothing else
 * (`Run` implements it). Problems go through it, appended outputs go through `take`.
 */
import type { Message } from "@earendil-works/pi-ai";
import type { ConvertToLlmError } from "../../errors.js";
import type { ConvertContext } from "../converter-types.js";

export interface LoopPort {
	/** The context converters are given (what `at` last set is its `index`). */
	readonly view: ConvertContext;
	/** Whether a report is seen by anyone; when not, no error object need be built. */
	readonly listening: boolean;
	/** Input index → the output position where its outputs begin, when sources are tracked. */
	readonly starts: number[] | undefined;
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
	/** Appends converter `plugin`'s checked result for input `index` to `out`; `null` and `[]` append nothing. */
	take(result: Message | readonly Message[] | null, index: number, plugin: string, out: Message[]): void;
}
