/**
 * What a `redactSecrets` plugin knows of the strings it has seen: the secrets found in each string it
 * scanned, and the strings of its last conversion in walk order, so that a history converted again
 * (pi converts the whole history on every turn) is surveyed by comparing strings, not looking them up.
 */
import type { Message } from "@earendil-works/pi-ai";
import { stringWalker } from "./message-strings.js";

/** A secret value found in a string, and the rule that found it. */
export type Found = readonly [value: string, ruleId: string];
/** No secret: what most strings hold. */
export const NONE: readonly Found[] = Object.freeze([]);
/** How many scanned strings are remembered; the memory is cleared when it would hold more. */
const LIMIT = 100_000;

/** One conversion's strings in walk order, and the secrets at the positions that hold some. */
interface Walk {
	readonly strings: string[];
	readonly found: Map<number, readonly Found[]>;
}

/** What one pass over the output found. */
export interface Survey {
	/** `messages`, or a copy without the messages that could not be read. */
	readonly readable: Message[];
	/** The messages left out, each with the index it had and why it could not be read. */
	readonly unreadable: readonly { readonly index: number; readonly cause: unknown }[];
	/** The secrets known to be in the strings that hold some, in walk order; a string not scanned yet stands for its own. */
	readonly found: (readonly Found[] | string)[];
	/** The strings not scanned yet, once each. */
	readonly missing: Set<string>;
	/** This pass's walk, for the next one: see {@link ScanMemory.learn}. */
	readonly walk: Walk;
	/** The positions in `walk` of the strings not scanned yet. */
	readonly pending: number[];
}

/**
 * A plugin's memory of what it scanned.
 *
 * Contract: {@link survey} visits every string `eachString` visits in every message, and for each
 * either finds it at the same position of the last conversion (`===`: the same text, so the same
 * secrets) or asks the scanned strings; a string in neither is `missing`. Nothing is assumed of a
 * message's identity: a message changed in place is surveyed by what it holds now.
 */
export class ScanMemory {
	private readonly scanned = new Map<string, readonly Found[]>();
	private last: Walk = { strings: [], found: new Map() };

	/** One pass over `messages`; a message that cannot be read is left out and listed in `unreadable`. */
	survey(messages: readonly Message[]): Survey {
		const { scanned, last } = this;
		const found: (readonly Found[] | string)[] = [];
		const missing = new Set<string>();
		const walk: Walk = { strings: [], found: new Map() };
		const pending: number[] = [];
		const strings = walk.strings;
		const lastStrings = last.strings;
		// Most histories hold no secret: then no position needs a look-up.
		const lastFound = last.found.size === 0 ? undefined : last.found;
		const visit = (value: string): void => {
			const at = strings.length;
			strings.push(value);
			let known: readonly Found[] | undefined;
			if (lastStrings[at] === value) known = lastFound === undefined ? NONE : (lastFound.get(at) ?? NONE);
			else known = scanned.get(value);
			if (known === undefined) {
				missing.add(value);
				found.push(value);
				pending.push(at);
			} else if (known !== NONE) {
				found.push(known);
				walk.found.set(at, known);
			}
		};
		const eachString = stringWalker(visit);
		let readable: Message[] | undefined;
		const unreadable: { index: number; cause: unknown }[] = [];
		for (let i = 0; i < messages.length; i++) {
			const message = messages[i] as Message;
			const before = { strings: strings.length, found: found.length, pending: pending.length };
			try {
				eachString(message);
				readable?.push(message);
			} catch (cause) {
				// What was found in it goes too; its unscanned strings may be scanned, harmlessly.
				for (let at = before.strings; at < strings.length; at++) walk.found.delete(at);
				strings.length = before.strings;
				found.length = before.found;
				pending.length = before.pending;
				readable ??= messages.slice(0, i);
				unreadable.push({ index: i, cause });
			}
		}
		return { readable: readable ?? (messages as Message[]), unreadable, found, missing, walk, pending };
	}

	/**
	 * Takes in what the scan of `survey.missing` found (`fresh`: the secrets of each string that holds
	 * some), resolves the survey's placeholders, and keeps its walk for the next conversion.
	 */
	learn(survey: Survey, fresh: ReadonlyMap<string, readonly Found[]>): void {
		const { scanned } = this;
		if (scanned.size + survey.missing.size > LIMIT) scanned.clear();
		for (const value of survey.missing) scanned.set(value, fresh.get(value) ?? NONE);
		const { found, walk, pending } = survey;
		for (let i = 0; i < found.length; i++) {
			const entry = found[i];
			if (typeof entry === "string") found[i] = fresh.get(entry) ?? NONE;
		}
		for (const at of pending) {
			const list = fresh.get(walk.strings[at] as string);
			if (list !== undefined && list.length > 0) walk.found.set(at, list);
		}
		this.last = walk;
	}
}
