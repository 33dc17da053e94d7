/**
 * A scrollable text panel for pi's TUI (`ctx.ui.custom`), built from a plain object: pi-tui's
 * `Component` is an interface. Every line it renders, the title too, is cut to the terminal's width
 * as pi-tui measures it (the `Columns` it is given: pi-tui's own), since pi's TUI stops with an error
 * on a line wider than the terminal.
 */
import type { Columns } from "../view/columns.js";
import type { PiContext } from "./pi-api.js";

/** Lines shown at once. */
const PAGE = 30;
/** The narrowest the view is laid out for; a narrower terminal still gets every line cut to fit. */
const MIN_VIEW_WIDTH = 20;

const KEYS = {
	up: ["\x1b[A", "k"],
	down: ["\x1b[B", "j"],
	pageUp: ["\x1b[5~", "b"],
	pageDown: ["\x1b[6~", " "],
	close: ["\x1b", "q", "\r", "\n", "\x03"],
} as const;

interface Tui {
	requestRender(): void;
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
		const scroll = (to: number): void => {
			top = Math.min(Math.max(0, lines.length - PAGE), Math.max(0, to));
			tui.requestRender();
		};
		return {
			render(columns: number): string[] {
				if (columns !== width) {
					width = columns;
					// The view folds and cuts its bodies to the width it is given; the panel cuts every line.
					lines = linesAt(Math.max(MIN_VIEW_WIDTH, columns));
					top = Math.min(Math.max(0, lines.length - PAGE), top);
				}
				const clip = (text: string): string => (width < 1 ? "" : measure.truncate(text, width));
				const end = Math.min(lines.length, top + PAGE);
				const out = [
					clip(`${title} · lines ${top + 1}–${end} of ${lines.length} · ↑↓ space b to scroll, q to close`),
				];
				for (let i = top; i < end; i++) out.push(clip(lines[i] ?? ""));
				return out;
			},
			handleInput(data: string): void {
				if ((KEYS.close as readonly string[]).includes(data)) done(undefined);
				else if ((KEYS.up as readonly string[]).includes(data)) scroll(top - 1);
				else if ((KEYS.down as readonly string[]).includes(data)) scroll(top + 1);
				else if ((KEYS.pageUp as readonly string[]).includes(data)) scroll(top - PAGE);
				else if ((KEYS.pageDown as readonly string[]).includes(data)) scroll(top + PAGE);
			},
			invalidate(): void {},
		};
	});
	return shown;
}
