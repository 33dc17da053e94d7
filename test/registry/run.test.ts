/**
 * `registry.run` / `registry.runAsync`: the conversion's output with its problems, for application
 * paths that decide what to send (the pi extension, the CLI): the same output as `convert`, every
 * problem collected (never thrown or emitted), and `failed` when the conversion failed closed.
 */
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { describe, expect, it } from "vitest";
import { AsyncHookInSyncConvertError, ErrorCode } from "../../src/index.js";
import { createDefaultRegistry } from "../../src/preset.js";
import { collectErrors, T0, user } from "../support/fixtures.js";

const history = (): AgentMessage[] => [
	user("hello"),
	{ role: "mystery", timestamp: T0 } as unknown as AgentMessage,
	user("bye"),
];

describe("registry.run", () => {
	it("should return what convert returns, with the problems a lenient convert emits", () => {
		const registry = createDefaultRegistry();
		const emitted = collectErrors(registry);
		const expected = registry.convert(history());
		const codes = emitted.map((error) => error.code);
		emitted.length = 0;

		const result = registry.run(history());

		expect(result.output).toEqual(expected);
		expect(result.problems.map((error) => error.code)).toEqual(codes);
		expect(codes).toEqual([ErrorCode.UNKNOWN_ROLE]);
		expect(result.failed).toBe(false);
		// Collected, not emitted.
		expect(emitted).toEqual([]);
	});

	it("should collect, not throw, what a strict convert throws", () => {
		const registry = createDefaultRegistry({ strict: true });
		expect(() => registry.convert(history())).toThrow();

		const result = registry.run(history());

		expect(result.output.map((m) => m.role)).toEqual(["user", "user"]);
		expect(result.problems).toHaveLength(1);
		expect(result.problems[0]?.role).toBe("mystery");
		expect(result.failed).toBe(false);
	});

	it("should say failed, with the cause, when something no guard catches throws (an interceptor)", () => {
		const registry = createDefaultRegistry();
		registry.hooks.afterConvert.intercept({
			call: () => {
				throw new Error("interceptor boom");
			},
		});
		registry.hooks.afterConvert.tap("noop", (messages) => messages);

		const result = registry.run([user("secret")]);

		expect(result.failed).toBe(true);
		expect(result.output).toEqual([]);
		expect(result.problems.at(-1)?.message).toContain("interceptor boom");
	});

	it("should refuse async taps in the sync run", () => {
		const registry = createDefaultRegistry();
		registry.hooks.afterConvertAsync.tapPromise("slow", async (messages) => messages);

		expect(() => registry.run([user("hi")])).toThrow(AsyncHookInSyncConvertError);
	});
});

describe("registry.runAsync", () => {
	it("should include the afterConvertAsync taps and their problems", async () => {
		const registry = createDefaultRegistry();
		registry.hooks.afterConvertAsync.tapPromise("shout", async (messages) =>
			messages.map((m) => (m.role === "user" ? { ...m, content: "HI" } : m)),
		);
		registry.hooks.afterConvertAsync.tapPromise("broken", async () => {
			throw new Error("tap boom");
		});

		const result = await registry.runAsync([user("hi")]);

		expect(result.output).toEqual([{ role: "user", content: "HI", timestamp: T0 }]);
		expect(result.problems.map((error) => error.plugin)).toEqual(["broken"]);
		expect(result.failed).toBe(false);
	});

	it("should say failed when an async tap does not settle in time", async () => {
		const registry = createDefaultRegistry({ asyncTimeoutMs: 5 });
		registry.hooks.afterConvertAsync.tapPromise("stuck", () => new Promise(() => {}));

		const result = await registry.runAsync([user("hi")]);

		expect(result.failed).toBe(true);
		expect(result.output).toEqual([]);
		expect(result.problems.map((error) => error.code)).toEqual([ErrorCode.ASYNC_HOOK_TIMEOUT]);
	});
});
