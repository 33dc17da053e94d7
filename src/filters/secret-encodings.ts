/**
 * Exact-value matching: known secret values found in a text as they are, JSON-escaped,
 * URL-encoded or base64-encoded, and with the invisible characters an attacker or a tool put inside
 * them taken out. Only those exact character sequences match, so nothing that is not an encoding of
 * a known value is ever replaced.
 */
import { LiteralMatcher } from "./literal-matcher.js";
import { INVISIBLE, MappedTextBuilder } from "./mapped-text.js";

/**
 * The shortest value matched wherever it occurs (UTF-16 units, after invisible characters are taken
 * out): a shorter one (a port, `true`, a 6-character password) is too likely to occur by chance in
 * ordinary text. Shorter secrets a rule finds are still replaced where the rule found them.
 */
export const MIN_EXACT_LENGTH = 8;

/** The shortest encoded form looked for: a shorter base64 core is left out. */
const MIN_ENCODED_LENGTH = 8;

const INVISIBLE_ALL = /[\p{Default_Ignorable_Code_Point}\p{Cf}\p{Cs}]/gu;

/** `value` without its {@link INVISIBLE} characters: the form a secret is known and numbered by. */
export function normalizeSecret(value: string): string {
	return INVISIBLE.test(value) ? value.replace(INVISIBLE_ALL, "") : value;
}

/**
 * The forms `value` is looked for in: itself; its JSON string body (a value with `"`, `\` or a
 * control character); `encodeURIComponent` with upper- and lower-case hex; and base64 (standard and
 * URL-safe alphabets) at each of the three byte alignments it can have inside a longer encoded text,
 * each as the characters that depend on the value's bytes alone (the first and last character of an
 * encoded group that holds a neighbour's bits are left out). Forms shorter than 8 characters are
 * left out.
 *
 * @example
 * encodingsOf("hunter2hunter2").includes(btoa("hunter2hunter2").slice(0, 18)); // true: the encoding of its 14 bytes
 */
export function encodingsOf(value: string): string[] {
	const forms = new Set<string>([value]);
	forms.add(JSON.stringify(value).slice(1, -1));
	let uri: string | undefined;
	try {
		uri = encodeURIComponent(value);
	} catch {
		// A lone surrogate: it cannot be URL-encoded, so it is never sent so.
	}
	if (uri !== undefined) {
		forms.add(uri);
		forms.add(uri.replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase()));
	}
	const bytes = new TextEncoder().encode(value);
	let binary = "";
	for (let i = 0; i < bytes.length; i++) binary += String.fromCharCode(bytes[i] as number);
	for (let align = 0; align < 3; align++) {
		const encoded = btoa("\0".repeat(align) + binary);
		// Character j holds bits [6j, 6j + 6); the value's bits are [8·align, 8·(align + length)).
		const first = Math.ceil((8 * align) / 6);
		const end = Math.floor((8 * (align + bytes.length)) / 6);
		const core = encoded.slice(first, end);
		forms.add(core);
		forms.add(core.replace(/\+/g, "-").replace(/\//g, "_"));
	}
	return [...forms].filter((form) => form.length >= MIN_ENCODED_LENGTH);
}

/** An occurrence of a known value: `[start, end, value]` in the text searched. */
export type ValueOccurrence = [start: number, end: number, value: string];

/**
 * Finds known values in texts, in every form of {@link encodingsOf}, in one pass over a text.
 *
 * Contract: a text is searched as it is, or, when it holds {@link INVISIBLE} characters, with them
 * taken out (each occurrence then spans the invisible characters inside it too). Building costs the
 * total length of the forms; a search, the text's length plus the occurrences.
 *
 * @example
 * const matcher = new ExactMatcher(["hunter2hunter2"]);
 * matcher.occurrences("pw: hunter2\u200Bhunter2"); // [[4, 19, "hunter2hunter2"]]
 */
export class ExactMatcher {
	private readonly matcher: LiteralMatcher;
	private readonly owners: string[];

	constructor(values: Iterable<string>) {
		const forms: string[] = [];
		this.owners = [];
		for (const value of values) {
			if (value.length < MIN_EXACT_LENGTH) continue;
			for (const form of encodingsOf(value)) {
				forms.push(form);
				this.owners.push(value);
			}
		}
		this.matcher = new LiteralMatcher(forms);
	}

	/** Whether it matches nothing (no value is long enough). */
	get empty(): boolean {
		return this.owners.length === 0;
	}

	occurrences(text: string): ValueOccurrence[] {
		if (this.empty) return [];
		if (!INVISIBLE.test(text))
			return this.matcher.occurrences(text).map(([s, e, p]) => [s, e, this.owners[p] as string]);
		const visible = new MappedTextBuilder().source(text).build().withoutInvisible();
		if (visible === undefined) return [];
		const out: ValueOccurrence[] = [];
		for (const [s, e, p] of this.matcher.occurrences(visible.text)) {
			const pieces = visible.pieces(s, e);
			const first = pieces[0];
			const last = pieces[pieces.length - 1];
			if (first !== undefined && last !== undefined) out.push([first.start, last.end, this.owners[p] as string]);
		}
		return out;
	}
}
