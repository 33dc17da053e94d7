/**
 * The hooks around conversion: `beforeConvert` (AgentMessage waterfall), `afterConvert` (sync
 * waterfall, run by `convert` and `convertAsync`), `afterConvertAsync` (async waterfall, run by
 * `convertAsync` only) and `error`, with faulty taps contained in lenient mode and thrown in strict.
 */
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { Message } from "@earendil-works/pi-ai";
import { describe, expect, it } from "vitest";
import {
	AsyncHookInSyncConvertError,
	type BashExecutionMessage,
	ConversionError,
	ConvertToLlmError,
	createRegistry,
	ErrorCode,
	type HookContext,
	InvalidMessageError,
	modelRoles,
	type Registry,
	Stage,
	UnknownRoleError,
} from "../../src/index.js";
import { createDefaultRegistry } from "../../src/preset.js";
import { bashExecution, collectErrors, MODES, thrownBy, user, userTexts } from "../support/fixtures.js";

const bash = (command: string): BashExecutionMessage => bashExecution({ command, output: "" });

function registryFor(strict: boolean): Registry {
	return createRegistry({ strict }).use(modelRoles);
}

const delay = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The three ways to tap an `AsyncSeriesWaterfallHook`, each adding `suffix` to the output. */
const asyncTapKinds = [
	{
		kind: "tapPromise",
		add: (registry: Registry, name: string, fn: (messages: Message[]) => Message[]) =>
			registry.hooks.afterConvertAsync.tapPromise(name, async (messages) => {
				await delay();
				return fn(messages);
			}),
	},
	{
		kind: "tapAsync",
		add: (registry: Registry, name: string, fn: (messages: Message[]) => Message[]) =>
			registry.hooks.afterConvertAsync.tapAsync(name, (messages, _ctx, callback) => {
				setImmediate(() => callback(null, fn(messages)));
			}),
	},
	{
		kind: "tap",
		add: (registry: Registry, name: string, fn: (messages: Message[]) => Message[]) =>
			registry.hooks.afterConvertAsync.tap(name, (messages) => fn(messages)),
	},
] as const;

/** Faulty afterConvertAsync taps of each kind, and what the reported error's message must mention. */
const faultyAsyncTaps: {
	fault: string;
	add: (registry: Registry) => void;
	detail: RegExp;
}[] = [
	{
		fault: "a tapPromise tap that rejects",
		add: (r) =>
			r.hooks.afterConvertAsync.tapPromise("rejecter", async () => Promise.reject(new Error("vault offline"))),
		detail: /vault offline/,
	},
	{
		fault: "a tapPromise tap that throws before returning a promise",
		add: (r) =>
			r.hooks.afterConvertAsync.tapPromise("rejecter", () => {
				throw new Error("vault offline");
			}),
		detail: /vault offline/,
	},
	{
		fault: "a tapPromise tap that resolves to a non-array",
		add: (r) => r.hooks.afterConvertAsync.tapPromise("rejecter", async () => "oops" as unknown as Message[]),
		detail: /not an array/,
	},
	{
		fault: "a tapAsync tap that calls back with an error",
		add: (r) =>
			r.hooks.afterConvertAsync.tapAsync("rejecter", (_messages, _ctx, callback) => {
				setImmediate(() => callback(new Error("vault offline")));
			}),
		detail: /vault offline/,
	},
	{
		fault: "a tapAsync tap that throws",
		add: (r) =>
			r.hooks.afterConvertAsync.tapAsync("rejecter", () => {
				throw new Error("vault offline");
			}),
		detail: /vault offline/,
	},
	{
		fault: "a tapAsync tap that calls back with a non-array",
		add: (r) =>
			r.hooks.afterConvertAsync.tapAsync("rejecter", (_messages, _ctx, callback) => {
				callback(null, { messages: [] } as unknown as Message[]);
			}),
		detail: /not an array/,
	},
	{
		fault: "a sync tap that throws",
		add: (r) =>
			r.hooks.afterConvertAsync.tap("rejecter", () => {
				throw new Error("vault offline");
			}),
		detail: /vault offline/,
	},
	{
		fault: "a sync tap that returns a non-array",
		add: (r) => r.hooks.afterConvertAsync.tap("rejecter", () => 42 as unknown as Message[]),
		detail: /not an array/,
	},
];

describe("hooks.beforeConvert", () => {
	it("should let a tap filter the AgentMessage history before conversion", () => {
		const registry = createDefaultRegistry();
		registry.hooks.beforeConvert.tap("drop-bash", (messages) => messages.filter((m) => m.role !== "bashExecution"));

		expect(userTexts(registry.convert([user("a"), bash("ls"), user("b")]))).toEqual(["a", "b"]);
	});

	it("should run taps as a waterfall, in stage order, undefined keeping the history", () => {
		const registry = createDefaultRegistry();
		const seen: number[] = [];
		registry.hooks.beforeConvert.tap("append", (messages) => [...messages, user("appended")]);
		registry.hooks.beforeConvert.tap("observe", (messages) => {
			seen.push(messages.length);
			return undefined;
		});
		registry.hooks.beforeConvert.tap({ name: "first", stage: Stage.EARLY }, (messages) => messages.slice(1));

		expect(userTexts(registry.convert([user("dropped-first"), user("kept")]))).toEqual(["kept", "appended"]);
		expect(seen).toEqual([2]);
	});

	it("should give converters and errors the indices of the history it returns", () => {
		const registry = createRegistry().use(modelRoles);
		const errors = collectErrors(registry);
		const indices: number[] = [];
		registry.register(
			"bashExecution",
			(m, ctx) => {
				indices.push(ctx.index);
				return user(m.command);
			},
			{ name: "bash" },
		);
		const filtered: AgentMessage[] = [bash("x"), { role: "mystery" } as unknown as AgentMessage];
		registry.hooks.beforeConvert.tap("replace", () => filtered);

		const output = registry.convert([user("0"), user("1"), user("2"), user("3")]);

		expect(userTexts(output)).toEqual(["x"]);
		expect(indices).toEqual([0]);
		expect(errors).toHaveLength(1);
		expect(errors[0]).toBeInstanceOf(UnknownRoleError);
		expect(errors[0]?.index).toBe(1);
	});

	it("should give converters the history it returned as ctx.messages", () => {
		const registry = createRegistry();
		const replaced: AgentMessage[] = [bash("only")];
		let seen: readonly unknown[] | undefined;
		registry.register(
			"bashExecution",
			(m, ctx) => {
				seen = ctx.messages;
				return user(m.command);
			},
			{ name: "bash" },
		);
		registry.hooks.beforeConvert.tap("replace", () => replaced);

		registry.convert([bash("a"), bash("b")]);

		expect(seen).toBe(replaced);
	});

	it("should give its taps the given history as ctx.input, and the mode", () => {
		const registry = createRegistry({ strict: true }).use(modelRoles);
		const input = [user("a")];
		let ctx: HookContext | undefined;
		registry.hooks.beforeConvert.tap("observe", (messages, c) => {
			ctx = c;
			expect(messages).toBe(input);
			return undefined;
		});

		registry.convert(input);

		expect(ctx?.input).toBe(input);
		expect(ctx?.strict).toBe(true);
	});

	it("should report malformed entries a tap introduces with their index", () => {
		const registry = createRegistry().use(modelRoles);
		const errors = collectErrors(registry);
		registry.hooks.beforeConvert.tap("sloppy", (messages) => [...messages, null as unknown as AgentMessage]);

		expect(userTexts(registry.convert([user("a")]))).toEqual(["a"]);
		expect(errors.map((e) => [e.constructor, e.index])).toEqual([[InvalidMessageError, 1]]);
	});

	const faults = [
		{
			fault: "throws",
			fn: (): AgentMessage[] => {
				throw new Error("pruner crashed");
			},
			detail: /pruner crashed/,
		},
		{
			fault: "returns a non-array",
			fn: () => ({ messages: [] }) as unknown as AgentMessage[],
			detail: /not an array/,
		},
		{ fault: "returns null", fn: () => null as unknown as AgentMessage[], detail: /not an array/ },
	];
	const faultCases = faults.flatMap((f) => MODES.map(({ mode, strict }) => ({ ...f, mode, strict })));

	it.each(faultCases)("should handle a tap that $fault ($mode)", ({ fn, detail, strict }) => {
		const registry = registryFor(strict);
		const errors = collectErrors(registry);
		registry.hooks.beforeConvert.tap("pruner", fn);
		registry.hooks.beforeConvert.tap("after-pruner", (messages) => [...messages, user("after")]);

		const run = () => registry.convert([user("a")]);

		if (strict) {
			const error = thrownBy(run);
			expect(error).toBeInstanceOf(ConversionError);
			expect(error).toMatchObject({ plugin: "pruner", code: ErrorCode.CONVERSION_FAILED });
			expect((error as Error).message).toMatch(detail);
		} else {
			// Its change is skipped; the following taps and the conversion carry on.
			expect(userTexts(run())).toEqual(["a", "after"]);
			expect(errors).toHaveLength(1);
			expect(errors[0]).toBeInstanceOf(ConversionError);
			expect(errors[0]).toMatchObject({ plugin: "pruner" });
			expect(errors[0]?.message).toMatch(detail);
			expect(errors[0]?.message).toContain("beforeConvert");
		}
	});
});

describe("hooks.afterConvert", () => {
	it.each(["convert", "convertAsync"] as const)("should run in %s", async (method) => {
		const registry = createDefaultRegistry();
		registry.hooks.afterConvert.tap("tail", (messages) => [...messages, user("tail")]);

		const output = await registry[method]([user("a")]);

		expect(userTexts(output)).toEqual(["a", "tail"]);
	});

	it.each(MODES)("should run in both modes ($mode)", ({ strict }) => {
		const registry = registryFor(strict);
		registry.hooks.afterConvert.tap("reverse", (messages) => [...messages].reverse());

		expect(userTexts(registry.convert([user("a"), user("b")]))).toEqual(["b", "a"]);
	});

	it("should run taps as a waterfall in stage order, undefined keeping the output", () => {
		const registry = registryFor(false);
		const order: string[] = [];
		registry.hooks.afterConvert.tap({ name: "verify", stage: Stage.VERIFY }, () => {
			order.push("verify");
			return undefined;
		});
		registry.hooks.afterConvert.tap({ name: "sanitize", stage: Stage.SANITIZE }, (messages) => {
			order.push("sanitize");
			return messages.map((m) => (m.role === "user" ? user(String(m.content).toUpperCase()) : m));
		});
		registry.hooks.afterConvert.tap("transform", (messages) => {
			order.push("transform");
			return [...messages, user("added")];
		});

		expect(userTexts(registry.convert([user("a")]))).toEqual(["A", "ADDED"]);
		expect(order).toEqual(["transform", "sanitize", "verify"]);
	});

	it("should give its taps the history after beforeConvert as ctx.input", () => {
		const registry = registryFor(false);
		const replaced = [user("replaced")];
		let input: readonly unknown[] | undefined;
		registry.hooks.beforeConvert.tap("replace", () => replaced);
		registry.hooks.afterConvert.tap("observe", (_messages, ctx) => {
			input = ctx.input;
			return undefined;
		});

		registry.convert([user("original")]);

		expect(input).toBe(replaced);
	});

	const faults = [
		{
			fault: "throws",
			fn: (): Message[] => {
				throw new Error("filter crashed");
			},
			detail: /filter crashed/,
		},
		{ fault: "returns a non-array", fn: () => "nope" as unknown as Message[], detail: /not an array/ },
		{ fault: "returns an object", fn: () => ({ 0: user("x") }) as unknown as Message[], detail: /not an array/ },
	];
	const faultCases = faults.flatMap((f) => MODES.map(({ mode, strict }) => ({ ...f, mode, strict })));

	it.each(faultCases)("should handle a tap that $fault ($mode)", async ({ fn, detail, strict }) => {
		for (const method of ["convert", "convertAsync"] as const) {
			const registry = registryFor(strict);
			const errors = collectErrors(registry);
			registry.hooks.afterConvert.tap("before-filter", (messages) => [...messages, user("before")]);
			registry.hooks.afterConvert.tap("filter", fn);
			registry.hooks.afterConvert.tap("after-filter", (messages) => [...messages, user("after")]);

			const run = async () => registry[method]([user("a")]);

			if (strict) {
				const error = await run().then(
					() => undefined,
					(e: unknown) => e,
				);
				expect(error).toBeInstanceOf(ConversionError);
				expect(error).toMatchObject({ plugin: "filter", code: ErrorCode.CONVERSION_FAILED });
				expect((error as Error).message).toMatch(detail);
			} else {
				expect(userTexts(await run())).toEqual(["a", "before", "after"]);
				expect(errors).toHaveLength(1);
				expect(errors[0]).toBeInstanceOf(ConversionError);
				expect(errors[0]).toMatchObject({ plugin: "filter" });
				expect(errors[0]?.message).toMatch(detail);
				expect(errors[0]?.message).toContain("afterConvert");
			}
		}
	});

	it("should throw synchronously from convert in strict mode", () => {
		const registry = registryFor(true);
		registry.hooks.afterConvert.tap("filter", () => {
			throw new Error("filter crashed");
		});

		expect(() => registry.convert([user("a")])).toThrow(ConversionError);
	});

	it("should keep the cause of a throwing tap", () => {
		const registry = registryFor(false);
		const errors = collectErrors(registry);
		const cause = new RangeError("too many");
		registry.hooks.afterConvert.tap("filter", () => {
			throw cause;
		});

		registry.convert([user("a")]);

		expect(errors[0]?.cause).toBe(cause);
	});
});

describe("hooks.afterConvertAsync", () => {
	it.each(MODES)("should make the sync convert throw AsyncHookInSyncConvertError ($mode)", ({ strict }) => {
		const registry = registryFor(strict);
		registry.hooks.afterConvertAsync.tapPromise("async-redactor", async (messages) => messages);

		const error = thrownBy(() => registry.convert([user("a")]));

		expect(error).toBeInstanceOf(AsyncHookInSyncConvertError);
		expect(error).toBeInstanceOf(ConvertToLlmError);
		expect(error).toMatchObject({
			name: "AsyncHookInSyncConvertError",
			code: ErrorCode.ASYNC_HOOK_IN_SYNC_CONVERT,
			plugin: "async-redactor",
		});
		expect((error as Error).message).toContain("convertAsync");
		expect((error as Error).message).toContain('"async-redactor"');
	});

	it("should throw AsyncHookInSyncConvertError even for a sync tap on afterConvertAsync", () => {
		const registry = registryFor(false);
		registry.hooks.afterConvertAsync.tap("sync-on-async", (messages) => messages);

		expect(() => registry.convert([user("a")])).toThrow(AsyncHookInSyncConvertError);
	});

	it("should throw AsyncHookInSyncConvertError before converting anything", () => {
		const registry = registryFor(false);
		let converted = 0;
		registry.register(
			"bashExecution",
			() => {
				converted++;
				return null;
			},
			{ name: "bash" },
		);
		registry.hooks.afterConvertAsync.tapPromise("redactor", async (messages) => messages);

		expect(() => registry.convert([bash("ls")])).toThrow(AsyncHookInSyncConvertError);
		expect(converted).toBe(0);
	});

	it.each(asyncTapKinds)("should be run by convertAsync for a $kind tap", async ({ add }) => {
		const registry = registryFor(false);
		add(registry, "redactor", (messages) => messages.map((m) => (m.role === "user" ? user("[redacted]") : m)));

		await expect(registry.convertAsync([user("secret")])).resolves.toEqual([user("[redacted]")]);
	});

	it("should run its taps in stage order, after afterConvert", async () => {
		const registry = registryFor(false);
		const order: string[] = [];
		registry.hooks.afterConvertAsync.tapPromise({ name: "late", stage: Stage.VERIFY }, async (messages) => {
			order.push("late");
			return [...messages, user("late")];
		});
		registry.hooks.afterConvertAsync.tapAsync("middle", (messages, _ctx, callback) => {
			order.push("middle");
			callback(null, [...messages, user("middle")]);
		});
		registry.hooks.afterConvertAsync.tap({ name: "early", stage: Stage.EARLY }, (messages) => {
			order.push("early");
			return [...messages, user("early")];
		});
		registry.hooks.afterConvert.tap("sync", (messages) => {
			order.push("sync");
			return [...messages, user("sync")];
		});

		const output = await registry.convertAsync([user("a")]);

		expect(userTexts(output)).toEqual(["a", "sync", "early", "middle", "late"]);
		expect(order).toEqual(["sync", "early", "middle", "late"]);
	});

	it("should keep the output when a tap resolves to undefined", async () => {
		const registry = registryFor(false);
		registry.hooks.afterConvertAsync.tapPromise("observer", async () => undefined);

		await expect(registry.convertAsync([user("a")])).resolves.toEqual([user("a")]);
	});

	it("should give its taps the run's context", async () => {
		const registry = registryFor(true);
		const input = [user("a")];
		let ctx: HookContext | undefined;
		registry.hooks.afterConvertAsync.tapPromise("observer", async (messages, c) => {
			ctx = c;
			return messages;
		});

		await registry.convertAsync(input);

		expect(ctx?.input).toBe(input);
		expect(ctx?.strict).toBe(true);
	});

	it.each(faultyAsyncTaps)("should skip $fault, report it once and carry on (lenient)", async ({ add, detail }) => {
		const registry = registryFor(false);
		const errors = collectErrors(registry);
		registry.hooks.afterConvertAsync.tap("before", (messages) => [...messages, user("before")]);
		add(registry);
		registry.hooks.afterConvertAsync.tapPromise("after", async (messages) => [...messages, user("after")]);

		const output = await registry.convertAsync([user("a")]);

		expect(userTexts(output)).toEqual(["a", "before", "after"]);
		expect(errors).toHaveLength(1);
		expect(errors[0]).toBeInstanceOf(ConversionError);
		expect(errors[0]).toMatchObject({ code: ErrorCode.CONVERSION_FAILED, plugin: "rejecter" });
		expect(errors[0]?.message).toMatch(detail);
		expect(errors[0]?.message).toContain("afterConvertAsync");
	});

	it.each(faultyAsyncTaps)("should reject for $fault (strict)", async ({ add, detail }) => {
		const registry = registryFor(true);
		let afterRan = false;
		add(registry);
		registry.hooks.afterConvertAsync.tap("after", (messages) => {
			afterRan = true;
			return messages;
		});

		const error = await registry.convertAsync([user("a")]).then(
			() => undefined,
			(e: unknown) => e,
		);

		expect(error).toBeInstanceOf(ConversionError);
		expect(error).toMatchObject({ plugin: "rejecter" });
		expect((error as Error).message).toMatch(detail);
		expect(afterRan).toBe(false);
	});

	it("should run the rest once when a tapAsync tap calls back twice", async () => {
		const registry = registryFor(false);
		let afterRuns = 0;
		registry.hooks.afterConvertAsync.tapAsync("twice", (messages, _ctx, callback) => {
			callback(null, messages);
			callback(null, messages);
		});
		registry.hooks.afterConvertAsync.tap("after", (messages) => {
			afterRuns++;
			return messages;
		});

		await expect(registry.convertAsync([user("a")])).resolves.toEqual([user("a")]);
		await delay();
		expect(afterRuns).toBe(1);
	});

	it("should report a converter problem before the async taps run, and still run them (lenient)", async () => {
		const registry = registryFor(false);
		const events: string[] = [];
		registry.hooks.error.tap("log", (error) => {
			events.push(`error ${error.code}`);
		});
		registry.hooks.afterConvertAsync.tapPromise("tail", async (messages) => {
			events.push("tail");
			return messages;
		});

		const output = await registry.convertAsync([user("a"), { role: "mystery" } as unknown as AgentMessage]);

		expect(output).toEqual([user("a")]);
		expect(events).toEqual([`error ${ErrorCode.UNKNOWN_ROLE}`, "tail"]);
	});
});

describe("hooks.error", () => {
	it("should receive every problem once, as a ConvertToLlmError", () => {
		const registry = registryFor(false);
		const first = collectErrors(registry);
		const second = collectErrors(registry);

		registry.convert([null, { role: "x" }, user("a")] as unknown as AgentMessage[]);

		expect(first).toHaveLength(2);
		expect(second).toEqual(first);
		for (const error of first) expect(error).toBeInstanceOf(ConvertToLlmError);
	});

	it.each([
		["an Error", new Error("logger down")],
		["a string", "logger down"],
	])("should contain an error tap that throws %s, and still call the other taps", (_what, thrown) => {
		const registry = registryFor(false);
		registry.hooks.error.tap("broken-logger", () => {
			throw thrown;
		});
		const errors = collectErrors(registry);

		expect(() => registry.convert([{ role: "x" } as unknown as AgentMessage, user("a")])).not.toThrow();
		expect(errors).toHaveLength(1);
	});

	it("should contain an error tap that throws during convertAsync", async () => {
		const registry = registryFor(false);
		registry.hooks.error.tap("broken-logger", () => {
			throw new Error("logger down");
		});
		registry.hooks.afterConvertAsync.tapPromise("bad", async () => {
			throw new Error("bad tap");
		});

		await expect(registry.convertAsync([user("a")])).resolves.toEqual([user("a")]);
	});

	it("should drop problems silently when nobody taps it (lenient)", () => {
		const registry = registryFor(false);

		expect(registry.hooks.error.taps).toHaveLength(0);
		expect(registry.convert([null, user("a")] as unknown as AgentMessage[])).toEqual([user("a")]);
	});
});
