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
 * the terminal, so control characters are shown, not sent (tabs become two spaces). A value that is
 * not a string (a number where pi writes a string, say) is printed as `String()` gives it.
 */
export function sanitize(value: unknown): string {
	const text = typeof value === "string" ? value : toText(value);
	let result = "";
	let from = 0;
	for (let i = 0; i < text.length; i++) {
		const code = text.charCodeAt(i);
		if (code >= 0x20 && code !== 0x7f) continue;
		const shown = code === 0x09 ? "  " : code === 0x1b ? "␛" : "�";
		result += text.slice(from, i) + shown;
		from = i + 1;
	}
	return from === 0 ? text : result + text.slice(from);
}

/** A message (an error's, say) as one printable line. */
export const oneLine = (text: string): string => sanitize(text.replace(/\s*\n\s*/g, " "));

function toText(value: unknown): string {
	try {
		return String(value);
	} catch {
		// An object without a prototype (or with a throwing toString) has no text of its own.
		return Object.prototype.toString.call(value);
	}
}
