/**
 * Where each output of one conversion came from (`ctx.sourceOf`): recorded per input message as the
 * loop runs (where its outputs begin, which plugin decided), turned into a map when a tap first asks.
 */
import type { Message } from "@earendil-works/pi-ai";
import type { MessageSource } from "./hook-types.js";

/** Records longer than this many times the output (plus a little) are walked by their keys. */
const SPARSE = 4;

/**
 * The records of one conversion. The loop writes {@link starts} for each input it reads;
 * `Collector.take` writes {@link deciders} for each input a converter decided. Nothing is built per
 * output until {@link of} is first asked.
 */
export class Sources {
	/** Input index → the output position where its outputs begin (written before it is converted). */
	readonly starts: number[] = [];
	/** Input index → the plugin whose result was taken (also a `null` or `[]` result); unset for an input no converter decided. */
	readonly deciders: string[] = [];
	private converted: readonly Message[] = [];
	private readonly inherited: Message[] = [];
	private map: Map<Message, MessageSource> | undefined;

	/** The loop is done: `out` is its output, which the records describe. */
	done(out: readonly Message[]): void {
		this.converted = out;
	}

	of(message: Message): MessageSource | undefined {
		this.map ??= this.build();
		return this.map.get(message);
	}

	/** `message`, made by a tap, stands for `from`. */
	inherit(message: Message, from: Message): void {
		if (this.map === undefined) this.inherited.push(message, from);
		else {
			const source = this.map.get(from);
			if (source !== undefined) this.map.set(message, source);
		}
	}

	/**
	 * Output → source, the first occurrence winning when one object is output twice. Input `i`'s
	 * outputs run from its start to the next input's (inputs that appended nothing, holes the loop
	 * skipped, leave no gap), the last one's to the end of the output.
	 */
	private build(): Map<Message, MessageSource> {
		const map = new Map<Message, MessageSource>();
		const { converted, starts, deciders, inherited } = this;
		let pending = -1;
		const close = (end: number) => {
			const plugin = deciders[pending];
			if (plugin === undefined) return;
			const source: MessageSource = { index: pending, plugin };
			for (let p = starts[pending] as number; p < end; p++) {
				const output = converted[p] as Message;
				if (!map.has(output)) map.set(output, { ...source });
			}
		};
		const visit = (i: number) => {
			const start = starts[i];
			if (start === undefined) return;
			if (pending >= 0) close(start);
			pending = i;
		};
		// A sparse input leaves the records sparse: then only their entries are visited (array index
		// keys come in ascending order), so the cost follows the input's elements, not its length.
		if (starts.length > SPARSE * (converted.length + 1) + 1024)
			for (const key of Object.keys(starts)) visit(Number(key));
		else for (let i = 0; i < starts.length; i++) visit(i);
		if (pending >= 0) close(converted.length);
		for (let i = 0; i < inherited.length; i += 2) {
			const source = map.get(inherited[i + 1] as Message);
			if (source !== undefined) map.set(inherited[i] as Message, source);
		}
		return map;
	}
}
