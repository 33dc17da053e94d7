/**
 * A session's parent links, read once (entries have many shapes, so every property read of them is a
 * slow one), and each id's entry as pi's `byId` map finds it: the last entry with that id.
 *
 * pi builds that map of every entry to walk from the leaf to the root. A map of 400,000 ids costs
 * about 100 ms. Where no two entries share an id (told by a table of their hashes, {@link IdTable},
 * which costs about half the map), the entry before an entry is the one the map gives for its id,
 * and the table finds the others (a branch's parent); a map is made only where ids repeat.
 */
import type { SessionEntry } from "./types.js";

/** The most entries whose ids go in an {@link IdTable} (it takes 24 bytes an entry at most). */
const MAX_HASHED = 1 << 22;

/** Each entry's id and parent, and each id's entry as pi's map finds it. */
export class EntryLinks {
	readonly ids: unknown[];
	readonly parents: (string | null)[];
	/** The ids' table, where they are distinct strings; the map is made only where they are not. */
	private readonly table: IdTable | undefined;
	private byId: Map<unknown, number> | undefined;

	constructor(entries: readonly SessionEntry[]) {
		const count = entries.length;
		this.ids = new Array(count);
		this.parents = new Array(count);
		for (let i = 0; i < count; i++) {
			const entry = entries[i] as SessionEntry;
			this.ids[i] = entry.id;
			this.parents[i] = entry.parentId;
		}
		this.table = IdTable.of(this.ids);
	}

	/** Whether no two entries share an id (known for up to {@link MAX_HASHED} string ids). */
	get distinct(): boolean {
		return this.table !== undefined;
	}

	/** The index of the last entry whose id is `id`, as pi's map gives it. */
	indexOf(id: unknown): number | undefined {
		if (this.table !== undefined) return this.table.find(id);
		if (this.byId === undefined) {
			this.byId = new Map();
			for (let i = 0; i < this.ids.length; i++) this.byId.set(this.ids[i], i);
		}
		return this.byId.get(id);
	}

	/** {@link indexOf} of `parentId`, the parent of entry `at`: the entry before, where ids are distinct and it holds that id. */
	parentOf(at: number, parentId: unknown): number | undefined {
		if (this.table !== undefined && at > 0 && this.ids[at - 1] === parentId) return at - 1;
		return this.indexOf(parentId);
	}
}

/**
 * Distinct string ids and where each is, in an open-addressing table of 52 bits of two hashes of
 * each: {@link IdTable.of} gives none when an id is not a string, there are more than
 * {@link MAX_HASHED}, or two keys meet (as two distinct ids do with a chance of about n² / 2⁵³),
 * which only costs the caller a map, never a wrong answer. A key is unique in the table, so the one
 * entry a found key leads to holds the id looked for, or no entry does (checked by comparing ids).
 */
export class IdTable {
	private constructor(
		private readonly ids: readonly unknown[],
		private readonly keys: Float64Array,
		private readonly at: Int32Array,
	) {}

	static of(ids: readonly unknown[]): IdTable | undefined {
		const count = ids.length;
		if (count > MAX_HASHED) return undefined;
		let size = 1024;
		while (size < count * 2) size *= 2;
		// 0 marks a free slot: every key is at least 1.
		const keys = new Float64Array(size);
		const at = new Int32Array(size);
		const mask = size - 1;
		for (let i = 0; i < count; i++) {
			const id = ids[i];
			if (typeof id !== "string") return undefined;
			const key = keyOf(id);
			for (let slot = key & mask; ; slot = (slot + 1) & mask) {
				const held = keys[slot] as number;
				if (held === 0) {
					keys[slot] = key;
					at[slot] = i;
					break;
				}
				if (held === key) return undefined;
			}
		}
		return new IdTable(ids, keys, at);
	}

	/** The index of the entry whose id is `id`. */
	find(id: unknown): number | undefined {
		if (typeof id !== "string") return undefined;
		const { keys, at } = this;
		const mask = keys.length - 1;
		const key = keyOf(id);
		for (let slot = key & mask; ; slot = (slot + 1) & mask) {
			const held = keys[slot] as number;
			if (held === 0) return undefined;
			if (held === key) {
				const index = at[slot] as number;
				return this.ids[index] === id ? index : undefined;
			}
		}
	}
}

/** 52 bits of two hashes of `id` (FNV-1a, and a multiply-shift hash seeded with the length), plus 1; its low 32 bits are FNV-1a's. */
function keyOf(id: string): number {
	let a = 0x811c9dc5;
	let b = 0x9e3779b9 ^ id.length;
	for (let k = 0; k < id.length; k++) {
		const code = id.charCodeAt(k);
		a = Math.imul(a ^ code, 0x01000193);
		b = Math.imul(b + code, 0x5bd1e995) ^ (b >>> 15);
	}
	return (b >>> 12) * 4294967296 + (a >>> 0) + 1;
}
