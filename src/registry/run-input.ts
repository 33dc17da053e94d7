/**
 * One conversion's input as plugins and the loop see it: excluded messages masked (what the model
 * must not see is not handed to plugins either), and entries that are not messages reported, a run
 * of holes as one.
 */
import { isRecord } from "../values.js";
import { holes, invalidEntry } from "./registry-errors.js";
import type { Reports } from "./reports.js";
import { isHole, nextPresent } from "./sparse.js";

export class RunInput {
	private masked: readonly unknown[] | undefined;
	private readonly keys: { list?: string[] } = {};

	constructor(
		/** The history being converted (after `beforeConvert`). */
		readonly entries: readonly unknown[],
		/** Role → the name of the plugin that excludes it (see `Registry.exclude`). */
		private readonly exclusions: ReadonlyMap<string, string>,
		private readonly reports: Reports,
	) {}

	/** The input with every excluded message replaced by `undefined` (the input itself when none is). */
	maskedInput(): readonly unknown[] {
		if (this.masked !== undefined) return this.masked;
		let masked: unknown[] | undefined;
		const input = this.entries;
		if (this.exclusions.size > 0) {
			for (let i = 0; i < input.length; i++) {
				if (input[i] === undefined && isHole(input, i)) {
					i = nextPresent(input, i, this.keys) - 1;
					continue;
				}
				if (!this.isExcluded(input[i])) continue;
				masked ??= input.slice();
				masked[i] = undefined;
			}
		}
		this.masked = masked ?? input;
		return this.masked;
	}

	/** An entry of `input` that is not a message (or the first of a run of holes); returns the index to go on after. */
	invalid(input: readonly unknown[], index: number, message: unknown): number {
		const { reports } = this;
		if (message === undefined && isHole(input, index)) {
			const next = nextPresent(input, index, this.keys);
			if (reports.listening) reports.reportAt(index, holes(index, next - 1));
			return next - 1;
		}
		if (reports.listening) reports.reportAt(index, invalidEntry(message, index));
		return index;
	}

	private isExcluded(message: unknown): boolean {
		try {
			return isRecord(message) && this.exclusions.has(message.role as string) && Boolean(message.excludeFromContext);
		} catch {
			return true; // Hidden, since it cannot be read: it is dropped and reported by the conversion.
		}
	}
}
