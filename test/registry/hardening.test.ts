/**
 * The registry against hostile input, one reproduction (or a stronger one) per behaviour: structural
 * exclusion, sparse histories, `asyncTimeoutMs`, `isolate` on shared references and cycles, hostile
 * thrown values, no regular expression on the report path, the final check of the output, and one
 * report per failing message.
 */
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { Message, UserMessage } from "@earendil-works/pi-ai";
import { describe, expect, it } from "vitest";
import { excludeCustomMessages, safeFences } from "../../src/hooks/index.js";
import {
	AsyncHookTimeoutError,
	BASH_EXECUTION_PLUGIN,
	ConversionError,
	ConvertToLlmError,
	createRegistry,
	ErrorCode,
	InvalidMessageError,
	InvalidPluginError,
	modelRoles,
} from "../../src/index.js";
import { createDefaultRegistry } from "../../src/preset.js";
import { bashExecution, collectErrors, MODES, T0, thrownBy, user } from "../support/fixtures.js";
import { bomb } from "../support/hostile.js";

const vault = { role: "custom", customType: "vault", content: "token=SECRET-1", display: true, timestamp: 0 };

describe("registry.exclude", () => {
	it("should drop an excluded message before a customType converter sees it", () => {
		const registry = createDefaultRegistry().use(excludeCustomMessages());
		const seen: unknown[] = [];
		registry.register(
			"custom",
			(m) => {
				seen.push(m);
				return user(`[vault] ${String(m.content)}`);
			},
			{ name: "vault-ext", customType: "vault" },
		);
		const errors = collectErrors(registry);

		const output = registry.convert([{ ...vault, excludeFromContext: true } as AgentMessage]);

		expect(output).toEqual([]);
		expect(seen).toEqual([]);
		expect(errors).toEqual([]);
	});

	it("should drop a !! bash run before an override converter sees it, and hide it from ctx.input", () => {
		const registry = createDefaultRegistry();
		const seen: unknown[] = [];
		registry.register(
			"bashExecution",
			(m) => {
				seen.push(m);
				return user(`ran ${m.command}`);
			},
			{ name: "mine", override: true },
		);
		const inputs: unknown[] = [];
		registry.hooks.afterConvert.tap("leaky", (messages, ctx) => {
			inputs.push(...ctx.input);
			return messages;
		});
		const hidden = bashExecution({ command: "cat .env", output: "KEY=1", excludeFromContext: true });

		expect(registry.convert([hidden, user("hi")])).toEqual([user("hi")]);
		expect(seen).toEqual([]);
		expect(inputs).toEqual([undefined, user("hi")]);
	});

	it("should hide excluded messages from converters' ctx.messages too", () => {
		const registry = createDefaultRegistry();
		let messages: readonly unknown[] = [];
		registry.register(
			"user",
			(_m, ctx) => {
				messages = ctx.messages;
				return undefined;
			},
			{ name: "peek", override: true },
		);
		const hidden = bashExecution({ excludeFromContext: true });

		registry.convert([hidden, user("hi")]);

		expect(messages).toEqual([undefined, user("hi")]);
	});

	it("should keep a bare registry's bashExecution converter free of the rule until a plugin excludes the role", () => {
		const run = bashExecution({ command: "ls", excludeFromContext: true });
		const bare = createRegistry().register("bashExecution", (m) => user(m.command), { name: "mine" });
		expect(bare.convert([run])).toEqual([user("ls")]);
		expect(bare.exclude("bashExecution", { name: "my-rules" }).convert([run])).toEqual([]);
		expect(bare.explain([run]).messages[0]).toMatchObject({ dropped: "excluded", plugin: "my-rules" });
	});

	it("should say which plugin excluded a !! run", () => {
		const [entry] = createDefaultRegistry().explain([bashExecution({ excludeFromContext: true })]).messages;
		expect(entry).toMatchObject({ dropped: "excluded", plugin: BASH_EXECUTION_PLUGIN, errors: [] });
	});

	it("should require a name", () => {
		const registry = createRegistry();
		expect(() => registry.exclude("custom", {} as { name: string })).toThrow(/options.name/);
	});
});

describe("sparse histories", () => {
	it("should walk an empty array of length 2^32-1 by its elements and report its holes once", () => {
		const registry = createRegistry().use(modelRoles);
		const errors = collectErrors(registry);
		const sparse: AgentMessage[] = new Array(2 ** 32 - 1);
		sparse[5] = user("five");
		sparse[2 ** 32 - 2] = user("last");
		const started = performance.now();

		const output = registry.convert(sparse);

		expect(performance.now() - started).toBeLessThan(2000);
		expect(output).toEqual([user("five"), user("last")]);
		expect(errors.map((e) => [e.code, e.index])).toEqual([
			[ErrorCode.INVALID_MESSAGE, 0],
			[ErrorCode.INVALID_MESSAGE, 6],
		]);
		expect(errors[1]?.message).toContain(`Messages 6 to ${2 ** 32 - 3} are holes`);
	});

	it("should explain a run of holes as one entry", () => {
		const sparse: AgentMessage[] = new Array(1_000_000);
		sparse[999_999] = user("end");
		const { messages, output } = createDefaultRegistry().explain(sparse);
		expect(output).toEqual([user("end")]);
		expect(messages.map((m) => [m.index, m.dropped])).toEqual([
			[0, "invalid-message"],
			[999_999, undefined],
		]);
	});
});

describe("asyncTimeoutMs on a tap that never settles", () => {
	it.each(MODES)("should fail closed when an afterConvertAsync tap never settles ($mode)", async ({ strict }) => {
		const registry = createDefaultRegistry({ strict, asyncTimeoutMs: 20 });
		const errors = collectErrors(registry);
		let later = false;
		registry.hooks.afterConvertAsync.tapPromise("stuck-redactor", () => new Promise(() => {}));
		registry.hooks.afterConvertAsync.tapPromise({ name: "later", stage: 10 }, async (messages) => {
			later = true;
			return messages;
		});

		const converting = registry.convertAsync([user("secret")]);

		if (strict) {
			const error = await converting.then(
				() => undefined,
				(e: unknown) => e,
			);
			expect(error).toBeInstanceOf(AsyncHookTimeoutError);
			expect(error).toMatchObject({ code: ErrorCode.ASYNC_HOOK_TIMEOUT, plugin: "stuck-redactor" });
		} else {
			expect(await converting).toEqual([]);
			expect(errors).toHaveLength(1);
			expect(errors[0]).toBeInstanceOf(AsyncHookTimeoutError);
		}
		expect(later).toBe(false);
	});

	it("should time out a callback-style tap too, and let a tap that settles in time through", async () => {
		const registry = createDefaultRegistry({ asyncTimeoutMs: 50 });
		registry.hooks.afterConvertAsync.tapAsync("quick", (messages, _ctx, callback) => {
			setTimeout(() => callback(null, messages), 1);
		});
		expect(await registry.convertAsync([user("hi")])).toEqual([user("hi")]);
		registry.hooks.afterConvertAsync.tapAsync("never-calls-back", () => {});
		const explained = await registry.explainAsync([user("hi")]);
		expect(explained.output).toEqual([]);
		expect(explained.errors.map((e) => e.code)).toEqual([ErrorCode.ASYNC_HOOK_TIMEOUT]);
	});
});

describe("asyncTimeoutMs bounds", () => {
	it.each([2 ** 31, 1e12, Number.MAX_VALUE, Infinity])(
		"should take %s ms as no bound, never as Node's 1 ms overflow",
		async (asyncTimeoutMs) => {
			const registry = createDefaultRegistry({ asyncTimeoutMs });
			const errors = collectErrors(registry);
			registry.hooks.afterConvertAsync.tapPromise(
				"slow-but-fine",
				(messages) => new Promise((resolve) => setTimeout(() => resolve(messages), 20)),
			);
			expect(await registry.convertAsync([user("hi")])).toEqual([user("hi")]);
			expect(errors).toEqual([]);
		},
	);

	it("should still bound a tap at the largest delay setTimeout keeps, 2^31-1 ms", async () => {
		const registry = createDefaultRegistry({ asyncTimeoutMs: 2 ** 31 - 1 });
		registry.hooks.afterConvertAsync.tapPromise("quick", async (messages) => messages);
		expect(await registry.convertAsync([user("hi")])).toEqual([user("hi")]);
	});

	it.each([-1, -Infinity, Number.NaN, "100", null])(
		"should reject asyncTimeoutMs %s at createRegistry with InvalidPluginError",
		(asyncTimeoutMs) => {
			const create = () => createDefaultRegistry({ asyncTimeoutMs: asyncTimeoutMs as number });
			expect(create).toThrow(InvalidPluginError);
			expect(create).toThrow(/asyncTimeoutMs .*milliseconds >= 0/);
		},
	);
});

describe("isolate on shared references and cycles", () => {
	it("should copy a DAG of 2^40 paths in linear time", () => {
		let node: Record<string, unknown> = { type: "text", text: "leaf" };
		for (let i = 0; i < 40; i++) node = { type: "text", text: String(i), left: node, right: node };
		const started = performance.now();
		const [copy] = createDefaultRegistry({ isolate: true }).convert([user([node as never])]);
		expect(performance.now() - started).toBeLessThan(2000);
		const top = (copy as unknown as { content: Record<string, unknown>[] }).content[0] as Record<string, unknown>;
		// Booleans: a matcher's diff of two such DAGs would walk all 2^40 paths.
		expect(top === node).toBe(false);
		expect(top.left === top.right).toBe(true);
	});

	it("should copy a self-referencing block once, keeping its shape, in linear time", () => {
		const block: Record<string, unknown> = { type: "text", text: "x" };
		block.parent = block;
		block.root = block;
		const shared = { deep: [1, 2] };
		const message = user([block as never, { type: "text", text: "y", a: shared, b: shared } as never]);

		const [copy] = createDefaultRegistry({ isolate: true }).convert([message]);

		const [first, second] = (copy as unknown as { content: Record<string, unknown>[] }).content;
		expect(first).not.toBe(block);
		expect(first?.parent).toBe(first);
		expect(first?.root).toBe(first);
		expect(second?.a).toEqual(shared);
		expect(second?.a).not.toBe(shared);
		expect(second?.b).not.toBe(shared);
	});

	it("should never share: symbol-keyed objects, Symbol.species arrays and class instances are copied", () => {
		const tag = Symbol("tag");
		class Odd extends Array {
			static override get [Symbol.species]() {
				return Array;
			}
		}
		class Point {
			constructor(readonly x: number) {}
		}
		const odd = Odd.from([{ type: "text", text: "a" }]);
		const point = new Point(1);
		const inner = { secret: true };
		const message = { ...user("x"), [tag]: inner, odd, point } as unknown as AgentMessage;

		const [copy] = createDefaultRegistry({ isolate: true }).convert([message]) as unknown as Record<
			PropertyKey,
			unknown
		>[];

		expect(copy?.[tag]).toEqual(inner);
		expect(copy?.[tag]).not.toBe(inner);
		expect(copy?.odd).toEqual([{ type: "text", text: "a" }]);
		expect(copy?.odd).not.toBe(odd);
		expect((copy as { odd: unknown[] }).odd[0]).not.toBe(odd[0]);
		expect(copy?.point).toEqual({ x: 1 });
		expect(copy?.point).not.toBe(point);
	});

	it("should leave a function out of the copy and report the message once", () => {
		const registry = createDefaultRegistry({ isolate: true });
		const errors = collectErrors(registry);
		const message = { ...user("x"), details: { onClick: () => {}, keep: 1 } } as unknown as AgentMessage;

		const [copy] = registry.convert([message]) as unknown as { details: Record<string, unknown> }[];

		expect(copy?.details).toEqual({ keep: 1 });
		expect(errors).toHaveLength(1);
		expect(errors[0]).toMatchObject({ code: ErrorCode.CONVERSION_FAILED, index: 0 });
	});

	it("should drop a message that cannot be copied at all, never pass it on shared", () => {
		const registry = createDefaultRegistry({ isolate: true });
		const errors = collectErrors(registry);
		const { proxy, revoke } = Proxy.revocable({}, {});
		revoke();
		const message = { ...user("x"), details: proxy } as unknown as AgentMessage;

		expect(registry.convert([message, user("ok")])).toEqual([user("ok")]);
		expect(errors.map((e) => e.index)).toEqual([0]);
	});

	it("should copy what a post-conversion tap put in the output from the history", () => {
		const registry = createDefaultRegistry({ isolate: true });
		registry.hooks.afterConvert.tap("in-place", (messages, ctx) => {
			for (const entry of ctx.input) messages.push(entry as Message);
			return messages;
		});
		const history = [user([{ type: "text", text: "hi" }])];

		const output = registry.convert(history);

		expect(output).toEqual([history[0], history[0]]);
		expect(output[1]).not.toBe(history[0]);
		expect(output[1]?.content).not.toBe(history[0]?.content);
	});

	it("should deep-copy pi 1.x system messages: sections, toolsAdded[].parameters, toolsRemoved", () => {
		const system = {
			role: "system",
			content: "You are pi.",
			sections: { rules: "be brief" },
			toolsAdded: [{ name: "bash", description: "run", parameters: { type: "object", properties: {} } }],
			toolsRemoved: ["edit"],
			timestamp: T0,
		};
		const [copy] = createDefaultRegistry({ isolate: true }).convert([
			system as unknown as AgentMessage,
		]) as unknown as (typeof system)[];

		expect(copy).toEqual(system);
		expect(copy).not.toBe(system);
		expect(copy?.sections).not.toBe(system.sections);
		expect(copy?.toolsAdded).not.toBe(system.toolsAdded);
		expect(copy?.toolsAdded[0]?.parameters).not.toBe(system.toolsAdded[0]?.parameters);
		expect(copy?.toolsRemoved).not.toBe(system.toolsRemoved);
		// Without isolate a system message passes through as the same object, as pi 1.6 does.
		expect(createDefaultRegistry().convert([system as unknown as AgentMessage])[0]).toBe(system);
	});
});

describe("hostile thrown values", () => {
	const throwsBomb = () => {
		throw bomb();
	};
	type Case = { input: unknown; registry: ReturnType<typeof createRegistry> };
	const cases: [string, (strict: boolean) => Case][] = [
		[
			"a converter",
			(strict) => {
				const registry = createRegistry({ strict }).register("user", throwsBomb, { name: "bomber" });
				return { registry, input: [user("x")] };
			},
		],
		[
			"an afterConvert tap",
			(strict) => {
				const registry = createRegistry({ strict }).use(modelRoles);
				registry.hooks.afterConvert.tap("bomber", throwsBomb);
				return { registry, input: [user("x")] };
			},
		],
		[
			"a message",
			(strict) => {
				const registry = createRegistry({ strict }).use(modelRoles);
				return { registry, input: [bomb()] };
			},
		],
		[
			"the history",
			(strict) => {
				const registry = createRegistry({ strict }).use(modelRoles);
				return { registry, input: bomb() };
			},
		],
	];

	it.each(cases)(
		"should contain a bomb thrown by %s: lenient never throws, strict throws our error",
		(_what, make) => {
			const lenient = make(false);
			const errors = collectErrors(lenient.registry);
			const history = lenient.input as AgentMessage[];
			expect(lenient.registry.convert(history)).toEqual(expect.any(Array));
			expect(errors.length).toBeGreaterThan(0);
			expect(lenient.registry.explain(history).errors.length).toBeGreaterThan(0);
			const strict = make(true);
			expect(thrownBy(() => strict.registry.convert(strict.input as AgentMessage[]))).toBeInstanceOf(
				ConvertToLlmError,
			);
		},
	);

	it("should not reject convertAsync on a bomb", async () => {
		const registry = createRegistry().use(modelRoles);
		registry.hooks.afterConvertAsync.tapPromise("bomber", async () => {
			throw bomb();
		});
		expect(await registry.convertAsync([user("x")])).toEqual([user("x")]);
	});
});

describe("the report path at the stack limit", () => {
	it("should report a converter that overflows the stack, without a regular expression", () => {
		const registry = createRegistry().use(modelRoles);
		const errors = collectErrors(registry);
		const deep = (n: number): number => deep(n + 1) + 1;
		registry.register("custom", () => user(String(deep(0))), { name: "recursive" });

		const output = registry.convert([{ ...vault } as AgentMessage, user("after")]);

		expect(output).toEqual([user("after")]);
		expect(errors).toHaveLength(1);
		expect(errors[0]?.message).toContain("Maximum call stack size exceeded");
	});

	it("should run no regular expression in the registry's sources", async () => {
		const { readdirSync, readFileSync } = await import("node:fs");
		const dir = new URL("../../src/registry/", import.meta.url);
		const files = readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((file) => file.endsWith(".ts"));
		expect(files).toContain("loop/step.ts");
		for (const file of files) {
			const source = readFileSync(new URL(file, dir), "utf8");
			expect([file, /\.(replace|match|test|exec|split)\(\//.test(source)]).toEqual([file, false]);
			expect([file, source.includes("new RegExp")]).toEqual([file, false]);
		}
	});
});

describe("the final check of the output", () => {
	it.each(MODES)("should drop raw history entries a tap pushed in place ($mode)", ({ strict }) => {
		const registry = createDefaultRegistry({ strict });
		const errors = collectErrors(registry);
		registry.hooks.afterConvert.tap("in-place", (messages, ctx) => {
			for (const entry of ctx.input) messages.push(entry as Message);
			return messages;
		});
		const history = [user("hi"), bashExecution({ command: "ls" })];

		if (strict) {
			expect(thrownBy(() => registry.convert(history))).toBeInstanceOf(ConversionError);
			return;
		}
		const output = registry.convert(history);
		expect(output.map((m) => m.role)).toEqual(["user", "user", "user"]);
		expect(output[2]).toBe(history[0]);
		expect(errors.map((e) => e.code)).toEqual([ErrorCode.CONVERSION_FAILED]);
	});

	it("should drop junk a tap wrote over an output slot", () => {
		const registry = createDefaultRegistry();
		const errors = collectErrors(registry);
		registry.hooks.afterConvert.tap("overwrite", (messages) => {
			messages[0] = { role: "bashExecution", command: "cat .env" } as unknown as Message;
			return messages;
		});
		expect(registry.convert([user("a"), user("b")])).toEqual([user("b")]);
		expect(errors).toHaveLength(1);
	});

	it("should keep a role getter that changes its answer out of the output under isolate", () => {
		let reads = 0;
		const shifty = {
			get role() {
				reads++;
				return reads === 1 ? "user" : "bashExecution";
			},
			content: "x",
			timestamp: T0,
		} as unknown as AgentMessage;
		const registry = createDefaultRegistry({ isolate: true });
		const errors = collectErrors(registry);

		const output = registry.convert([shifty, user("ok")]);

		expect(output).toEqual([user("ok")]);
		expect(output.every((m) => m.role === "user")).toBe(true);
		expect(errors).toHaveLength(1);
	});
});

describe("one report per failing message", () => {
	it("should report a message whose field getter throws once, however many converters fail on it", () => {
		const registry = createDefaultRegistry().use(safeFences());
		registry.register(
			"bashExecution",
			(m) => {
				return user(m.output);
			},
			{ name: "third", override: true },
		);
		const errors = collectErrors(registry);
		const hostile = {
			...bashExecution(),
			get output(): string {
				throw new Error("getter exploded");
			},
		} as AgentMessage;

		const output = registry.convert([hostile, user("after")]);

		expect(output).toEqual([user("after")]);
		expect(errors.map((e) => e.index)).toEqual([0]);
	});

	it("should report once when an override and its fallback both fail", () => {
		const fail = (): UserMessage => {
			throw new Error("nope");
		};
		const registry = createRegistry()
			.register("user", fail, { name: "first" })
			.register("user", fail, { name: "second", override: true });
		const errors: ConvertToLlmError[] = collectErrors(registry);

		expect(registry.convert([user("x")])).toEqual([]);
		expect(errors.map((e) => [e.index, e.plugin])).toEqual([[0, "second"]]);
		expect(registry.explain([user("x")]).messages[0]).toMatchObject({ dropped: "converter-failed" });
	});

	it("should keep InvalidMessageError for a hole in a dense-looking history", () => {
		const registry = createRegistry().use(modelRoles);
		const errors = collectErrors(registry);
		const holey: AgentMessage[] = [user("a")];
		holey[2] = user("c");
		expect(registry.convert(holey)).toEqual([user("a"), user("c")]);
		expect(errors[0]).toBeInstanceOf(InvalidMessageError);
	});
});
