/**
 * `registry.sanitize()`: a per-message stage that is an `afterConvert` tap (named, staged, listed by
 * `explain`) and is applied inside the loop when nothing before it can change the output.
 */
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { Message } from "@earendil-works/pi-ai";
import { describe, expect, it } from "vitest";
import { InvalidPluginError, type Sanitizer, Stage } from "../../src/index.js";
import { createDefaultRegistry } from "../../src/preset.js";
import { assistant, user } from "../support/fixtures.js";

const noThinking: Sanitizer = {
	name: "no-thinking",
	prepare: () => (message) =>
		message.role === "assistant" && message.content.some((b) => b.type === "thinking")
			? { ...message, content: message.content.filter((b) => b.type !== "thinking") }
			: message,
};
const thinking = () =>
	assistant(
		[
			{ type: "thinking", thinking: "hmm" },
			{ type: "text", text: "hi" },
		],
		{ timestamp: 2 },
	) as Message;

describe("registry.sanitize", () => {
	it("should apply a sanitizer to every output, fused or as a tap, with the same result", () => {
		const history = [user("a"), thinking(), user("b")] as AgentMessage[];
		const fused = createDefaultRegistry().sanitize(noThinking);
		const tapped = createDefaultRegistry().sanitize(noThinking);
		tapped.hooks.afterConvert.intercept({});
		const output = fused.convert(history);
		expect(output[1]?.content).toEqual([{ type: "text", text: "hi" }]);
		expect(output[0]).toBe(history[0]);
		expect(tapped.convert(history)).toStrictEqual(output);
	});

	it("should be an afterConvert tap: named, at its stage, listed by explain", () => {
		const registry = createDefaultRegistry().sanitize({ ...noThinking, stage: Stage.VERIFY });
		const seen: Message[][] = [];
		registry.hooks.afterConvert.tap("before-it", (messages) => {
			seen.push(messages);
			return [...messages, thinking()];
		});
		const output = registry.convert([user("a")]);
		expect(registry.hooks.afterConvert.taps.map((t) => t.name)).toEqual(["before-it", "no-thinking"]);
		expect(output).toHaveLength(2);
		expect(output[1]?.content).toEqual([{ type: "text", text: "hi" }]);
		expect(registry.explain([user("a")]).taps.map((t) => [t.plugin, t.changed])).toEqual([
			["before-it", [1]],
			["no-thinking", [1]],
		]);
	});

	it("should skip a conversion when prepare returns undefined, and call prepare on every conversion", () => {
		let prepared = 0;
		const registry = createDefaultRegistry().sanitize({
			name: "off",
			prepare: () => {
				prepared++;
				return undefined;
			},
		});
		const history = [thinking()] as AgentMessage[];
		expect(registry.convert(history)[0]).toBe(history[0]);
		registry.convert(history);
		expect(prepared).toBe(2);
	});

	it("should ask a sanitizer with roles only about messages of those roles, fused or as a tap", () => {
		const history = [user("a"), thinking(), user("b")] as AgentMessage[];
		const make = () => {
			const asked: [string, number][] = [];
			const registry = createDefaultRegistry().sanitize({
				name: "users-only",
				roles: ["user"],
				prepare: () => (message, position) => {
					asked.push([message.role, position]);
					return message.role === "user" ? { ...message, timestamp: 9 } : message;
				},
			});
			return { registry, asked };
		};
		const fused = make();
		const tapped = make();
		tapped.registry.hooks.afterConvert.intercept({});
		const output = fused.registry.convert(history);
		expect(output.map((m) => m.timestamp)).toEqual([9, 2, 9]);
		expect(output[1]).toBe(history[1]);
		// Asked at the positions the tap sees, never about the assistant message.
		expect(fused.asked).toEqual([
			["user", 0],
			["user", 2],
		]);
		expect(tapped.registry.convert(history)).toStrictEqual(output);
		expect(tapped.asked).toEqual(fused.asked);
	});

	it("should not ask a sanitizer with roles about a converter's result of another role, fused or as a tap", () => {
		const make = () => {
			const asked: string[] = [];
			const registry = createDefaultRegistry().sanitize({
				name: "users-only",
				roles: ["user"],
				prepare: () => (message) => {
					asked.push(message.role);
					return message;
				},
			});
			registry.register("custom", () => [user("a") as Message, thinking()], { name: "two", customType: "two" });
			return { registry, asked };
		};
		const history = [
			{ role: "custom", customType: "two", content: "x", display: true, timestamp: 1 },
		] as AgentMessage[];
		const fused = make();
		const tapped = make();
		tapped.registry.hooks.afterConvert.intercept({});
		expect(fused.registry.convert(history)).toStrictEqual(tapped.registry.convert(history));
		expect(fused.asked).toEqual(["user"]);
		expect(tapped.asked).toEqual(["user"]);
	});

	it("should leave a sanitizer's undefined (not a message) to the final check after a later tap", () => {
		const registry = createDefaultRegistry().sanitize({
			name: "broken",
			prepare: () => (message) => (message.timestamp === 2 ? (undefined as never) : message),
		});
		registry.hooks.afterConvert.tap({ name: "later", stage: Stage.VERIFY }, (messages) => messages);
		const errors: string[] = [];
		registry.hooks.error.tap("collect", (error) => {
			errors.push(error.message);
		});
		expect(registry.convert([user("a"), thinking(), user("b")] as AgentMessage[])).toHaveLength(2);
		expect(errors).toHaveLength(1);
		expect(errors[0]).toMatch(/Output entry 1 is undefined/);
	});

	it("should read a sanitizer's fields once, when it is added", () => {
		const roles: string[] = ["user"];
		const registry = createDefaultRegistry().sanitize({
			name: "late-change",
			roles: roles as never,
			prepare: () => (message) => ({ ...message, timestamp: 9 }),
		});
		roles.push("assistant");
		expect(registry.convert([user("a"), thinking()] as AgentMessage[]).map((m) => m.timestamp)).toEqual([9, 2]);
	});

	it.each([
		{ roles: ["user", "bashExecution"], says: 'whose entry 1, "bashExecution", is not a model role' },
		{ roles: "user", says: "that are not an array (string)" },
		{ roles: [1], says: "whose entry 0, number, is not a model role" },
		{ roles: new Set(["user"]), says: "that are not an array (a Set)" },
	])("should throw InvalidPluginError naming what is wrong with roles $roles", ({ roles, says }) => {
		const add = () =>
			createDefaultRegistry().sanitize({ name: "x", roles: roles as never, prepare: () => undefined });
		expect(add).toThrow(InvalidPluginError);
		expect(add).toThrow(`was given roles ${says} for sanitizer "x". roles lists the model roles`);
	});

	it.each([null, {}, { name: "", prepare: () => undefined }, { name: "x" }])(
		"should throw InvalidPluginError for %o",
		(bad) => {
			expect(() => createDefaultRegistry().sanitize(bad as unknown as Sanitizer)).toThrow(InvalidPluginError);
		},
	);
});
