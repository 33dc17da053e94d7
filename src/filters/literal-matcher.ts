/**
 * Every occurrence of many literal strings in a text, in one pass (Aho–Corasick over UTF-16 code
 * units): `redactSecrets` replaces each secret it found wherever it occurs, and a history with
 * thousands of secrets would otherwise cost one search of every string per secret.
 *
 * Exact, unit by unit: no Unicode folding or grapheme rule (a secret followed by a combining mark is
 * still that secret), so it finds what `indexOf` finds.
 */

/** One occurrence: `[start, end, pattern index]`, `end` exclusive. */
export type Occurrence = [number, number, number];

/**
 * A compiled set of patterns.
 *
 * Contract: `occurrences(text)` gives, for each pattern, the occurrences an `indexOf` loop that
 * goes on after each one finds (leftmost first; one occurrence of a pattern never overlaps the
 * last one of the same pattern), for all patterns together, in no particular order. Empty
 * patterns are ignored. Building costs the patterns' total length; a search, the text's length
 * plus the occurrences.
 *
 * @example
 * new LiteralMatcher(["ab", "b"]).occurrences("abab"); // [0,2,0] [1,2,1] [2,4,0] [3,4,1] (in some order)
 */
export class LiteralMatcher {
	/** Goto function: `state * 65536 + code unit` → next state. */
	private readonly next = new Map<number, number>();
	/** Failure link of each state. */
	private readonly fail: number[] = [0];
	/** The pattern that ends at each state, or -1. */
	private readonly ends: number[] = [-1];
	/** The nearest state on the failure chain (itself excluded) where a pattern ends, or -1. */
	private readonly outputLink: number[] = [-1];
	private readonly lengths: number[];

	constructor(patterns: readonly string[]) {
		this.lengths = patterns.map((pattern) => pattern.length);
		for (let p = 0; p < patterns.length; p++) {
			const pattern = patterns[p] as string;
			if (pattern.length === 0) continue;
			let state = 0;
			for (let i = 0; i < pattern.length; i++) {
				const key = state * 65536 + pattern.charCodeAt(i);
				let to = this.next.get(key);
				if (to === undefined) {
					to = this.ends.length;
					this.ends.push(-1);
					this.fail.push(0);
					this.outputLink.push(-1);
					this.next.set(key, to);
				}
				state = to;
			}
			// A repeated pattern: the first keeps the state (the same string, the same occurrences).
			if (this.ends[state] === -1) this.ends[state] = p;
		}
		this.link();
	}

	/** Failure and output links, breadth first (a state's links point to shallower states). */
	private link(): void {
		const children = new Map<number, [number, number][]>();
		for (const [key, to] of this.next) {
			const from = Math.floor(key / 65536);
			let list = children.get(from);
			if (list === undefined) {
				list = [];
				children.set(from, list);
			}
			list.push([key % 65536, to]);
		}
		const queue: number[] = [];
		for (const [, to] of children.get(0) ?? []) queue.push(to);
		for (let head = 0; head < queue.length; head++) {
			const state = queue[head] as number;
			for (const [unit, to] of children.get(state) ?? []) {
				let f = this.fail[state] as number;
				let target = this.step(f, unit);
				while (target === undefined && f !== 0) {
					f = this.fail[f] as number;
					target = this.step(f, unit);
				}
				const failTo = target ?? 0;
				this.fail[to] = failTo;
				this.outputLink[to] = (this.ends[failTo] as number) >= 0 ? failTo : (this.outputLink[failTo] as number);
				queue.push(to);
			}
		}
	}

	private step(state: number, unit: number): number | undefined {
		return this.next.get(state * 65536 + unit);
	}

	occurrences(text: string): Occurrence[] {
		const found: Occurrence[] = [];
		// Per pattern, where its last occurrence ended: the next must start there or later.
		const lastEnd = new Map<number, number>();
		let state = 0;
		for (let i = 0; i < text.length; i++) {
			const unit = text.charCodeAt(i);
			let to = this.step(state, unit);
			while (to === undefined && state !== 0) {
				state = this.fail[state] as number;
				to = this.step(state, unit);
			}
			state = to ?? 0;
			for (let out = (this.ends[state] as number) >= 0 ? state : (this.outputLink[state] as number); out >= 0; ) {
				const pattern = this.ends[out] as number;
				const end = i + 1;
				const start = end - (this.lengths[pattern] as number);
				if (start >= (lastEnd.get(pattern) ?? 0)) {
					found.push([start, end, pattern]);
					lastEnd.set(pattern, end);
				}
				out = this.outputLink[out] as number;
			}
		}
		return found;
	}
}
