/**
 * The known name nearest to one a user typed (`redactSecret` → `redactSecrets`), so that a notice
 * about a misspelled switch can say which switch was meant.
 */

/** Characters of a typed name compared: a settings key can be any length; a switch name is short. */
const COMPARED_CHARS = 64;

/**
 * The name in `names` with the fewest single-character edits (insert, delete, replace) from `typed`,
 * ignoring case; the first such name in `names` on a tie.
 *
 * Contract: never throws; `undefined` only when `names` is empty. Compares at most the first 64
 * characters of `typed`, so its cost is bounded whatever the user wrote (at most 64 × the longest
 * name, per name).
 *
 * @example
 * nearestName("redactSecret", ["safeFences", "redactSecrets"]); // "redactSecrets"
 */
export function nearestName(typed: string, names: readonly string[]): string | undefined {
	const word = typed.slice(0, COMPARED_CHARS).toLowerCase();
	let best: string | undefined;
	let bestDistance = Number.POSITIVE_INFINITY;
	for (const name of names) {
		const distance = editDistance(word, name.toLowerCase());
		if (distance < bestDistance) {
			best = name;
			bestDistance = distance;
		}
	}
	return best;
}

/** Levenshtein's distance, one row at a time. */
function editDistance(a: string, b: string): number {
	let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
	for (let i = 1; i <= a.length; i++) {
		const row = [i];
		for (let j = 1; j <= b.length; j++) {
			const replace = (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1);
			row.push(Math.min(replace, (previous[j] as number) + 1, (row[j - 1] as number) + 1));
		}
		previous = row;
	}
	return previous[b.length] as number;
}
