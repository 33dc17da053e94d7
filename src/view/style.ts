/**
 * `Style` and `createStyle`: ANSI styling for the terminal view, or none, with the same functions either way; and
 * the helpers that make a value from a history safe to print (`sanitize`, `oneLine`, `shown`).
 */
import { textOf } from "../values.js";
import { escapeInvisible, showInvisible } from "./invisible.js";

/** ANSI styling for the terminal view, or none: the same functions either way. */
export interface Style {
	readonly enabled: boolean;
	bold(text: string): string;
	dim(text: string): string;
	red(text: string): string;
	green(text: string): string;
	yellow(text: string): string;
	blue(text: string): string;
	magenta(text: string): string;
	cyan(text: string): string;
}

const wrap =
	(open: number, close: number) =>
	(text: string): string =>
		`\u001b[${open}m${text}\u001b[${close}m`;

const plain = (text: string): string => text;

/** Styles that colour when `enabled`, and return the text unchanged otherwise. */
export function createStyle(enabled: boolean): Style {
	if (!enabled) {
		return {
			enabled,
			bold: plain,
			dim: plain,
			red: plain,
			green: plain,
			yellow: plain,
			blue: plain,
			magenta: plain,
			cyan: plain,
		};
	}
	return {
		enabled,
		bold: wrap(1, 22),
		dim: wrap(2, 22),
		red: wrap(31, 39),
		green: wrap(32, 39),
		yellow: wrap(33, 39),
		blue: wrap(34, 39),
		magenta: wrap(35, 39),
		cyan: wrap(36, 39),
	};
}

/**
 * Colour only on a terminal: never under `NO_COLOR` (https://no-color.org), always under
 * `FORCE_COLOR` (other than `0`), otherwise when stdout is a TTY.
 */
export function wantsColor(isTTY: boolean | undefined, env: Readonly<Record<string, string | undefined>>): boolean {
	if (env.NO_COLOR) return false;
	if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== "") return env.FORCE_COLOR !== "0";
	return isTTY === true;
}

/**
 * A value from a history, made safe to print: a session can hold escape sequences that would drive
 * the terminal, and characters that print as nothing, so both are shown, not sent. C0 and C1
 * controls become `␛` (ESC) or `�` (tabs become two spaces); the characters Unicode calls
 * default-ignorable or format (bidi controls, zero-width characters, variation selectors, tag
 * characters, …), which would hide or reorder what the model reads, are marked: `⟨U+202E⟩`, a long
 * run as `⟨U+FE0F ×12⟩`; the joiners and selectors inside an emoji stay (see invisible.ts). A value
 * that is not a string is printed as {@link textOf} gives it. Linear in the text.
 */
export function sanitize(value: unknown): string {
	return showInvisible(typeof value === "string" ? value : textOf(value));
}

/**
 * JSON text made safe for a terminal: DEL, C1 controls and the invisible characters {@link sanitize}
 * marks become `\uXXXX` escapes, so the text still parses to the same value. Only for a TTY: piped
 * JSON is left byte for byte as `JSON.stringify` wrote it. (Outside its strings JSON text is ASCII,
 * and `JSON.stringify` already escapes C0 controls and lone surrogates.)
 */
export function escapeJsonForTerminal(json: string): string {
	return escapeInvisible(json);
}

/** Characters of one quoted value that an error line shows; the rest is counted, not shown. */
const QUOTED_MAX = 80;
/** Characters of one error or warning line shown. */
const LINE_MAX = 2000;

/**
 * A message (an error's, say) as one printable line: each run of whitespace around a line break
 * becomes one space, a quoted value (a role, an id) longer than 80 characters is cut (a path at its
 * start, so that its file name shows), the line after 2,000, and the rest is {@link sanitize}d. Linear in the text, with no regex on it.
 */
export function oneLine(value: unknown): string {
	const text = typeof value === "string" ? value : textOf(value);
	const lines = text.split("\n");
	let joined = lines.length === 1 ? text : "";
	if (lines.length > 1) {
		const last = lines.length - 1;
		const parts: string[] = [];
		for (let i = 0; i <= last; i++) {
			const line = lines[i] as string;
			const part = i === 0 ? line.trimEnd() : i === last ? line.trimStart() : line.trim();
			if (part !== "" || i === 0 || i === last) parts.push(part);
		}
		joined = parts.join(" ");
	}
	const capped = capQuoted(joined);
	if (capped.length <= LINE_MAX) return sanitize(capped);
	return `${sanitize(clip(capped, LINE_MAX))}… (${more(capped.length - LINE_MAX, "character")})`;
}

/** A history value for a header or a label: sanitized, and cut after `max` characters. */
export function shown(value: unknown, max = QUOTED_MAX): string {
	const text = typeof value === "string" ? value : textOf(value);
	if (text.length <= max) return sanitize(text);
	return `${sanitize(clip(text, max))}…`;
}

/** Characters of an id, a role or a name shown in a label. */
const LABEL_MAX = 40;

/**
 * An id, a role or a name from the history (an entry id, a role, a customType, a tool or section name,
 * a provider, a model, a stop reason), as a header or an `--explain` row shows it: {@link shown}, cut
 * after 40 characters. The one cut for such labels, so that every view cuts them alike.
 */
export const label = (value: unknown): string => shown(value, LABEL_MAX);

/** `text` with each `"…"` value (`\"` inside it kept) cut to {@link QUOTED_MAX} characters. */
function capQuoted(text: string): string {
	let result = "";
	let from = 0;
	for (let open = text.indexOf('"'); open !== -1 && open < text.length - 1; ) {
		let close = open + 1;
		while (close < text.length && text.charCodeAt(close) !== 0x22) close += text.charCodeAt(close) === 0x5c ? 2 : 1;
		const length = Math.min(close, text.length) - open - 1;
		if (length > QUOTED_MAX) {
			const value = text.slice(open + 1, open + 1 + length);
			const cut = isPath(value)
				? pathEnd(value, QUOTED_MAX)
				: `${clip(value, QUOTED_MAX)}… (${more(length - QUOTED_MAX, "character")})`;
			result += `${text.slice(from, open + 1)}${cut}`;
			from = Math.min(close, text.length);
		}
		open = close >= text.length ? -1 : text.indexOf('"', close + 1);
	}
	return from === 0 ? text : result + text.slice(from);
}

/** `1 more character`, `2 more characters`. */
const more = (count: number, word: string): string =>
	`${count.toLocaleString("en-US")} more ${word}${count === 1 ? "" : "s"}`;

/** Whether a quoted value reads as a file path: its end (the file name) is what tells it apart. */
const isPath = (value: string): boolean => value.includes("/") || value.includes("\\");

/**
 * A long path cut to `max` characters keeping its end: the directories nearest the file that fit,
 * then the file name (`…/sessions/--home-me-work--/2026-01-31T12-00-00-000Z_0193.jsonl`); where
 * the last directory and the file name do not fit together, the directory and both ends of the
 * name (`…/--home-me-work--/2026-01-31T1…0123456789ab.jsonl`).
 */
function pathEnd(path: string, max: number): string {
	const name = lastSeparator(path, path.length - 1);
	const parent = name > 0 ? lastSeparator(path, name - 1) : -1;
	if (name === -1 || name === path.length - 1) return `…${tail(path, max - 1)}`;
	if (parent !== -1 && path.length - parent + 1 <= max) {
		// Whole directories, as many as fit behind "…".
		let from = parent;
		for (
			let i = lastSeparator(path, parent - 1);
			i !== -1 && path.length - i + 1 <= max;
			i = lastSeparator(path, i - 1)
		) {
			from = i;
		}
		return `…${path.slice(from)}`;
	}
	const directory =
		parent !== -1 && name - parent < max / 2 ? path.slice(parent, name + 1) : path.slice(name, name + 1);
	const file = path.slice(name + 1);
	const room = max - 1 - directory.length;
	if (file.length <= room) return `…${directory}${file}`;
	const head = Math.min(12, Math.floor(room / 3));
	return `…${directory}${clip(file, head)}…${tail(file, room - head - 1)}`;
}

/** The index of the last `/` or `\\` at or before `from`, or -1. */
function lastSeparator(text: string, from: number): number {
	for (let i = from; i >= 0; i--) {
		const code = text.charCodeAt(i);
		if (code === 0x2f || code === 0x5c) return i;
	}
	return -1;
}

/** The last `count` characters of `text`, never starting inside a surrogate pair. */
function tail(text: string, count: number): string {
	let start = Math.max(0, text.length - count);
	const first = text.charCodeAt(start);
	if (first >= 0xdc00 && first <= 0xdfff) start++;
	return text.slice(start);
}

/** The first `max` characters of `text`, never ending inside a surrogate pair. */
function clip(text: string, max: number): string {
	const last = text.charCodeAt(max - 1);
	return text.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
}

/** A piece of text the view shows painted as a whole: a part of a message's body, or one of its lines. */
export interface TextPart {
	text: string;
	paint?: (text: string) => string;
}
