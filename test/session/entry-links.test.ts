/**
 * A session's parent links: whether its ids are distinct (told by hashes, never wrongly), and each
 * parent as pi's `byId` map finds it (the last entry with that id), by the table of hashes or a map.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { EntryLinks, IdTable } from "../../src/session/entry-links.js";
import type { SessionEntry } from "../../src/session/types.js";

const entriesOf = (links: readonly [unknown, unknown][]): SessionEntry[] =>
	links.map(([id, parentId]) => ({ type: "label", id, parentId }) as unknown as SessionEntry);

/** pi's map: each id's last entry. */
const lastIndexOf = (ids: readonly unknown[], id: unknown): number | undefined => {
	const byId = new Map<unknown, number>();
	for (let i = 0; i < ids.length; i++) byId.set(ids[i], i);
	return byId.get(id);
};

describe("IdTable", () => {
	it("should hold 200,000 distinct ids shaped as pi makes them, and find each", () => {
		const ids = Array.from({ length: 200_000 }, (_, i) => (i * 2654435761 + 12345).toString(16).slice(-8));
		expect(new Set(ids).size).toBe(ids.length);
		const table = IdTable.of(ids) as IdTable;
		expect(table).toBeDefined();
		for (const at of [0, 1, 99_999, 199_999]) expect(table.find(ids[at])).toBe(at);
		expect(table.find("not-an-id")).toBeUndefined();
		expect(table.find(7)).toBeUndefined();
	});

	it.each([
		["an id held twice, far apart", ["a", "b", "c", "d", "a"]],
		["an id held twice, side by side", ["x", "y", "y"]],
		["an id that is not a string", ["a", 1, "b"]],
		["a null id", ["a", null]],
	])("should be none for %s", (_what, ids) => {
		expect(IdTable.of(ids)).toBeUndefined();
	});

	it("should hold exactly the ids that are distinct strings, and find each where it is", () => {
		fc.assert(
			fc.property(fc.array(fc.string({ maxLength: 3 }), { maxLength: 60 }), (ids) => {
				// Distinct short strings never share both hashes in a table this small.
				const table = IdTable.of(ids);
				expect(table !== undefined).toBe(new Set(ids).size === ids.length);
				for (let at = 0; at < ids.length; at++) expect(table?.find(ids[at]) ?? at).toBe(at);
				expect(table?.find(`${ids.join("")}!`)).toBeUndefined();
			}),
		);
	});
});

describe("EntryLinks", () => {
	it("should find each parent where pi's map does, ids repeated or not", () => {
		const id = fc.oneof(fc.constantFrom("a", "b", "c", "d", "e", "f"), fc.integer({ min: 0, max: 3 }));
		fc.assert(
			fc.property(fc.array(fc.tuple(id, id), { minLength: 1, maxLength: 30 }), (pairs) => {
				const links = new EntryLinks(entriesOf(pairs));
				const ids = pairs.map(([key]) => key);
				for (let at = 0; at < pairs.length; at++) {
					const parentId = (pairs[at] as [unknown, unknown])[1];
					expect(links.parentOf(at, parentId)).toBe(lastIndexOf(ids, parentId));
					expect(links.indexOf(parentId)).toBe(lastIndexOf(ids, parentId));
				}
			}),
		);
	});

	it("should find a chain's parents without a map only where its ids are distinct", () => {
		const chain = new EntryLinks(
			entriesOf([
				["a", null],
				["b", "a"],
				["c", "b"],
			]),
		);
		expect(chain.distinct).toBe(true);
		expect(chain.parentOf(2, "b")).toBe(1);
		const repeated = new EntryLinks(
			entriesOf([
				["a", null],
				["b", "a"],
				["a", "b"],
			]),
		);
		expect(repeated.distinct).toBe(false);
		expect(repeated.parentOf(1, "a")).toBe(2);
	});
});
