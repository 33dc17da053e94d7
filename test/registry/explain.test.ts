import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { Message } from "@earendil-works/pi-ai";
import { describe, expect, it } from "vitest";
import { BLOCK_IMAGES_PLUGIN, blockImages } from "../../src/hooks/index.js";
import {
	AsyncHookInSyncConvertError,
	ConversionError,
	type ConvertToLlmError,
	createRegistry,
	InvalidMessageError,
	UnknownRoleError,
} from "../../src/index.js";
import { createDefaultRegistry } from "../../src/preset.js";
import { bashExecution } from "../support/fixtures.js";

const image = { type: "image" as const, data: "aGk=", mimeType: "image/png" };
const user = (content: string, timestamp = 1): AgentMessage => ({ role: "user", content, timestamp });
const bash = (excludeFromContext: boolean): AgentMessage => bashExecution({ timestamp: 2, excludeFromContext });

describe("registry.explain", () => {
	it("should return exactly what convert returns", () => {
		const registry = createDefaultRegistry().use(blockImages());
		const history: AgentMessage[] = [
			user("hi"),
			bash(false),
			bash(true),
			{ role: "user", content: [{ type: "text", text: "see" }, image], timestamp: 3 },
		];
		expect(registry.explain(history).output).toEqual(registry.convert(history));
	});

	it("should name the plugin that converted each message and the outputs it became", () => {
		const registry = createDefaultRegistry();
		registry.register(
			"custom",
			(m) => [
				{ role: "user", content: `first ${m.customType}`, timestamp: m.timestamp },
				{ role: "user", content: "second", timestamp: m.timestamp },
			],
			{ name: "split-notes", customType: "note" },
		);
		const history: AgentMessage[] = [
			user("hi"),
			{ role: "custom", customType: "note", content: "x", display: true, timestamp: 5 },
			user("bye"),
		];
		const { messages } = registry.explain(history);
		expect(messages.map((m) => [m.index, m.role, m.plugin, m.outputs, m.dropped])).toEqual([
			[0, "user", "convert-to-llm:model-roles", [0], undefined],
			[1, "custom", "split-notes", [1, 2], undefined],
			[2, "user", "convert-to-llm:model-roles", [3], undefined],
		]);
		expect(messages[1]?.customType).toBe("note");
	});

	it.each([
		["an excluded bash run (!!)", bash(true), "excluded", "convert-to-llm:bash-execution", undefined],
		["an unknown role", { role: "constructor", timestamp: 1 }, "unknown-role", undefined, UnknownRoleError],
		["a malformed entry", null, "invalid-message", undefined, InvalidMessageError],
		["a number", 42, "invalid-message", undefined, InvalidMessageError],
	])("should say why %s was dropped", (_name, message, reason, plugin, errorClass) => {
		const registry = createDefaultRegistry();
		const [entry] = registry.explain([message as AgentMessage]).messages;
		expect(entry?.dropped).toBe(reason);
		expect(entry?.plugin).toBe(plugin);
		expect(entry?.outputs).toEqual([]);
		if (errorClass === undefined) expect(entry?.errors).toEqual([]);
		else expect(entry?.errors[0]).toBeInstanceOf(errorClass);
	});

	it("should report a converter fault and the fallback that took over", () => {
		const registry = createDefaultRegistry();
		registry.register(
			"user",
			() => {
				throw new Error("boom");
			},
			{ name: "faulty", override: true },
		);
		const [entry] = registry.explain([user("hi")]).messages;
		expect(entry?.plugin).toBe("convert-to-llm:model-roles");
		expect(entry?.outputs).toEqual([0]);
		expect(entry?.errors).toHaveLength(1);
		expect(entry?.errors[0]).toBeInstanceOf(ConversionError);
		expect(entry?.errors[0]?.plugin).toBe("faulty");
	});

	it("should say converter-failed when every converter of the role failed", () => {
		const registry = createRegistry().register(
			"user",
			() => {
				throw new Error("boom");
			},
			{ name: "only" },
		);
		const [entry] = registry.explain([user("hi")]).messages;
		expect(entry?.dropped).toBe("converter-failed");
		expect(entry?.errors.map((e) => e.plugin)).toEqual(["only"]);
	});

	it("should never throw on bad input, even on a strict registry", () => {
		const registry = createDefaultRegistry({ strict: true });
		const explanation = registry.explain([null, { role: "nope" }] as unknown as AgentMessage[]);
		expect(explanation.errors.map((e) => e.constructor)).toEqual([InvalidMessageError, UnknownRoleError]);
		expect(() => registry.convert([null] as unknown as AgentMessage[])).toThrow(InvalidMessageError);
		const notArray = registry.explain("nope" as unknown as AgentMessage[]);
		expect(notArray.output).toEqual([]);
		expect(notArray.errors[0]).toBeInstanceOf(InvalidMessageError);
	});

	it("should tell which post-conversion taps changed, removed or added outputs", () => {
		const registry = createDefaultRegistry().use(blockImages());
		registry.hooks.afterConvert.tap("drop-bye", (messages) => messages.filter((m) => m.content !== "bye"));
		registry.hooks.afterConvert.tap({ name: "add-note", stage: 500 }, (messages) => [
			...messages,
			{ role: "user", content: "note", timestamp: 9 },
		]);
		const history: AgentMessage[] = [
			{ role: "user", content: [{ type: "text", text: "see" }, image], timestamp: 3 },
			user("bye"),
			user("stay"),
		];
		const explanation = registry.explain(history);
		expect(explanation.taps).toEqual([
			{ hook: "afterConvert", plugin: "drop-bye", changed: [], removed: 1, added: 0 },
			{ hook: "afterConvert", plugin: BLOCK_IMAGES_PLUGIN, changed: [0], removed: 0, added: 0 },
			{ hook: "afterConvert", plugin: "add-note", changed: [2], removed: 0, added: 1 },
		]);
		const [blocked, bye, stay] = explanation.messages;
		expect(blocked?.outputs).toEqual([0]);
		expect(bye?.dropped).toBe("filtered");
		expect(bye?.droppedBy).toBe("drop-bye");
		expect(stay?.outputs).toEqual([1]);
		expect(explanation.output).toEqual(registry.convert(history));
	});

	it("should collect a faulty tap's error instead of reporting it on hooks.error", () => {
		const registry = createDefaultRegistry();
		const reported: unknown[] = [];
		registry.hooks.error.tap("collect", (error) => {
			reported.push(error);
		});
		registry.hooks.afterConvert.tap("faulty-filter", () => {
			throw new Error("bad filter");
		});
		const explanation = registry.explain([user("hi")]);
		expect(explanation.output).toEqual([{ role: "user", content: "hi", timestamp: 1 }]);
		expect(explanation.errors.map((e) => e.plugin)).toEqual(["faulty-filter"]);
		expect(reported).toEqual([]);
	});

	it("should refuse a registry with afterConvertAsync taps, and explainAsync should run them", async () => {
		const registry = createDefaultRegistry();
		registry.hooks.afterConvertAsync.tapPromise("async-redact", async (messages) =>
			messages.map((m): Message => (m.role === "user" ? { ...m, content: "[redacted]" } : m)),
		);
		expect(() => registry.explain([user("secret")])).toThrow(AsyncHookInSyncConvertError);
		const explanation = await registry.explainAsync([user("secret")]);
		expect(explanation.output).toEqual([{ role: "user", content: "[redacted]", timestamp: 1 }]);
		expect(explanation.taps).toEqual([
			{ hook: "afterConvertAsync", plugin: "async-redact", changed: [0], removed: 0, added: 0 },
		]);
	});

	it("should run beforeConvert and explain indices of its result", () => {
		const registry = createDefaultRegistry();
		registry.hooks.beforeConvert.tap("drop-first", (messages) => messages.slice(1));
		const explanation = registry.explain([user("a"), user("b")]);
		expect(explanation.messages.map((m) => m.index)).toEqual([0]);
		expect(explanation.output).toEqual([{ role: "user", content: "b", timestamp: 1 }]);
	});
});

describe("registry.trackSources", () => {
	it("should let afterConvert taps find the input index and plugin of each output", () => {
		const registry = createDefaultRegistry().use(blockImages()).trackSources();
		const seen: unknown[] = [];
		registry.hooks.afterConvert.tap({ name: "inspect", stage: 1000 }, (messages, ctx) => {
			for (const message of messages) seen.push(ctx.sourceOf(message));
			return undefined;
		});
		registry.convert([bash(true), { role: "user", content: [image], timestamp: 3 }, bash(false)]);
		expect(seen).toEqual([
			{ index: 1, plugin: "convert-to-llm:model-roles" },
			{ index: 2, plugin: "convert-to-llm:bash-execution" },
		]);
	});

	it("should answer undefined while tracking is off", () => {
		const registry = createDefaultRegistry();
		let source: unknown = "unset";
		registry.hooks.afterConvert.tap("inspect", (messages, ctx) => {
			source = ctx.sourceOf(messages[0] as Message);
			return undefined;
		});
		registry.convert([user("hi")]);
		expect(source).toBeUndefined();
	});
});

describe("registry.explain on hostile input", () => {
	it("should report, not throw, when an entry's role getter throws or the input is a revoked proxy", () => {
		const registry = createDefaultRegistry();
		const hostile = {
			get role(): string {
				throw new Error("boom");
			},
		};
		const explanation = registry.explain([user("a"), hostile, user("b")] as unknown as AgentMessage[]);
		expect(explanation.output).toEqual(registry.convert([user("a"), user("b")]));
		expect(explanation.messages[1]?.role).toBeUndefined();
		expect(explanation.messages[1]?.errors[0]?.index).toBe(1);
		const { proxy, revoke } = Proxy.revocable([] as AgentMessage[], {});
		revoke();
		const revoked = registry.explain(proxy);
		expect(revoked.output).toEqual([]);
		expect(revoked.errors[0]).toBeInstanceOf(ConversionError);
		expect(registry.convert(proxy)).toEqual([]);
	});

	it("should give converters the registry's strict flag, as convert does", () => {
		const registry = createRegistry({ strict: true }).register("user", (m, ctx) => (ctx.strict ? m : null), {
			name: "strict-only",
		});
		expect(registry.explain([user("a")]).output).toEqual(registry.convert([user("a")]));
	});

	it("should follow messages a tap reorders", () => {
		const registry = createDefaultRegistry();
		registry.hooks.afterConvert.tap("reverse", (messages) => [...messages].reverse());
		const explanation = registry.explain([user("first"), user("second")]);
		expect(explanation.output.map((m) => m.content)).toEqual(["second", "first"]);
		expect(explanation.messages.map((m) => m.outputs)).toEqual([[1], [0]]);
	});

	it("should survive a thrown value with no string form", () => {
		const registry = createDefaultRegistry();
		const reported: ConvertToLlmError[] = [];
		registry.hooks.error.tap("collect", (error) => {
			reported.push(error);
		});
		registry.hooks.afterConvert.tap("weird", () => {
			throw Object.create(null);
		});
		registry.register(
			"custom",
			() => {
				throw Object.create(null);
			},
			{ name: "weird-type", customType: "todo" },
		);
		const history: AgentMessage[] = [
			user("hi"),
			{ role: "custom", customType: "todo", content: "x", display: true, timestamp: 2 },
		];
		const output = registry.convert(history);
		expect(output).toHaveLength(2);
		expect(reported.map((e) => e.plugin)).toEqual(["weird-type", "weird"]);
		expect(registry.explain(history).output).toEqual(output);
	});
});
