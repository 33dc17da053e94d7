import type { AgentMessage } from "@mariozechner/pi-agent-core";
import type { Message } from "@mariozechner/pi-ai";
import { describe, expect, it } from "vitest";
import { blockImages } from "../src/hooks/index.js";
import { createRegistry } from "../src/index.js";
import { createDefaultRegistry } from "../src/preset.js";
import { assistant } from "./support/fixtures.js";

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
