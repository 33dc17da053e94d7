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
	/** Whether `record` is called: source tracking is on, or this is an `explain` run. */
	readonly tracking: boolean;
	// Sources are recorded as two arrays aligned with the output (cheap), and turned into a map only
	// when a tap first asks `sourceOf`.
	private converted: readonly Message[] = [];
	private readonly sourceIndex: number[] = [];
	private readonly sourcePlugin: string[] = [];
	private readonly inherited: Message[] = [];
	private sources: Map<Message, MessageSource> | undefined;

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
		this.tracking = trackSources;
	}

	get input(): readonly unknown[] {
		return this.messages;
	}

	/**
	 * Called, while sources are tracked, after each message a converter decided on (converted or
	 * dropped with \`null\`): \`outputs[from…]\` are what it became.
	 */
	record(outputs: readonly Message[], from: number): void {
		this.converted = outputs;
		for (let i = from; i < outputs.length; i++) {
			this.sourceIndex.push(this.index);
			this.sourcePlugin.push(this.plugin);
		}
	}

	sourceOf(message: Message): MessageSource | undefined {
		if (!this.tracking) return undefined;
		if (this.sources === undefined) {
			const sources = new Map<Message, MessageSource>();
			const { converted, sourceIndex, sourcePlugin, inherited } = this;
			for (let i = 0; i < converted.length; i++) {
				const output = converted[i] as Message;
				// The first occurrence wins when one object is output twice.
				if (!sources.has(output))
					sources.set(output, { index: sourceIndex[i] as number, plugin: sourcePlugin[i] as string });
			}
			for (let i = 0; i < inherited.length; i += 2) {
				const source = sources.get(inherited[i + 1] as Message);
				if (source !== undefined) sources.set(inherited[i] as Message, source);
			}
			this.sources = sources;
		}
		return this.sources.get(message);
	}

	inheritSource(message: Message, from: Message): void {
		if (!this.tracking) return;
		if (this.sources === undefined) this.inherited.push(message, from);
		else {
			const source = this.sources.get(from);
			if (source !== undefined) this.sources.set(message, source);
		}
	}
}
