/**
 * The session tree as the ledger walks it: each entry's parent and depth, which recorded requests
 * share one context (so that a context is built once per stretch of the tree, not once per request),
 * and what lies between two requests (a branch, a compaction, a context edit, a system message).
 *
 * Works on plain arrays read from the entries once (session-requests.ts reads them): linear in the
 * entries, apart from the walk between two consecutive requests, which is as long as the entries
 * between them on the path.
 */

/** What an entry is, as far as the ledger's structure cares (one byte an entry). */
export const EntryKind = Object.freeze({
	other: 0,
	/** Rewrites what comes before it: every request after it starts from its summary. */
	compaction: 1,
	/** Rewrites an earlier entry's message (pi 1.x). */
	contextEdit: 2,
	/** A `system` message: the prompt or the tools changed (pi 1.x). */
	system: 3,
});

/** What lies between two requests on the path of the later one. */
export interface RequestChange {
	/** The earlier request's leaf is not on the later one's path: the conversation moved to another branch. */
	branch: boolean;
	/** A compaction lies between them: the later request starts from its summary. */
	compaction: boolean;
	/** A `context_edit` lies between them: an earlier message was hidden or replaced. */
	contextEdit: boolean;
	/** A `system` message lies between them: the prompt or the tools changed. */
	system: boolean;
}

export const NO_CHANGE: RequestChange = Object.freeze({
	branch: false,
	compaction: false,
	contextEdit: false,
	system: false,
});

/** The parent links of a session, with each entry's depth (0 for a root); `loop` when a chain of parents loops. */
export class RequestTree {
	readonly parent: Int32Array;
	readonly depth: Int32Array;
	/** A chain of parents loops: depths (and the contexts' shapes) then depend on the leaf, so no context is shared. */
	readonly loop: boolean;
	private readonly byId: Map<string, number>;

	constructor(
		ids: readonly unknown[],
		parentIds: readonly unknown[],
		private readonly kinds: Uint8Array,
	) {
		const count = ids.length;
		// The last entry of an id is the one pi's map finds.
		this.byId = new Map();
		for (let i = 0; i < count; i++) {
			const id = ids[i];
			if (typeof id === "string") this.byId.set(id, i);
		}
		this.parent = new Int32Array(count);
		for (let i = 0; i < count; i++) {
			const parentId = parentIds[i];
			this.parent[i] = typeof parentId === "string" && parentId !== "" ? (this.byId.get(parentId) ?? -1) : -1;
		}
		const { depth, loop } = depthsOf(this.parent);
		this.depth = depth;
		this.loop = loop;
	}

	/** The index of the entry pi's map finds for `id`, or -1. */
	indexOf(id: unknown): number {
		return typeof id === "string" && id !== "" ? (this.byId.get(id) ?? -1) : -1;
	}

	/**
	 * For each leaf (an entry index, or -1 for none), in order, the context it shares: leaves whose
	 * paths agree up to the earlier one, with no compaction or context edit after it on the later
	 * one, share the context of the later one (the earlier one's history is a prefix of it).
	 * Returns each leaf's group and each group's own leaf (the deepest); -1 leaves get group -1.
	 */
	shareContexts(leaves: readonly number[]): { group: Int32Array; groupLeaf: number[] } {
		const group = new Int32Array(leaves.length).fill(-1);
		const groupLeaf: number[] = [];
		if (this.loop) {
			// Contexts depend on where a walk starts: each leaf has its own.
			for (let k = 0; k < leaves.length; k++) {
				const leaf = leaves[k] as number;
				if (leaf < 0) continue;
				group[k] = groupLeaf.length;
				groupLeaf.push(leaf);
			}
			return { group, groupLeaf };
		}
		const covered = new Int32Array(this.parent.length).fill(-1);
		// Latest first: a leaf is covered when a later leaf's walk passed it.
		for (let k = leaves.length - 1; k >= 0; k--) {
			const leaf = leaves[k] as number;
			if (leaf < 0) continue;
			const known = covered[leaf] as number;
			if (known >= 0) {
				group[k] = known;
				continue;
			}
			const made = groupLeaf.length;
			groupLeaf.push(leaf);
			group[k] = made;
			for (let at = leaf; at >= 0 && (covered[at] as number) < 0; at = this.parent[at] as number) {
				covered[at] = made;
				const kind = this.kinds[at];
				// What lies above a rewrite sees another history than the leaf does.
				if (kind === EntryKind.compaction || kind === EntryKind.contextEdit) break;
			}
		}
		return { group, groupLeaf };
	}

	/**
	 * The greatest depth of the entries of each message of a context so far: non-decreasing, so that
	 * the messages a leaf sends are the first ones up to its depth (a compaction's summary and the
	 * entries it keeps come first, all above every leaf after the compaction).
	 */
	runningDepths(entryIds: readonly string[]): Int32Array {
		const depths = new Int32Array(entryIds.length);
		let most = -1;
		for (let i = 0; i < entryIds.length; i++) {
			const at = this.indexOf(entryIds[i]);
			const depth = at < 0 ? most : (this.depth[at] as number);
			if (depth > most) most = depth;
			depths[i] = most;
		}
		return depths;
	}

	/** How many leading messages have a running depth of at most `depth` (a binary search). */
	static prefixUpTo(depths: Int32Array, depth: number): number {
		let low = 0;
		let high = depths.length;
		while (low < high) {
			const middle = (low + high) >>> 1;
			if ((depths[middle] as number) <= depth) low = middle + 1;
			else high = middle;
		}
		return low;
	}

	/** The entries' indices sorted by depth, parents before children (a counting sort). */
	byDepth(): Int32Array {
		const { depth } = this;
		let most = 0;
		for (let i = 0; i < depth.length; i++) if ((depth[i] as number) > most) most = depth[i] as number;
		const starts = new Int32Array(most + 2);
		for (let i = 0; i < depth.length; i++) {
			const slot = (depth[i] as number) + 1;
			starts[slot] = (starts[slot] as number) + 1;
		}
		for (let d = 1; d < starts.length; d++) starts[d] = (starts[d] as number) + (starts[d - 1] as number);
		const order = new Int32Array(depth.length);
		for (let i = 0; i < depth.length; i++) {
			const slot = depth[i] as number;
			order[starts[slot] as number] = i;
			starts[slot] = (starts[slot] as number) + 1;
		}
		return order;
	}

	/** What lies between leaf `from` (an earlier request's) and leaf `to` on the path of `to`. */
	between(from: number, to: number): RequestChange {
		if (from === to) return NO_CHANGE;
		if (this.loop || from < 0 || to < 0) return { ...NO_CHANGE, branch: from !== to };
		const change = { branch: false, compaction: false, contextEdit: false, system: false };
		const stop = this.depth[from] as number;
		let at = to;
		while (at >= 0 && (this.depth[at] as number) > stop) {
			const kind = this.kinds[at];
			if (kind === EntryKind.compaction) change.compaction = true;
			else if (kind === EntryKind.contextEdit) change.contextEdit = true;
			else if (kind === EntryKind.system) change.system = true;
			at = this.parent[at] as number;
		}
		change.branch = at !== from;
		return change;
	}
}

/** Each entry's number of ancestors, and whether some chain of parents loops (its entries are then roots). */
function depthsOf(parent: Int32Array): { depth: Int32Array; loop: boolean } {
	const count = parent.length;
	const UNKNOWN = -1;
	const VISITING = -2;
	const depth = new Int32Array(count).fill(UNKNOWN);
	const stack: number[] = [];
	let loop = false;
	for (let i = 0; i < count; i++) {
		if (depth[i] !== UNKNOWN) continue;
		let at = i;
		let base = -1;
		for (;;) {
			const seen = depth[at] as number;
			if (seen >= 0) {
				base = seen;
				break;
			}
			if (seen === VISITING) {
				loop = true;
				break;
			}
			depth[at] = VISITING;
			stack.push(at);
			const up = parent[at] as number;
			if (up < 0) break;
			at = up;
		}
		while (stack.length > 0) depth[stack.pop() as number] = ++base;
	}
	return { depth, loop };
}
