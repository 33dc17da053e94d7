/**
 * Where each output of one conversion came from (`ctx.sourceOf`): two arrays aligned with the
 * output while converting (two pushes per output), turned into a map when a tap first asks.
 */
import type { Message } from "@mariozechner/pi-ai";
import type { MessageSource } from "./hook-types.js";

export class Sources {
	private converted: readonly Message[] = [];
	private readonly index: number[] = [];
	private readonly plugin: string[] = [];
	private readonly inherited: Message[] = [];
	private map: Map<Message, MessageSource> | undefined;

	/** `out[from…]` came from input `index`, converted by `plugin`. */
	record(index: number, plugin: string, from: number, out: readonly Message[]): void {
		this.converted = out;
		for (let i = from; i < out.length; i++) {
			this.index.push(index);
			this.plugin.push(plugin);
		}
	}

	of(message: Message): MessageSource | undefined {
		if (this.map === undefined) {
			const map = new Map<Message, MessageSource>();
			const { converted, index, plugin, inherited } = this;
			for (let i = 0; i < converted.length; i++) {
				const output = converted[i] as Message;
				// The first occurrence wins when one object is output twice.
				if (!map.has(output)) map.set(output, { index: index[i] as number, plugin: plugin[i] as string });
			}
			for (let i = 0; i < inherited.length; i += 2) {
				const source = map.get(inherited[i + 1] as Message);
				if (source !== undefined) map.set(inherited[i] as Message, source);
			}
			this.map = map;
		}
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
}
