/**
 * Which characters of a history a terminal must not receive as they are, and how they are shown:
 * controls (C0, DEL, C1) replaced, and the characters that print as nothing (Unicode's
 * Default_Ignorable_Code_Point and general category Cf, with the line and paragraph separators)
 * marked, a long run of them with one marker and a count. The set comes from Unicode's properties as
 * V8 ships them, never from a hand-written list: 4,206 code points (Unicode 15–16), among them the
 * bidi controls, zero-width characters, variation selectors, Hangul fillers and tag characters.
 *
 * Each scan is one pass of a regular expression made of one character class and its repetition, so
 * it cannot backtrack: linear in the text.
 */

/** A run of characters that print as nothing, or one control character (Cc: C0, DEL, C1). */
const SHOWN = /[\p{Default_Ignorable_Code_Point}\p{Cf}\u2028\u2029]+|\p{Cc}/gu;
/** For JSON text: a run as above, or one DEL or C1 control (`JSON.stringify` escapes C0 itself). */
const ESCAPED = /[\p{Default_Ignorable_Code_Point}\p{Cf}\u2028\u2029]+|[\u007f-\u009f]/gu;
/** A character that can start an emoji presentation or sequence (digits and `#*` for keycaps too). */
const EMOJI = /^\p{Emoji}$/u;
/** A character that can follow a zero-width joiner in an emoji ZWJ sequence. */
const PICTOGRAPHIC = /^\p{Extended_Pictographic}$/u;

/** Runs longer than this are shown as one marker with a count. */
const MARKED_ONE_BY_ONE = 3;

/**
 * `text` with its controls replaced (`␛` for ESC, two spaces for a tab, `�` for the rest) and each
 * run of invisible characters marked (`⟨U+202E⟩`, `⟨U+FE0F ×12⟩`, `⟨U+E0168…U+E0165 ×40⟩`), except
 * the joiners and selectors that make an emoji what it shows (see {@link isEmojiGlue}).
 */
export function showInvisible(text: string): string {
	return text.replace(SHOWN, (run: string, at: number) => {
		if (run.length === 1) {
			const code = run.charCodeAt(0);
			if (code === 0x09) return "  ";
			if (code === 0x1b) return "␛";
			if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) return "�";
		}
		return isEmojiGlue(text, run, at) ? run : marker(run);
	});
}

/**
 * JSON text with DEL, C1 controls and invisible characters written as `\uXXXX` escapes (emoji glue
 * kept), so that it still parses to the same value.
 */
export function escapeInvisible(json: string): string {
	return json.replace(ESCAPED, (run: string, at: number) => {
		if (isEmojiGlue(json, run, at)) return run;
		let escaped = "";
		for (let i = 0; i < run.length; i++) escaped += `\\u${run.charCodeAt(i).toString(16).padStart(4, "0")}`;
		return escaped;
	});
}

/**
 * Whether the invisible `run` at `at` is part of an emoji as it is drawn: one presentation selector
 * (U+FE0E, U+FE0F) after a character that can be an emoji (`❤️`, `1️⃣`), or a zero-width joiner
 * (after such a selector or not) between two pictographs (`👩‍💻`, `❤️‍🔥`). Anything longer is
 * not: a payload hidden in variation selectors after an emoji is marked.
 */
function isEmojiGlue(text: string, run: string, at: number): boolean {
	if (run.length > 2) return false;
	const first = run.charCodeAt(0);
	const selector = first === 0xfe0f || first === 0xfe0e;
	const joiner = run.length === 1 ? first === 0x200d : first === 0xfe0f && run.charCodeAt(1) === 0x200d;
	if (!joiner && !(selector && run.length === 1)) return false;
	const before = codePointBefore(text, at);
	if (before === undefined || !EMOJI.test(before)) return false;
	if (!joiner) return true;
	const after = text.codePointAt(at + run.length);
	return after !== undefined && PICTOGRAPHIC.test(String.fromCodePoint(after));
}

function codePointBefore(text: string, at: number): string | undefined {
	if (at === 0) return undefined;
	const low = text.charCodeAt(at - 1);
	const pair = low >= 0xdc00 && low <= 0xdfff && at >= 2;
	return pair ? String.fromCodePoint(text.codePointAt(at - 2) as number) : text[at - 1];
}

/** `⟨U+200B⟩⟨U+200C⟩` for a short run; `⟨U+FE0F ×12⟩` or `⟨U+E0168…U+E0165 ×40⟩` for a long one. */
function marker(run: string): string {
	const codes: number[] = [];
	for (let i = 0; i < run.length; i++) {
		const code = run.codePointAt(i) as number;
		codes.push(code);
		if (code > 0xffff) i++;
		if (codes.length > MARKED_ONE_BY_ONE) break;
	}
	if (codes.length <= MARKED_ONE_BY_ONE) return codes.map((code) => `⟨U+${hex(code)}⟩`).join("");
	let count = 0;
	let same = true;
	let last = codes[0] as number;
	for (let i = 0; i < run.length; i++) {
		const code = run.codePointAt(i) as number;
		if (code > 0xffff) i++;
		if (code !== codes[0]) same = false;
		last = code;
		count++;
	}
	const which = same ? `U+${hex(last)}` : `U+${hex(codes[0] as number)}…U+${hex(last)}`;
	return `⟨${which} ×${count.toLocaleString("en-US")}⟩`;
}

const hex = (code: number): string => code.toString(16).toUpperCase().padStart(4, "0");
