/**
 * Arrays whose cost follows their elements, not their `length`: a sparse array of length 2³²−1
 * with two messages is walked in two steps (its holes are reported as one range), not four billion.
 */

/** How many slots past a hole are probed one by one before the array's keys are listed. */
const PROBE = 32;

/**
 * The first index after `hole` (a slot of `array` that holds nothing) that holds something, or
 * `array.length`. Cheap for a short run of holes; a long one costs one `Object.keys` of the array,
 * which for a sparse (dictionary-mode) array lists only the slots that exist.
 */
export function nextPresent(array: readonly unknown[], hole: number, keys: { list?: string[] }): number {
	const length = array.length;
	const probeEnd = Math.min(length, hole + 1 + PROBE);
	for (let i = hole + 1; i < probeEnd; i++) if (i in array) return i;
	if (probeEnd === length) return length;
	keys.list ??= Object.keys(array);
	const list = keys.list;
	// Integer keys come first, in ascending order: binary search for the first one past the probe.
	let lo = 0;
	let hi = list.length;
	while (lo < hi) {
		const mid = (lo + hi) >>> 1;
		const index = Number(list[mid]);
		if (Number.isInteger(index) && index < probeEnd) lo = mid + 1;
		else hi = mid;
	}
	const index = lo < list.length ? Number(list[lo]) : Number.NaN;
	return Number.isInteger(index) && index < length ? index : length;
}

/** Whether slot `index` of `array` is a hole (holds nothing, not even `undefined`). */
export const isHole = (array: readonly unknown[], index: number): boolean => !(index in array);
