/**
 * Terminal columns: how wide a text is where a terminal draws it, and how the view cuts a line to a
 * width. The view measures through a port, never by UTF-16 length and never with a table of its own:
 * the CLI passes string-width's measure, the pi extension pi-tui's `visibleWidth` and
 * `truncateToWidth`, the very functions pi's TUI checks every line with.
 */
import { sanitize } from "./style.js";

/**
 * How wide text is in a terminal, and how to cut it.
 *
 * Contract: `width` counts the columns a terminal gives `text` (a CJK character or an emoji 2, a
 * combining mark or a zero-width joiner inside an emoji 0); `truncate` returns `text` when it fits in
 * `columns`, else its longest prefix of whole graphemes that fits with a final `…`, so that
 * `width(truncate(text, n)) <= n` for every `n >= 1`. Neither throws.
 *
 * @example
 * const columns = graphemeColumns(stringWidth);
 * columns.truncate("東京タワー", 5); // "東京…"
 */
export interface Columns {
	width(text: string): number;
	truncate(text: string, columns: number): string;
}

const ELLIPSIS = "…";

/**
 * {@link Columns} from a width function (string-width's, say): a line is cut between graphemes
 * (`Intl.Segmenter`), each measured by `width`, so an emoji ZWJ sequence or a letter with its
 * combining marks is kept or cut whole. A grapheme's width is asked once and remembered (up to
 * 4,096 of them): measuring is the slow part of a view of a long CJK history.
 *
 * @example
 * import stringWidth from "string-width";
 * const columns = graphemeColumns(stringWidth);
 */
export function graphemeColumns(width: (text: string) => number): Columns {
	const graphemes = new Intl.Segmenter(undefined, { granularity: "grapheme" });
	const widths = new Map<string, number>();
	const ellipsis = width(ELLIPSIS);
	const measure = (grapheme: string): number => {
		if (grapheme.length === 1) {
			const code = grapheme.charCodeAt(0);
			if (code >= 0x20 && code <= 0x7e) return 1;
		}
		let known = widths.get(grapheme);
		if (known === undefined) {
			known = width(grapheme);
			if (widths.size < MEASURED_GRAPHEMES) widths.set(grapheme, known);
		}
		return known;
	};
	return {
		width,
		truncate(text, columns) {
			// Printable ASCII is one column a character in every terminal measure (pi-tui's fast path too).
			if (PRINTABLE_ASCII.test(text)) {
				if (text.length <= columns) return text;
				return columns < ellipsis ? "" : text.slice(0, columns - ellipsis) + ELLIPSIS;
			}
			// No character but a tab is wider than two columns a UTF-16 unit, by either measure.
			if (text.length * 2 <= columns && !text.includes("\t")) return text;
			const room = columns - ellipsis;
			if (room < 0) return "";
			let used = 0;
			let end = -1;
			for (const { segment, index } of graphemes.segment(text)) {
				used += measure(segment);
				if (end === -1 && used > room) end = index;
				if (used > columns) return text.slice(0, end) + ELLIPSIS;
			}
			return text;
		},
	};
}

/** Graphemes whose width a {@link graphemeColumns} remembers. */
const MEASURED_GRAPHEMES = 4096;

/** Text of printable ASCII only (space to `~`). */
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/**
 * Of a line from the history, what fits in `width` columns: made printable ({@link sanitize}) and
 * cut with `…`. Only the start of a long line is looked at (a multi-megabyte output line is never
 * sanitized whole); a line cut there ends with `…` too.
 */
export function fitLine(text: string, width: number, columns: Columns): string {
	// No character is narrower than a column unless it is a mark or a joiner: 8 code units per
	// column leave room for those, and cut a line whose start already overflows.
	const limit = width * 8 + 16;
	if (text.length <= limit) return columns.truncate(sanitize(text), width);
	let end = limit;
	const last = text.charCodeAt(end - 1);
	if (last >= 0xd800 && last <= 0xdbff) end--;
	return columns.truncate(`${sanitize(text.slice(0, end))}${ELLIPSIS}`, width);
}

/** The SGR sequences the view's style (style.ts) writes; a history's own ESC is shown as `␛`, never written. */
const SGR = new RegExp(`${String.fromCharCode(0x1b)}\\[[0-9;]*m`, "g");

/**
 * A line of the view, styled or not, cut to `width` columns: a line that fits is kept as it is;
 * one that does not loses its styling and is cut with `…` (its text is measured without the style's
 * escape sequences, which take no column).
 *
 * @example
 * fitStyled("\x1b[1mdemo.jsonl\x1b[22m · pi session v3 · leaf a1 …", 40, terminalColumns());
 */
export function fitStyled(line: string, width: number, columns: Columns): string {
	const plain = line.includes("\x1b") ? line.replace(SGR, "") : line;
	const cut = columns.truncate(plain, width);
	return cut === plain ? line : cut;
}
