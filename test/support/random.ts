/** A small deterministic PRNG for generated test data: the same sequence on every run. */

/**
 * mulberry32: numbers in [0, 1) from a 32-bit seed.
 *
 * @example
 * const next = mulberry32(42);
 * next(); // the same number on every run
 */
export function mulberry32(seed: number): () => number {
	let state = seed >>> 0;
	return () => {
		state = (state + 0x6d2b79f5) >>> 0;
		let t = state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}
