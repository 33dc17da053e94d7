/**
 * What a `redactSecrets` plugin knows of the texts it has scanned: the secrets found in each, by
 * the text itself, so that a history converted again (pi converts the whole history on every turn)
 * has only its new texts scanned, and a text is redacted the same way whenever it is met.
 */
import type { Message } from "@earendil-works/pi-ai";
import { INVISIBLE, type MappedText, MappedTextBuilder } from "./mapped-text.js";
import { stringWalker } from "./message-strings.js";
import { type ProviderText, providerTexts } from "./provider-texts.js";
import type { TextFinding } from "./scan-batch.js";

/** No secret: what most texts hold. */
export const NONE: readonly TextFinding[] = Object.freeze([]);
/** How many scanned texts are remembered: a survey that finds more clears the memory first. */
const LIMIT = 100_000;

/** The texts of one message that hold secrets, or have not been scanned yet. */
export interface MessageTexts {
	/** The message's index in {@link Survey.readable}. */
	readonly index: number;
	/** Its own strings that hold secrets (or are not scanned yet). */
	readonly strings: string[];
	/** Its composed texts (joined blocks, JSON arguments) that do. */
	readonly composed: ProviderText[];
}

/** What one pass over the output found. */
export interface Survey {
	/** `messages`, or a copy without the messages that could not be read. */
	readonly readable: Message[];
	/** The messages left out, each with the index it had and why it could not be read. */
	readonly unreadable: readonly { readonly index: number; readonly cause: unknown }[];
	/** The messages that hold secrets or texts not scanned yet, in order. */
	readonly texts: readonly MessageTexts[];
	/** The texts to scan, once each. */
	readonly missing: Set<string>;
	/** For each text to scan that holds invisible characters, its form without them (scanned too). */
	readonly visible: ReadonlyMap<string, MappedText>;
}

/**
 * A plugin's memory of what it scanned.
 *
 * Contract: {@link survey} visits every string `eachString` visits in every message and every text
 * `providerTexts` composes of it, and asks the memory for each; a text it does not know is
 * `missing`, and so is, for one that holds invisible characters, the same text without them.
 * {@link findingsOf} a text, once learnt, holds also what its form without invisible characters
 * holds, in the text's own positions. Nothing is assumed of a message's identity: a message changed
 * in place is surveyed by what it holds now.
 */
export class ScanMemory {
	private readonly scanned = new Map<string, readonly TextFinding[]>();

	/** The findings of a text it has learnt ({@link NONE} for one it has not). */
	findingsOf(text: string): readonly TextFinding[] {
		return this.scanned.get(text) ?? NONE;
	}

	/** One pass over `messages`; a message that cannot be read is left out and listed in `unreadable`. */
	survey(messages: readonly Message[]): Survey {
		const { scanned } = this;
		if (scanned.size > LIMIT) scanned.clear();
		const missing = new Set<string>();
		const visible = new Map<string, MappedText>();
		const texts: MessageTexts[] = [];
		const strings: string[] = [];
		/** A text not known to hold no secret: to scan if the memory does not know it. */
		const unknown = (text: string, known: readonly TextFinding[] | undefined): void => {
			if (known !== undefined || missing.has(text)) return;
			missing.add(text);
			if (!INVISIBLE.test(text)) return;
			const view = new MappedTextBuilder().source(text).build().withoutInvisible();
			if (view === undefined) return;
			visible.set(text, view);
			if (!scanned.has(view.text)) missing.add(view.text);
		};
		/** Asks the memory for `text`; `false` when it is known to hold no secret. */
		const ask = (text: string): boolean => {
			const known = scanned.get(text);
			if (known === NONE) return false;
			unknown(text, known);
			return true;
		};
		const visit = (value: string): void => {
			const known = scanned.get(value);
			if (known === NONE) return;
			strings.push(value);
			unknown(value, known);
		};
		const eachString = stringWalker(visit);
		let readable: Message[] | undefined;
		const unreadable: { index: number; cause: unknown }[] = [];
		for (let i = 0; i < messages.length; i++) {
			const message = messages[i] as Message;
			strings.length = 0;
			let composed: ProviderText[];
			try {
				eachString(message);
				composed = providerTexts(message);
				if (composed.length > 0) composed = composed.filter((text) => ask(text.text));
			} catch (cause) {
				// Its unscanned texts may still be scanned, harmlessly; it is not sent.
				readable ??= messages.slice(0, i);
				unreadable.push({ index: i, cause });
				continue;
			}
			const index = readable === undefined ? i : readable.length;
			readable?.push(message);
			if (strings.length > 0 || composed.length > 0) texts.push({ index, strings: strings.slice(), composed });
		}
		return { readable: readable ?? (messages as Message[]), unreadable, texts, missing, visible };
	}

	/**
	 * Takes in what the scan of `survey.missing` found (`fresh`: the findings of each text that holds
	 * some): a text with invisible characters gets, besides its own, the findings of its form
	 * without them, each spanning the invisible characters inside it.
	 */
	learn(survey: Survey, fresh: ReadonlyMap<string, readonly TextFinding[]>): void {
		const { scanned } = this;
		for (const text of survey.missing) {
			const list = fresh.get(text);
			scanned.set(text, list === undefined || list.length === 0 ? NONE : list);
		}
		for (const [value, view] of survey.visible) {
			const viewFindings = fresh.get(view.text);
			if (viewFindings === undefined || viewFindings.length === 0) continue;
			const all: TextFinding[] = [...(fresh.get(value) ?? [])];
			for (const [start, end, kind] of viewFindings) {
				const pieces = view.pieces(start, end);
				const first = pieces[0];
				const last = pieces[pieces.length - 1];
				if (first !== undefined && last !== undefined) all.push([first.start, last.end, kind]);
			}
			scanned.set(value, all);
		}
	}
}
