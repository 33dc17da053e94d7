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
 * (times the children of a state, at most the patterns' alphabet) plus the occurrences.
 *
 * @example
 * new LiteralMatcher(["ab", "b"]).occurrences("abab"); // [0,2,0] [1,2,1] [2,4,0] [3,4,1] (in some order)
 */
export class LiteralMatcher {
	/** The state reached from the root by each code unit, or -1. */
	private readonly root = new Int32Array(65536).fill(-1);
	/** The root's children, in insertion order. */
	private readonly rootChildren: number[] = [];
	/** Each state's first child (the others follow by {@link sibling}), or -1. */
	private readonly firstChild: Int32Array;
	private readonly sibling: Int32Array;
	/** The code unit that leads to each state. */
	private readonly unit: Uint16Array;
	/** Failure link of each state. */
	private readonly fail: Int32Array;
	/** The pattern that ends at each state, or -1. */
	private readonly ends: Int32Array;
	/** The nearest state on the failure chain (itself excluded) where a pattern ends, or -1. */
	private readonly outputLink: Int32Array;
	private readonly lengths: number[];

	constructor(patterns: readonly string[]) {
		this.lengths = patterns.map((pattern) => pattern.length);
		// At most one state per pattern character, plus the root.
		let capacity = 1;
		for (const length of this.lengths) capacity += length;
		this.firstChild = new Int32Array(capacity).fill(-1);
		this.sibling = new Int32Array(capacity).fill(-1);
		this.unit = new Uint16Array(capacity);
		this.fail = new Int32Array(capacity);
		this.ends = new Int32Array(capacity).fill(-1);
		this.outputLink = new Int32Array(capacity).fill(-1);
		let states = 1;
		for (let p = 0; p < patterns.length; p++) {
			const pattern = patterns[p] as string;
			if (pattern.length === 0) continue;
			let state = 0;
			for (let i = 0; i < pattern.length; i++) {
				const unit = pattern.charCodeAt(i);
				let to = this.step(state, unit);
				if (to < 0) {
					to = states++;
					this.unit[to] = unit;
					if (state === 0) {
						this.root[unit] = to;
						this.rootChildren.push(to);
					} else {
						this.sibling[to] = this.firstChild[state] as number;
						this.firstChild[state] = to;
					}
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
		const queue: number[] = [...this.rootChildren];
		for (let head = 0; head < queue.length; head++) {
			const state = queue[head] as number;
			for (let to = this.firstChild[state] as number; to >= 0; to = this.sibling[to] as number) {
				const unit = this.unit[to] as number;
				let f = this.fail[state] as number;
				let target = this.step(f, unit);
				while (target < 0 && f !== 0) {
					f = this.fail[f] as number;
					target = this.step(f, unit);
				}
				const failTo = Math.max(target, 0);
				this.fail[to] = failTo;
				this.outputLink[to] = (this.ends[failTo] as number) >= 0 ? failTo : (this.outputLink[failTo] as number);
				queue.push(to);
			}
		}
	}

	/** The child of `state` by `unit`, or -1 (a state's children are few: pattern alphabets are small). */
	private step(state: number, unit: number): number {
		if (state === 0) return this.root[unit] as number;
		for (let to = this.firstChild[state] as number; to >= 0; to = this.sibling[to] as number)
			if (this.unit[to] === unit) return to;
		return -1;
	}

	occurrences(text: string): Occurrence[] {
		const found: Occurrence[] = [];
		// Per pattern, where its last occurrence ended: the next must start there or later.
		const lastEnd = new Map<number, number>();
		let state = 0;
		for (let i = 0; i < text.length; i++) {
			const unit = text.charCodeAt(i);
			let to = this.step(state, unit);
			while (to < 0 && state !== 0) {
				state = this.fail[state] as number;
				to = this.step(state, unit);
			}
			state = Math.max(to, 0);
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
