/**
 * The strings of a history scanned for secrets in a few texts, not one call per string: joined by a
 * blank line (no rule matches across one), in pieces of a bounded size, each finding given back to
 * the strings it lies in.
 */
import type { Found } from "./scan-memory.js";
import type { SecretFinding } from "./secret-detector.js";

/** Between two scanned strings: no rule matches across a blank line. */
const SEPARATOR = "\n\n";

/**
 * Longest text scanned at once (in UTF-16 units): strings are joined up to it, and a longer string
 * is scanned alone. secretlint's cost grows with the square of the findings in one text (8,000
 * tokens in one text take about 9 s), so a history with a secret in each of many strings is scanned
 * in pieces whose cost adds up linearly; the price is about 0.25 ms a piece.
 */
const SCAN_CHUNK = 64 * 1024;

/**
 * Scans `strings` (joined by {@link SEPARATOR}, in pieces of at most {@link SCAN_CHUNK}) and gives
 * each string the secret values found in it; a finding that spans a separator counts piece by
 * piece, each for its own string.
 */
export async function scanBatch(
	strings: readonly string[],
	scan: (text: string) => Promise<SecretFinding[]>,
): Promise<Map<string, Found[]>> {
	const found = new Map<string, Found[]>();
	let from = 0;
	while (from < strings.length) {
		let to = from + 1;
		let size = (strings[from] as string).length;
		while (to < strings.length && size + SEPARATOR.length + (strings[to] as string).length <= SCAN_CHUNK) {
			size += SEPARATOR.length + (strings[to] as string).length;
			to++;
		}
		await scanJoined(strings.slice(from, to), scan, found);
		from = to;
	}
	return found;
}

/** {@link scanBatch} of strings scanned as one text: their findings added to `found`. */
async function scanJoined(
	strings: readonly string[],
	scan: (text: string) => Promise<SecretFinding[]>,
	found: Map<string, Found[]>,
): Promise<void> {
	const starts = new Array<number>(strings.length);
	let offset = 0;
	for (let i = 0; i < strings.length; i++) {
		starts[i] = offset;
		offset += (strings[i] as string).length + SEPARATOR.length;
	}
	const findings = await scan(strings.join(SEPARATOR));
	for (const { ruleId, start, end } of findings) {
		for (let k = owner(starts, start); k < strings.length && (starts[k] as number) < end; k++) {
			const value = strings[k] as string;
			const from = Math.max(start, starts[k] as number) - (starts[k] as number);
			const to = Math.min(end - (starts[k] as number), value.length);
			if (to <= from) continue;
			let list = found.get(value);
			if (list === undefined) {
				list = [];
				found.set(value, list);
			}
			list.push([value.slice(from, to), ruleId]);
		}
	}
}

/** The index of the string whose span (or following separator) holds `position`. */
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
