/**
 * Text from a history made safe to show in the report: the terminal view's {@link sanitize} applied
 * line by line, so line breaks stay line breaks while control characters are shown (`␛`, `�`) and
 * invisible or bidi characters marked (`⟨U+202E⟩`), exactly as the terminal view marks them. The
 * page then inserts the result as text, never as HTML.
 */
import { sanitize } from "../view/style.js";

/** `text` with each line sanitized; a `\r\n` line end is kept as a line break. */
export function pageText(value: unknown): string {
	const text = typeof value === "string" ? value : sanitize(value);
	if (text.indexOf("\n") === -1) return sanitize(text);
	const lines = text.split("\n");
	for (let i = 0; i < lines.length; i++) {
		const line = lines[i] as string;
		lines[i] = sanitize(line.endsWith("\r") ? line.slice(0, -1) : line);
	}
	return lines.join("\n");
}

/** A history value for a label in the report: {@link pageText} on one line, cut after `max` characters. */
export function pageLabel(value: unknown, max = 80): string {
	const text = sanitize(typeof value === "string" ? value : sanitize(value));
	if (text.length <= max) return text;
	const last = text.charCodeAt(max - 1);
	return `${text.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max)}…`;
}
