import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { Message } from "@earendil-works/pi-ai";
import { describe, expect, it } from "vitest";
import { blockImages } from "../../src/hooks/index.js";
import { createRegistry } from "../../src/index.js";
import { createDefaultRegistry } from "../../src/preset.js";
import { assistant } from "../support/fixtures.js";

const history = (): AgentMessage[] => [
	{ role: "user", content: [{ type: "text", text: "hi" }], timestamp: 1 },
	assistant([{ type: "toolCall", id: "c1", name: "bash", arguments: { command: "ls", nested: { deep: [1, 2] } } }], {
		model: "m",
		timestamp: 2,
	}),
	{
		role: "toolResult",
		toolCallId: "c1",
		toolName: "bash",
		content: [{ type: "text", text: "a.txt" }],
		details: { exit: 0 },
		isError: false,
		timestamp: 3,
	},
	{
		role: "custom",
		customType: "x",
		content: [{ type: "image", data: "aGk=", mimeType: "image/png" }],
		display: true,
		timestamp: 4,
	},
];

/** Every object reachable from `value`. */
function objectsOf(value: unknown, into = new Set<object>()): Set<object> {
	if (value !== null && typeof value === "object" && !into.has(value)) {
		into.add(value);
		for (const item of Object.values(value)) objectsOf(item, into);
	}
	return into;
}

describe("createRegistry({ isolate })", () => {
	it("should share no object with the input and still deep-equal the default output", () => {
		const input = history();
		const isolated = createDefaultRegistry({ isolate: true }).convert(input);
		expect(isolated).toEqual(createDefaultRegistry().convert(input));
		const inputObjects = objectsOf(input);
		const shared = [...objectsOf(isolated)].filter((o) => inputObjects.has(o));
		expect(shared).toEqual([]);
	});

	it("should share objects without isolate, as pi does", () => {
		const input = history();
		const output = createDefaultRegistry().convert(input);
		expect(output[0]).toBe(input[0]);
		expect(output[3]?.content).toBe((input[3] as { content: unknown }).content);
	});

	it("should keep the stored history intact when the output is mutated", () => {
		const input = history();
		const before = structuredClone(input);
		const output = createDefaultRegistry({ isolate: true }).use(blockImages()).convert(input);
		for (const message of output) {
			(message as { timestamp: number }).timestamp = -1;
			if (Array.isArray(message.content)) message.content.length = 0;
		}
		expect(input).toEqual(before);
	});

	it("should copy what a custom converter returns from the input too", () => {
		const shared: Message = { role: "user", content: [{ type: "text", text: "same" }], timestamp: 1 };
		const registry = createRegistry({ isolate: true }).register("custom", () => shared, { name: "constant" });
		const [output] = registry.convert([
			{ role: "custom", customType: "x", content: "", display: false, timestamp: 1 },
		]);
		expect(output).toEqual(shared);
		expect(output).not.toBe(shared);
		expect(output?.content).not.toBe(shared.content);
	});

	it("should keep an own __proto__ key as data", () => {
		const parsed = JSON.parse(
			'{"role":"user","content":"x","timestamp":1,"__proto__":{"polluted":true}}',
		) as AgentMessage;
		const [output] = createDefaultRegistry({ isolate: true }).convert([parsed]);
		expect(Object.getPrototypeOf(output)).toBe(Object.prototype);
		expect(Object.hasOwn(output as object, "__proto__")).toBe(true);
		expect((output as { polluted?: unknown }).polluted).toBeUndefined();
	});
});

/** `count` user messages, each with a text block of its own. */
const users = (count: number): AgentMessage[] =>
	Array.from({ length: count }, (_, i) => ({
		role: "user",
		content: [{ type: "text", text: `m${i}` }],
		timestamp: i,
	}));

/** An isolating registry whose `afterConvert` tap `change` runs after a tap that records the copies it was given. */
function tapped(change: (messages: Message[]) => Message[]) {
	const registry = createDefaultRegistry({ isolate: true });
	const seen: { copies: Message[] } = { copies: [] };
	registry.hooks.afterConvert.tap({ name: "record", stage: -100 }, (messages) => {
		seen.copies = messages.slice();
		return messages;
	});
	registry.hooks.afterConvert.tap("change", change);
	return { registry, seen };
}

describe("createRegistry({ isolate }) with no tap", () => {
	const TAG = Symbol("tag");
	const frozen = (value: object): object => {
		for (const item of Object.values(value)) if (item !== null && typeof item === "object") frozen(item);
		return Object.freeze(value);
	};
	const shared = { deep: [1] };
	it.each([
		["deep-frozen", () => frozen(structuredClone(history()[1] as object))],
		["null-prototype", () => Object.assign(Object.create(null), history()[0])],
		["symbol-keyed", () => ({ ...history()[0], [TAG]: { secret: true } })],
		[
			"accessor",
			() => ({
				role: "user",
				get content() {
					return [{ type: "text", text: "got" }];
				},
				timestamp: 1,
			}),
		],
		[
			"twice-met",
			() => ({ role: "user", content: [{ type: "text", text: "a", a: shared, b: shared }], timestamp: 1 }),
		],
	])("should copy a message (%s) to one that equals it and shares nothing with it", (_, make) => {
		const message = make() as AgentMessage;
		const [output] = createDefaultRegistry({ isolate: true }).convert([message]);
		expect(output).toStrictEqual(message);
		const inputObjects = objectsOf(message);
		for (const object of objectsOf(output)) expect(inputObjects.has(object)).toBe(false);
		if (TAG in message)
			expect((output as unknown as Record<symbol, unknown>)[TAG]).not.toBe(
				(message as unknown as Record<symbol, unknown>)[TAG],
			);
	});
});

describe("createRegistry({ isolate }) after the taps", () => {
	it.each([
		["reversed", (m: Message[]) => [...m].reverse()],
		["with entries dropped", (m: Message[]) => m.filter((_, i) => i % 3 !== 0)],
		["with entries replaced", (m: Message[]) => m.map((x, i) => (i % 5 === 0 ? { ...x } : x))],
		["with entries inserted", (m: Message[]) => m.flatMap((x, i) => (i % 7 === 0 ? [{ ...x }, x] : [x]))],
		["with entries duplicated", (m: Message[]) => m.flatMap((x) => [x, x])],
	])("should share nothing with the input when the output is %s", (_, change) => {
		const input = users(300);
		const { registry } = tapped(change);
		const expected = change(createDefaultRegistry().convert(input));

		const output = registry.convert(input);

		expect(output).toEqual(expected);
		const inputObjects = objectsOf(input);
		for (const object of objectsOf(output)) expect(inputObjects.has(object)).toBe(false);
	});

	it("should keep the copies a tap left in order, around entries it dropped or replaced", () => {
		const { registry, seen } = tapped((m) => m.filter((_, i) => i % 4 !== 1).map((x, i) => (i === 2 ? { ...x } : x)));

		const output = registry.convert(users(12));

		const kept = output.filter((message) => seen.copies.includes(message));
		expect(output).toHaveLength(9);
		expect(kept).toHaveLength(8);
		expect(output[2]).not.toBe(seen.copies[3]);
	});

	it("should keep the copies a tap reordered, once too many to copy again", () => {
		const { registry, seen } = tapped((m) => [...m].reverse());

		const output = registry.convert(users(2000));

		expect(output.filter((message) => seen.copies.includes(message)).length).toBeGreaterThan(1500);
	});
});
