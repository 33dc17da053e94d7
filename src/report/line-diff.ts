/**
 * A line diff of two texts, for "what this hook changed in this message": the common head and tail
 * are cut to a few lines of context, and the middle is diffed by longest common subsequence when it
 * is small enough (otherwise shown as removed, then added). Linear in the texts apart from that
 * bounded middle; no regex.
 */

/** One line of a diff: kept (`=`), removed (`-`), added (`+`), or a fold of kept lines (`…`). */
export interface DiffLine {
	op: "=" | "-" | "+" | "…";
	text: string;
}

/** Lines of context kept around a change. */
const CONTEXT = 3;
/** The largest middle (lines before × lines after) diffed line by line. */
const MAX_CELLS = 250_000;

/** The diff of `before` and `after`, line by line; empty when they are equal. */
export function lineDiff(before: string, after: string): DiffLine[] {
	if (before === after) return [];
	const a = before.split("\n");
	const b = after.split("\n");
	let head = 0;
	while (head < a.length && head < b.length && a[head] === b[head]) head++;
	let tail = 0;
	while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
	const out: DiffLine[] = [];
	kept(out, a.slice(0, head), "head");
	const middleA = a.slice(head, a.length - tail);
	const middleB = b.slice(head, b.length - tail);
	for (const line of middle(middleA, middleB)) out.push(line);
	kept(out, a.slice(a.length - tail), "tail");
	return out;
}

/** Kept lines: all of them when few, else the few next to the change and a fold. */
function kept(out: DiffLine[], lines: readonly string[], where: "head" | "tail"): void {
	if (lines.length <= CONTEXT * 2) {
		for (const text of lines) out.push({ op: "=", text });
		return;
	}
	const fold: DiffLine = { op: "…", text: `${(lines.length - CONTEXT).toLocaleString("en-US")} unchanged lines` };
	if (where === "head") {
		out.push(fold);
		for (const text of lines.slice(-CONTEXT)) out.push({ op: "=", text });
	} else {
		for (const text of lines.slice(0, CONTEXT)) out.push({ op: "=", text });
		out.push(fold);
	}
}

function middle(a: readonly string[], b: readonly string[]): DiffLine[] {
	if (a.length * b.length > MAX_CELLS || a.length === 0 || b.length === 0) {
		const out: DiffLine[] = [];
		for (const text of a) out.push({ op: "-", text });
		for (const text of b) out.push({ op: "+", text });
		return out;
	}
	// lengths[i * width + j]: the longest common subsequence of a[i..] and b[j..].
	const width = b.length + 1;
	const lengths = new Uint32Array((a.length + 1) * width);
	for (let i = a.length - 1; i >= 0; i--) {
		for (let j = b.length - 1; j >= 0; j--) {
			lengths[i * width + j] =
				a[i] === b[j]
					? (lengths[(i + 1) * width + j + 1] as number) + 1
					: Math.max(lengths[(i + 1) * width + j] as number, lengths[i * width + j + 1] as number);
		}
	}
	const out: DiffLine[] = [];
	let i = 0;
	let j = 0;
	while (i < a.length && j < b.length) {
		if (a[i] === b[j]) {
			out.push({ op: "=", text: a[i++] as string });
			j++;
		} else if ((lengths[(i + 1) * width + j] as number) >= (lengths[i * width + j + 1] as number)) {
			out.push({ op: "-", text: a[i++] as string });
		} else out.push({ op: "+", text: b[j++] as string });
	}
	while (i < a.length) out.push({ op: "-", text: a[i++] as string });
	while (j < b.length) out.push({ op: "+", text: b[j++] as string });
	return out;
}
