/**
 * The CLI's terminal columns: string-width's measure (the library pi-tui's measure grew from), cut
 * between graphemes. The view fits its lines through it (src/view/columns.ts).
 */
import stringWidth from "string-width";
import { type Columns, graphemeColumns } from "../view/columns.js";

/** Columns as a terminal draws them, by string-width (East Asian width, emoji, zero-width marks). */
export const terminalColumns = (): Columns => graphemeColumns(stringWidth);
