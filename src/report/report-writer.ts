/**
 * Writes a report's page in pieces: the markup's start, the head as one data block, each list in
 * blocks of about 4 MiB (each item made, written and dropped in turn), then the script. Nothing holds
 * the page, or a list, whole: memory grows with the largest message, not with the report. Every
 * string of the data passes `pass` on its way (the redaction, when it is on).
 */
import { BLOCK_END, blockStart, pageEnd, pageStart, scriptSafe } from "./html-page.js";
import { pageScript } from "./page/script.js";
import type { ReportSource } from "./report-data.js";
import type { ReportList, TextPass } from "./report-types.js";

/** Where the page goes, a piece at a time (a file, stdout). A piece is at most a few MiB, or one message. */
export interface PageOut {
	write(text: string): void;
}

/** Characters of data after which a block is closed and the next list items go into a new one. */
const BLOCK_CHARS = 4 * 1024 * 1024;
/** Characters handed to `PageOut.write` at once, at least (the last piece may be shorter). */
const WRITE_CHARS = 1024 * 1024;
/**
 * The most page text one item (a message) may take: a browser reads each data block as one string,
 * and holds at most about 512 MiB in one.
 */
export const MAX_ITEM_CHARS = 256 * 1024 * 1024;

/** A report that cannot be built: one of its messages is too long for a page. */
export class ReportTooLargeError extends Error {
	override readonly name = "ReportTooLargeError";
}

/** The lists in the order the page reads them. */
const LISTS: readonly ReportList[] = ["output", "history", "rows", "taps", "requests"];

const WHAT: Record<ReportList, string> = {
	output: "model message #",
	history: "history message [",
	rows: "history entry row ",
	taps: "post-conversion hook ",
	requests: "ledger request ",
};

/**
 * Writes the page of `source` to `out`; every string of its data goes through `pass` (images' data
 * aside). `maxItemChars` (tests lower it) is the most page text one item may take.
 */
export function writePage(out: PageOut, source: ReportSource, pass?: TextPass, maxItemChars = MAX_ITEM_CHARS): void {
	const buffer = new PieceBuffer(out);
	const json = (item: unknown, what: () => string) => itemJson(item, pass, what, maxItemChars);
	// Built for each page, so that a page module the build broke fails the report, not the loading
	// of the CLI or the extension (see page/script.ts).
	const script = pageScript();
	buffer.add(pageStart(script));
	buffer.add(blockStart("head"));
	buffer.add(json(source.head, () => "the report's head"));
	buffer.add(BLOCK_END);
	for (const list of LISTS) {
		let size = -1;
		let index = 0;
		for (const item of source[list]()) {
			const at = index++;
			const text = json(item, () => `${WHAT[list]}${at}${list === "history" ? "]" : ""}`);
			if (size < 0) {
				buffer.add(blockStart(list));
				buffer.add("[");
				size = 0;
			} else buffer.add(",");
			buffer.add(text);
			size += text.length;
			if (size >= BLOCK_CHARS) {
				buffer.add(`]${BLOCK_END}`);
				size = -1;
			}
		}
		if (size >= 0) buffer.add(`]${BLOCK_END}`);
	}
	buffer.add(pageEnd(script));
	buffer.flush();
}

/** One item as JSON safe in a `<script>` block, its strings through `pass`; refused when too long for a page. */
function itemJson(item: unknown, pass: TextPass | undefined, what: () => string, max: number): string {
	let text: string;
	try {
		text =
			pass === undefined
				? (JSON.stringify(item) as string)
				: (JSON.stringify(item, (key, value) =>
						typeof value === "string" && key !== "src" ? pass(value) : value,
					) as string);
		if (text.length <= max) text = scriptSafe(text);
	} catch (error) {
		if (!(error instanceof RangeError) || !error.message.includes("Invalid string length")) throw error;
		text = "";
	}
	if (text === "" || text.length > max) {
		throw new ReportTooLargeError(
			`the report is too large to build: ${what()} takes more than ${mib(max)} of page text, the most one message may take (a browser holds about 512 MiB in one string). Report the context at an earlier entry, or read the conversion as JSON (--json).`,
		);
	}
	return text;
}

const mib = (chars: number): string => `${Math.round((chars / 1024 / 1024) * 100) / 100} MiB`;

/** Joins small pieces into writes of about 1 MiB. */
class PieceBuffer {
	private readonly pieces: string[] = [];
	private size = 0;

	constructor(private readonly out: PageOut) {}

	add(text: string): void {
		this.pieces.push(text);
		this.size += text.length;
		if (this.size >= WRITE_CHARS) this.flush();
	}

	flush(): void {
		if (this.pieces.length === 0) return;
		const text = this.pieces.length === 1 ? (this.pieces[0] as string) : this.pieces.join("");
		this.pieces.length = 0;
		this.size = 0;
		this.out.write(text);
	}
}
