/**
 * Texts scanned for secrets in a few scanner calls, not one per text, with the findings of each
 * text exactly those of the text scanned alone: joined by a separator no rule matches across, in
 * pieces of a bounded size, a long text in overlapping windows, so that the cost is linear in the
 * texts' length whatever they hold.
 */
import type { SecretFinding } from "./secret-detector.js";

/** A secret in a scanned text: `[start, end, kind]`, `end` exclusive. */
export type TextFinding = readonly [start: number, end: number, kind: string];

/**
 * Before each scanned text. A line break on each side stops every rule that reads to the end of a
 * line (`_authToken=…`) or through whitespace (the AWS secret key's `KEY =\n value`); the NUL between
 * is no whitespace, letter, digit, base64 or punctuation any rule reads, so no match goes from one
 * text into the next. It also keeps a text's leading BOM from being taken off (secretlint strips
 * one at the start of what it scans, which would shift every span by one).
 */
export const SEPARATOR = "\n\u0000\n";

/**
 * Longest text given to the scanner at once (UTF-16 units). secretlint's cost grows with the square
 * of the findings in one call (its de-duplication compares each with every later one: 32,000 key ids
 * in one text take 44 s), so no call is given more than this.
 */
export const SCAN_CHUNK = 64 * 1024;
/** A text longer than this is scanned in windows of this size. */
export const WINDOW = SCAN_CHUNK - SEPARATOR.length;
/**
 * How much two consecutive windows share: a match up to this long (a 4096-bit RSA key is about 3,300
 * characters, secretlint's longest patterns 10,000 to 12,000) lies whole in one of them.
 */
export const WINDOW_OVERLAP = 16 * 1024;

/** One text, or one window of a long text, as scanned. */
interface Item {
	/** The index of its text. */
	readonly text: number;
	/** Where it starts in its text. */
	readonly offset: number;
	readonly content: string;
}

/**
 * Scans `texts` and gives each text that holds secrets its findings (sorted by start, each once).
 *
 * Contract: a text's findings are those `scan(SEPARATOR + text)` gives, shifted by the separator,
 * whatever other texts are scanned with it: a finding whose value or matched range (`range`)
 * reaches into a separator or another text has the texts it touches scanned again alone, and their
 * findings taken from there (secretlint's rules never match across {@link SEPARATOR}; a pattern or
 * another scanner may). A text longer
 * than {@link WINDOW} is scanned in windows of that size, each starting {@link WINDOW} −
 * {@link WINDOW_OVERLAP} after the last, and has the findings of all its windows (a match at most
 * {@link WINDOW_OVERLAP} long is whole in one; one cut by a window's edge is found cut there too).
 * No call gets more than {@link SCAN_CHUNK} characters but for one window with its separator.
 */
export async function scanTexts(
	texts: readonly string[],
	scan: (text: string) => Promise<SecretFinding[]>,
): Promise<Map<string, TextFinding[]>> {
	const items = itemsOf(texts);
	const perItem = new Map<number, TextFinding[]>();
	const alone = new Set<number>();
	let from = 0;
	while (from < items.length) {
		let to = from + 1;
		let size = SEPARATOR.length + (items[from] as Item).content.length;
		while (to < items.length && size + SEPARATOR.length + (items[to] as Item).content.length <= SCAN_CHUNK) {
			size += SEPARATOR.length + (items[to] as Item).content.length;
			to++;
		}
		await scanJoined(items, from, to, scan, perItem, alone);
		from = to;
	}
	for (const index of alone) {
		const item = items[index] as Item;
		const list: TextFinding[] = [];
		for (const { start, end, ruleId, kind } of await scan(SEPARATOR + item.content)) {
			const s = Math.max(start - SEPARATOR.length, 0);
			const e = Math.min(end - SEPARATOR.length, item.content.length);
			if (e > s) list.push([s, e, kind ?? ruleId]);
		}
		perItem.set(index, list);
	}
	return byText(texts, items, perItem);
}

/** Each text as one item, or as windows when it is longer than {@link WINDOW}. */
function itemsOf(texts: readonly string[]): Item[] {
	const items: Item[] = [];
	const step = WINDOW - WINDOW_OVERLAP;
	for (let t = 0; t < texts.length; t++) {
		const text = texts[t] as string;
		if (text.length <= WINDOW) {
			items.push({ text: t, offset: 0, content: text });
			continue;
		}
		for (let offset = 0; ; offset += step) {
			items.push({ text: t, offset, content: text.slice(offset, offset + WINDOW) });
			if (offset + WINDOW >= text.length) break;
		}
	}
	return items;
}

/** Scans `items[from, to)` as one text; each finding goes to its item, or sends the items it touches to `alone`. */
async function scanJoined(
	items: readonly Item[],
	from: number,
	to: number,
	scan: (text: string) => Promise<SecretFinding[]>,
	perItem: Map<number, TextFinding[]>,
	alone: Set<number>,
): Promise<void> {
	const starts: number[] = [];
	const parts: string[] = [];
	let offset = 0;
	for (let i = from; i < to; i++) {
		offset += SEPARATOR.length;
		starts.push(offset);
		const content = (items[i] as Item).content;
		parts.push(SEPARATOR, content);
		offset += content.length;
	}
	for (const { start, end, ruleId, kind, range } of await scan(parts.join(""))) {
		if (end <= start) continue;
		// The text the rule read, not only the value, must lie in one item.
		const first = Math.min(start, range?.[0] ?? start);
		const last = Math.max(end, range?.[1] ?? end);
		const k = owner(starts, first);
		const itemStart = starts[k] as number;
		const itemEnd = itemStart + (items[from + k] as Item).content.length;
		if (first >= itemStart && last <= itemEnd) {
			const list = perItem.get(from + k);
			const finding: TextFinding = [start - itemStart, end - itemStart, kind ?? ruleId];
			if (list === undefined) perItem.set(from + k, [finding]);
			else list.push(finding);
			continue;
		}
		// It reaches over a separator: the items it touches are scanned again, alone.
		for (let j = k; j < starts.length && (starts[j] as number) - SEPARATOR.length < last; j++) alone.add(from + j);
	}
}

/** The index of the last part that starts at or before `position` (0 when none does). */
function owner(starts: readonly number[], position: number): number {
	let low = 0;
	let high = starts.length - 1;
	while (low < high) {
		const mid = (low + high + 1) >> 1;
		if ((starts[mid] as number) <= position) low = mid;
		else high = mid - 1;
	}
	return low;
}

/** The items' findings gathered per text, shifted by each window's offset, sorted, each once. */
function byText(
	texts: readonly string[],
	items: readonly Item[],
	perItem: ReadonlyMap<number, TextFinding[]>,
): Map<string, TextFinding[]> {
	const found = new Map<string, TextFinding[]>();
	for (const [index, list] of perItem) {
		if (list.length === 0) continue;
		const item = items[index] as Item;
		const text = texts[item.text] as string;
		let all = found.get(text);
		if (all === undefined) {
			all = [];
			found.set(text, all);
		}
		for (const [start, end, kind] of list) all.push([start + item.offset, end + item.offset, kind]);
	}
	for (const [text, all] of found) {
		all.sort((a, b) => a[0] - b[0] || a[1] - b[1] || (a[2] < b[2] ? -1 : a[2] > b[2] ? 1 : 0));
		const unique = all.filter(
			(f, i) =>
				i === 0 ||
				f[0] !== (all[i - 1] as TextFinding)[0] ||
				f[1] !== (all[i - 1] as TextFinding)[1] ||
				f[2] !== (all[i - 1] as TextFinding)[2],
		);
		found.set(text, unique);
	}
	return found;
}
