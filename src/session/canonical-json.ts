/**
 * JSON text in the form `JSON.stringify(value)` writes, rendered as `JSON.stringify(value, null, 2)`
 * writes it, byte for byte, without building `value`: the CLI's `--json` output for the messages of
 * a long session (see verbatim.ts), which would otherwise each be parsed, held and serialized again.
 *
 * Only text that `JSON.stringify` itself could have written is rendered: no whitespace, strings
 * with exactly its escapes, numbers as `String(number)` gives them, keys neither repeated nor
 * starting with a digit (`JSON.parse` orders index keys first), at most {@link MAX_DEPTH} deep. For
 * such text, and only for it, `JSON.parse` then `JSON.stringify` give the text back, so rendering it
 * is the same as both. Any other text (valid JSON or not) is refused, and the caller parses it as
 * usual: a refusal costs time, never a difference.
 *
 * The bytes must be valid UTF-8 (the caller checks a whole line with `isUtf8`): bytes from 0x80 up
 * are copied as they are, where a decoder would have replaced a bad sequence with U+FFFD.
 */

/** How deep a value may nest: deeper text is refused (`JSON.stringify` runs out of stack far deeper). */
export const MAX_DEPTH = 100;

/** The most keys an object may have: each key is compared with the others. */
const MAX_KEYS = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const NEWLINE = 0x0a;
const SPACE = 0x20;
const MINUS = 0x2d;
const ZERO = 0x30;
const NINE = 0x39;

/** Refused: the text is not in `JSON.stringify`'s form (or not JSON). */
export const REFUSED = -1;
/** The output has no room for the rendered value: render it again into a larger one. */
export const NO_ROOM = -2;

/** Where a key's value lies, for the keys a caller asks about at the top level of an object. */
export interface FieldSpans {
	/** The keys to find, as their quoted text (`"role"`). */
	readonly keys: readonly Uint8Array[];
	/** For each key, the value's first byte and the byte after it; -1 when the key is absent. */
	starts: number[];
	ends: number[];
}

/**
 * Renders JSON values: `render(src, at, end, out, o, depth, spans)` renders the value of `src` that
 * starts at `at`, ending before `end` at the latest, into `out` from `o`, as
 * `JSON.stringify(value, null, 2)` writes it at nesting `depth` (an array's element: 1). `spans`,
 * when given, is filled with where each of its keys' values lies in `src`, at the top level of the
 * value (an object).
 *
 * Contract: `render` returns the offset in `src` just after the value, with {@link end} the offset
 * in `out` just after its text; {@link REFUSED} when the text is not in `JSON.stringify`'s form, or
 * {@link NO_ROOM} when `out` is too short (nothing it holds before `o` is changed).
 *
 * @example
 * const src = Buffer.from('{"role":"user","content":"hi"}');
 * const out = Buffer.alloc(64);
 * const renderer = new CanonicalRenderer();
 * renderer.render(src, 0, src.length, out, 0, 0) === src.length; // true
 * out.toString("utf8", 0, renderer.end) === JSON.stringify(JSON.parse(src.toString()), null, 2); // true
 */
export class CanonicalRenderer {
	/** The offset in `out` just after the text the last {@link render} wrote. */
	end = 0;
	// The open containers (1: an object, 0: an array), and each object's keys (offsets in `src`):
	// kept from one call to the next, as one renderer renders every message of a file.
	private readonly kinds = new Uint8Array(MAX_DEPTH + 2);
	private readonly keyBase = new Int32Array(MAX_DEPTH + 2);
	private readonly keyStarts: number[] = [];
	private readonly keyEnds: number[] = [];

	render(src: Buffer, at: number, end: number, out: Uint8Array, o: number, depth: number, spans?: FieldSpans): number {
		const { kinds, keyBase, keyStarts, keyEnds } = this;
		keyStarts.length = 0;
		keyEnds.length = 0;
		return this.run(src, at, end, out, o, depth, spans, kinds, keyBase, keyStarts, keyEnds);
	}

	private run(
		src: Buffer,
		at: number,
		end: number,
		out: Uint8Array,
		o: number,
		depth: number,
		spans: FieldSpans | undefined,
		kinds: Uint8Array,
		keyBase: Int32Array,
		keyStarts: number[],
		keyEnds: number[],
	): number {
		const base = depth;
		let d = depth;
		const room = out.length;
		let top = 0;
		let field = -1;
		let fieldAt = 0;
		if (spans !== undefined) {
			spans.starts.fill(-1);
			spans.ends.fill(-1);
		}
		for (;;) {
			// A value at `at`.
			if (at >= end) return REFUSED;
			const c = src[at] as number;
			if (c === QUOTE) {
				const close = stringEnd(src, at, end);
				if (close === REFUSED) return REFUSED;
				if (o + close - at > room) return NO_ROOM;
				o = copy(src, at, close, out, o);
				at = close;
			} else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
				const closing = c + 2;
				if (src[at + 1] === closing) {
					if (o + 2 > room) return NO_ROOM;
					out[o++] = c;
					out[o++] = closing;
					at += 2;
				} else {
					if (d - base >= MAX_DEPTH) return REFUSED;
					d++;
					top++;
					if (o + 2 + 2 * d > room) return NO_ROOM;
					out[o++] = c;
					o = newline(out, o, d);
					at++;
					if (c === OPEN_BRACKET) {
						kinds[top] = 0;
						continue;
					}
					kinds[top] = 1;
					keyBase[top] = keyStarts.length;
					// The object's first key, then its value.
					const next = key(src, at, end, keyStarts, keyEnds, keyBase[top] as number);
					if (next < 0) return REFUSED;
					if (top === 1 && spans !== undefined) field = fieldOf(src, at, next - 1, spans.keys);
					if (o + next - at + 1 > room) return NO_ROOM;
					o = copy(src, at, next - 1, out, o);
					out[o++] = COLON;
					out[o++] = SPACE;
					at = next;
					if (top === 1) fieldAt = at;
					continue;
				}
			} else {
				const close = scalarEnd(src, at, end);
				if (close === REFUSED) return REFUSED;
				if (o + close - at > room) return NO_ROOM;
				o = copy(src, at, close, out, o);
				at = close;
			}
			// After a value: end each container it completes, then the next element or key.
			for (;;) {
				if (field !== -1 && d - base === 1 && spans !== undefined) {
					spans.starts[field] = fieldAt;
					spans.ends[field] = at;
					field = -1;
				}
				if (d === base) {
					this.end = o;
					return at;
				}
				const c2 = src[at];
				const object = kinds[top] === 1;
				if (c2 === COMMA) {
					if (o + 2 + 2 * d > room) return NO_ROOM;
					out[o++] = COMMA;
					o = newline(out, o, d);
					at++;
					if (object) {
						const next = key(src, at, end, keyStarts, keyEnds, keyBase[top] as number);
						if (next < 0) return REFUSED;
						if (top === 1 && spans !== undefined) field = fieldOf(src, at, next - 1, spans.keys);
						if (o + next - at + 1 > room) return NO_ROOM;
						o = copy(src, at, next - 1, out, o);
						out[o++] = COLON;
						out[o++] = SPACE;
						at = next;
						if (top === 1) fieldAt = at;
					}
					break;
				}
				if (c2 !== (object ? CLOSE_BRACE : CLOSE_BRACKET)) return REFUSED;
				if (object) {
					keyStarts.length = keyBase[top] as number;
					keyEnds.length = keyBase[top] as number;
				}
				d--;
				top--;
				if (o + 2 + 2 * d > room) return NO_ROOM;
				o = newline(out, o, d);
				out[o++] = c2;
				at++;
			}
		}
	}
}

/** `\n` and the indentation of nesting `d`. */
function newline(out: Uint8Array, o: number, d: number): number {
	out[o++] = NEWLINE;
	for (let i = 2 * d; i > 0; i--) out[o++] = SPACE;
	return o;
}

/** Copies `src[from, to)` to `out` at `o`; gives the offset after it. */
function copy(src: Buffer, from: number, to: number, out: Uint8Array, o: number): number {
	const n = to - from;
	if (n < 48) {
		for (let i = 0; i < n; i++) out[o + i] = src[from + i] as number;
		return o + n;
	}
	out.set(src.subarray(from, to), o);
	return o + n;
}

/**
 * A key at `at` (a string, then `:`), not repeated among the object's keys before it (from `first`
 * in `starts`/`ends`) and not starting with a digit; gives the offset after its `:`, or -1.
 */
function key(src: Buffer, at: number, end: number, starts: number[], ends: number[], first: number): number {
	if (src[at] !== QUOTE) return REFUSED;
	const close = stringEnd(src, at, end);
	if (close === REFUSED || src[close] !== COLON) return REFUSED;
	const lead = src[at + 1] as number;
	// `JSON.parse` puts keys that are array indices ("0", "17") first; any key starting with a digit is refused.
	if (lead >= ZERO && lead <= NINE) return REFUSED;
	const length = close - at;
	const count = starts.length - first;
	if (count >= MAX_KEYS) return REFUSED;
	for (let k = first; k < starts.length; k++) {
		const s = starts[k] as number;
		if ((ends[k] as number) - s !== length || src[s + 1] !== lead) continue;
		let same = true;
		for (let i = 2; i < length; i++) {
			if (src[s + i] !== src[at + i]) {
				same = false;
				break;
			}
		}
		// `JSON.parse` keeps a repeated key's last value at the first one's place.
		if (same) return REFUSED;
	}
	starts.push(at);
	ends.push(close);
	return close + 1;
}

/** Which of `keys` the quoted key `src[from, to)` is, or -1. */
function fieldOf(src: Buffer, from: number, to: number, keys: readonly Uint8Array[]): number {
	const length = to - from;
	for (let k = 0; k < keys.length; k++) {
		const wanted = keys[k] as Uint8Array;
		if (wanted.length !== length) continue;
		let same = true;
		for (let i = 1; i < length - 1; i++) {
			if (wanted[i] !== src[from + i]) {
				same = false;
				break;
			}
		}
		if (same) return k;
	}
	return -1;
}

/** Whether `h` is a lowercase hexadecimal digit's byte; its value, or -1. */
function hex(h: number): number {
	if (h >= ZERO && h <= NINE) return h - ZERO;
	if (h >= 0x61 && h <= 0x66) return h - 0x57;
	return -1;
}

/** The value of the four lowercase hex digits at `at`, or -1. */
function hex4(src: Buffer, at: number): number {
	const a = hex(src[at] as number);
	const b = hex(src[at + 1] as number);
	const c = hex(src[at + 2] as number);
	const d = hex(src[at + 3] as number);
	if (a < 0 || b < 0 || c < 0 || d < 0) return -1;
	return (a << 12) | (b << 8) | (c << 4) | d;
}

/**
 * The offset after the string whose `"` is at `at`, when it is written as `JSON.stringify` writes
 * strings; else {@link REFUSED}. `JSON.stringify` escapes `"` and `\` as `\"` and `\\`; backspace,
 * form feed, newline, carriage return and tab as `\b \f \n \r \t`; the other code points below
 * U+0020 and every lone surrogate as `\u` and four lowercase hex digits; and nothing else.
 */
export function stringEnd(src: Buffer, at: number, end: number): number {
	let i = at + 1;
	for (;;) {
		// One byte at a time: a raw control character (not JSON) must be found as well as the end.
		let c = 0;
		while (i < end) {
			c = src[i] as number;
			if (c === QUOTE || c === BACKSLASH || c < SPACE) break;
			i++;
		}
		if (i >= end) return REFUSED;
		if (c === QUOTE) return i + 1;
		if (c !== BACKSLASH) return REFUSED;
		const e = src[i + 1];
		if (e === QUOTE || e === BACKSLASH || e === 0x62 || e === 0x66 || e === 0x6e || e === 0x72 || e === 0x74) {
			i += 2;
			continue;
		}
		if (e !== 0x75 || i + 6 > end) return REFUSED;
		const code = hex4(src, i + 2);
		if (code < 0) return REFUSED;
		if (code < SPACE) {
			// These five have short escapes.
			if (code === 0x08 || code === 0x09 || code === 0x0a || code === 0x0c || code === 0x0d) return REFUSED;
		} else if (code >= 0xd800 && code <= 0xdbff) {
			// A high surrogate escaped before a low one is a pair, which `JSON.stringify` writes as it is.
			if (src[i + 6] === BACKSLASH && src[i + 7] === 0x75) {
				const low = hex4(src, i + 8);
				if (low >= 0xdc00 && low <= 0xdfff) return REFUSED;
			}
		} else if (code < 0xdc00 || code > 0xdfff) {
			// Any other code point is written as itself. (A low surrogate here is lone: a high one
			// escaped before it was refused above, and valid UTF-8 holds no surrogate.)
			return REFUSED;
		}
		i += 6;
	}
}

/**
 * The offset after the number or literal at `at`, when `JSON.stringify` would write it so; else
 * {@link REFUSED}. A number is written as `String(number)`: `-0` as `0`, `1.50` as `1.5`, `1E3` as
 * `1000`, `1e400` as `null`.
 */
function scalarEnd(src: Buffer, at: number, end: number): number {
	const c = src[at] as number;
	if (c === 0x74) return literal(src, at, end, "true");
	if (c === 0x66) return literal(src, at, end, "false");
	if (c === 0x6e) return literal(src, at, end, "null");
	if (c !== MINUS && (c < ZERO || c > NINE)) return REFUSED;
	let i = at;
	let simple = true;
	if (c === MINUS) i++;
	const first = i;
	while (i < end) {
		const x = src[i] as number;
		if (x >= ZERO && x <= NINE) {
			i++;
			continue;
		}
		if (x === COMMA || x === CLOSE_BRACE || x === CLOSE_BRACKET) break;
		if (x === 0x2e || x === 0x65 || x === 0x45 || x === 0x2b || x === MINUS) {
			simple = false;
			i++;
			continue;
		}
		return REFUSED;
	}
	const digits = i - first;
	if (digits === 0) return REFUSED;
	// A whole number of up to 15 digits with no leading zero is its own `String(number)` (but `-0`).
	if (simple && digits <= 15 && (src[first] !== ZERO || digits === 1) && !(c === MINUS && src[first] === ZERO)) {
		return i;
	}
	const text = src.toString("latin1", at, i);
	return String(Number(text)) === text ? i : REFUSED;
}

function literal(src: Buffer, at: number, end: number, word: string): number {
	if (at + word.length > end) return REFUSED;
	for (let i = 1; i < word.length; i++) if (src[at + i] !== word.charCodeAt(i)) return REFUSED;
	return at + word.length;
}
