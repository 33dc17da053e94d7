import type { Message } from "@earendil-works/pi-ai";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Copier } from "../../src/registry/isolate.js";

/** Every object reachable from `value` through own keys, symbols included. */
function reachable(value: unknown, into = new Set<object>()): Set<object> {
	if (value === null || typeof value !== "object" || into.has(value)) return into;
	into.add(value);
	for (const key of Reflect.ownKeys(value)) reachable((value as Record<PropertyKey, unknown>)[key], into);
	return into;
}

const TAG = Symbol("tag");

/** JSON values, some as null-prototype objects or with a symbol key, as plugins may add. */
const arbLeaf = fc.jsonValue({ maxDepth: 3 });
const arbOdd = fc.oneof(
	arbLeaf,
	fc.dictionary(fc.string(), arbLeaf, { maxKeys: 4 }).map((entries) => Object.assign(Object.create(null), entries)),
	arbLeaf.map((value) => ({ kept: 1, [TAG]: { value } })),
);

/**
 * A message whose content blocks and fields draw on one pool of objects, so that one object is
 * reached from several places (as pi shares `usage` between replies), sometimes nested deeper than a
 * tree copy goes before it switches to a copy with a map.
 */
const arbMessage: fc.Arbitrary<Message> = fc
	.record({
		pool: fc.array(arbOdd, { minLength: 1, maxLength: 5 }),
		picks: fc.array(fc.nat(), { maxLength: 8 }),
		depth: fc.oneof(fc.constant(0), fc.integer({ min: 90, max: 130 })),
		text: fc.string(),
		proto: fc.boolean(),
	})
	.map(({ pool, picks, depth, text, proto }) => {
		const pick = (k: number) => pool[k % pool.length];
		let deep: unknown = { type: "text", text };
		for (let i = 0; i < depth; i++) deep = { next: deep };
		const content = picks.map((k) => ({ type: "text", text, extra: pick(k) }));
		const message: Record<string, unknown> = {
			role: "user",
			content: [...content, { type: "text", text, deep }],
			details: { shared: pick(0), again: pick(0), list: picks.map(pick) },
			timestamp: 1,
		};
		// An own "__proto__" key, as JSON.parse makes one.
		if (proto) Object.defineProperty(message, "__proto__", { value: pick(1), enumerable: true, writable: true });
		return message as unknown as Message;
	});

describe("Copier", () => {
	it("should copy a message to one that deep-equals it and shares no object with it", () => {
		fc.assert(
			fc.property(arbMessage, (message) => {
				const copy = new Copier().copyMessage(message);
				expect(copy).toStrictEqual(message);
				const inputObjects = reachable(message);
				for (const object of reachable(copy)) expect(inputObjects.has(object)).toBe(false);
			}),
			{ numRuns: 300 },
		);
	});

	it("should share no object between the messages it copies and their inputs, across one conversion", () => {
		fc.assert(
			fc.property(fc.array(arbMessage, { minLength: 1, maxLength: 4 }), (messages) => {
				const copier = new Copier();
				const copies = messages.map((message) => copier.copyMessage(message));
				expect(copies).toStrictEqual(messages);
				const inputObjects = reachable(messages);
				for (const object of reachable(copies)) expect(inputObjects.has(object)).toBe(false);
				expect(copier.leftOut).toBe(0);
			}),
			{ numRuns: 300 },
		);
	});

	it("should copy symbol keys and null prototypes at every depth", () => {
		const inner = { secret: true };
		const bare = Object.assign(Object.create(null), { a: { b: 1 } });
		const message = {
			role: "user",
			content: [{ type: "text", text: "x", [TAG]: inner }],
			details: { deeper: { [TAG]: inner, bare } },
			timestamp: 1,
		} as unknown as Message;

		const copy = new Copier().copyMessage(message) as unknown as {
			content: Record<PropertyKey, unknown>[];
			details: { deeper: Record<PropertyKey, unknown> };
		};

		expect(copy.content[0]?.[TAG]).toEqual(inner);
		expect(copy.content[0]?.[TAG]).not.toBe(inner);
		expect(copy.details.deeper[TAG]).not.toBe(inner);
		expect(Object.getPrototypeOf(copy.details.deeper.bare)).toBe(null);
		expect(copy.details.deeper.bare).not.toBe(bare);
	});

	it("should copy arrays of any length index by index, holes as undefined", () => {
		for (const length of [0, 1, 2, 3, 40]) {
			const items = Array.from({ length }, (_, k) => ({ type: "text", text: String(k) }));
			const message = { role: "user", content: items, timestamp: 1 } as unknown as Message;
			const copy = new Copier().copyMessage(message);
			expect(copy.content).toEqual(items);
			expect(copy.content).not.toBe(items);
			if (length > 0) expect((copy.content as unknown[])[0]).not.toBe(items[0]);
		}
	});
});
