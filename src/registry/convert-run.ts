import type { Message } from "@mariozechner/pi-ai";
import type { ConvertToLlmError } from "../errors.js";
import type { DispatchRun } from "./dispatch.js";
import type { HookContext, MessageSource } from "./types.js";

/**
 * The context of one conversion, given to converters (`ConvertContext`) and to hook taps
 * (`HookContext`). One object per `convert` call with its `index` moved along the history, so a
 * conversion allocates nothing per message for it.
 */
export class ConvertRun implements DispatchRun, HookContext {
	index = 0;
	/** Index of the last message a converter failed on, so that the message is reported only once. */
	failedIndex = -1;
	/** The plugin of the converter that gave the last result. */
	plugin = "";
	/** Output message → where it came from; only when source tracking is on. */
	readonly sources: Map<Message, MessageSource> | undefined;
	/** Whether `record` is called: source tracking is on, or this is an `explain` run. */
	readonly tracking: boolean;

	constructor(
		readonly messages: readonly unknown[],
		readonly strict: boolean,
		/** Where problems go: `hooks.error` (lenient), a throw (strict), or a trace (`explain`). */
		readonly report: (error: ConvertToLlmError) => void,
		trackSources: boolean,
		/**
		 * Whether anyone will see a report (strict, `hooks.error` taps, `explain`). A lenient run that
		 * nobody listens to skips building error objects: a million `null` entries stay cheap.
		 */
		readonly listening: boolean,
	) {
		this.sources = trackSources ? new Map() : undefined;
		this.tracking = trackSources;
	}

	get input(): readonly unknown[] {
		return this.messages;
	}

	/**
	 * Called, while sources are tracked, after each message a converter decided on (converted or
	 * dropped with `null`): `outputs[from…]` are what it became.
	 */
	record(outputs: readonly Message[], from: number): void {
		const source: MessageSource = { index: this.index, plugin: this.plugin };
		for (let i = from; i < outputs.length; i++) this.sources?.set(outputs[i] as Message, source);
	}

	sourceOf(message: Message): MessageSource | undefined {
		return this.sources?.get(message);
	}

	inheritSource(message: Message, from: Message): void {
		const source = this.sources?.get(from);
		if (source !== undefined) this.sources?.set(message, source);
	}
}
