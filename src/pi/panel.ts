/**
 * A scrollable text panel for pi's TUI (`ctx.ui.custom`), built from a plain object: pi-tui's
 * `Component` is an interface. Every line it renders, the title too, is cut to the terminal's width
 * as pi-tui measures it (the `Columns` it is given: pi-tui's own), since pi's TUI stops with an error
 * on a line wider than the terminal.
 */
import type { Columns } from "../view/columns.js";
import type { PiContext } from "./pi-api.js";

/**
 * Terminal rows the panel leaves to pi: its footer (two rows: the working directory and the usage
 * line), the row of the transcript that pi 1.x's full-screen TUI always keeps above the editor's
 * place, and one row for a status line or widget. pi's regular TUI (0.73.1's only one) scrolls a
 * taller screen up and loses the panel's top rows (its title and key hint); the full-screen one
 * shrinks the panel and loses its bottom rows.
 */
const PI_CHROME_ROWS = 4;
/** Rows assumed where pi's TUI does not say how tall the terminal is: a classic 80×24 terminal's. */
const DEFAULT_ROWS = 24;
/** The fewest lines shown at once, however short the terminal. */
const MIN_PAGE = 3;
/** The narrowest the view is laid out for; a narrower terminal still gets every line cut to fit. */
const MIN_VIEW_WIDTH = 20;

const KEYS = {
	up: ["\x1b[A", "k"],
	down: ["\x1b[B", "j"],
	pageUp: ["\x1b[5~", "b"],
	pageDown: ["\x1b[6~", " "],
	close: ["\x1b", "q", "\r", "\n", "\x03"],
} as const;

/** What the panel uses of pi-tui's `TUI` (both lines): `terminal.rows` is the terminal's height. */
interface Tui {
	requestRender(): void;
	terminal?: { rows?: unknown };
}

/** Lines shown at once below the title: the terminal's rows less pi's chrome and the title, at least `MIN_PAGE`. */
export function pageLines(rows: unknown): number {
	const height = typeof rows === "number" && Number.isInteger(rows) && rows > 0 ? rows : DEFAULT_ROWS;
	return Math.max(MIN_PAGE, height - PI_CHROME_ROWS - 1);
}

/**
 * The title row: the title, where the page is and the keys, shortened until it fits `width` so that
 * "q to close" stays on screen (the long forms go first, then the title); cut only where not even
 * "q to close" fits.
 */
export function titleLine(
	title: string,
	first: number,
	last: number,
	total: number,
	width: number,
	measure: Columns,
): string {
	const long = `lines ${first}–${last} of ${total}`;
	const short = `${first}–${last}/${total}`;
	const keys = "↑↓ space b to scroll, q to close";
	const fewer = "↑↓ space b, q to close";
	const close = "q to close";
	const candidates = [
		`${title} · ${long} · ${keys}`,
		`${title} · ${long} · ${fewer}`,
		`${title} · ${short} · ${close}`,
		`${long} · ${fewer}`,
		`${short} · ${fewer}`,
		`${short} · ${close}`,
		close,
	];
	const fits = candidates.find((text) => measure.width(text) <= width);
	return fits ?? (width < 1 ? "" : measure.truncate(close, width));
}

/**
 * Shows the lines `linesAt(width)` gives for the terminal's width under `title`, until the user
 * presses q, Escape or Enter; resolves `false` at once where pi has no TUI to show it in (RPC mode's
 * `custom()` never calls the factory). Each rendered line is at most the terminal's width by
 * `measure`.
 */
export async function showPanel(
	ctx: PiContext,
	title: string,
	linesAt: (width: number) => readonly string[],
	measure: Columns,
): Promise<boolean> {
	if (typeof ctx.ui.custom !== "function") return false;
	let shown = false;
	await ctx.ui.custom((tui: Tui, _theme: unknown, _keys: unknown, done: (result: undefined) => void) => {
		shown = true;
		let top = 0;
		let width = 0;
		let lines: readonly string[] = [];
		// The terminal's height is read at every render and key: a resize changes the page.
		const page = (): number => pageLines(tui.terminal?.rows);
		const scroll = (to: number): void => {
			top = Math.min(Math.max(0, lines.length - page()), Math.max(0, to));
			tui.requestRender();
		};
		return {
			render(columns: number): string[] {
				if (columns !== width) {
					width = columns;
					// The view folds and cuts its bodies to the width it is given; the panel cuts every line.
					lines = linesAt(Math.max(MIN_VIEW_WIDTH, columns));
				}
				const rows = page();
				top = Math.min(Math.max(0, lines.length - rows), top);
				const clip = (text: string): string => (width < 1 ? "" : measure.truncate(text, width));
				const end = Math.min(lines.length, top + rows);
				const out = [titleLine(title, top + 1, end, lines.length, width, measure)];
				for (let i = top; i < end; i++) out.push(clip(lines[i] ?? ""));
				return out;
			},
			handleInput(data: string): void {
				if ((KEYS.close as readonly string[]).includes(data)) done(undefined);
				else if ((KEYS.up as readonly string[]).includes(data)) scroll(top - 1);
				else if ((KEYS.down as readonly string[]).includes(data)) scroll(top + 1);
				else if ((KEYS.pageUp as readonly string[]).includes(data)) scroll(top - page());
				else if ((KEYS.pageDown as readonly string[]).includes(data)) scroll(top + page());
			},
			invalidate(): void {},
		};
	});
	return shown;
}
