/**
 * One pipeline: `explain` observes the run `convert` makes, so for any history and any
 * mix of built-in and faulty plugins both give the same output and report the same problems, sync
 * and async; a host that refuses code generation converts as any other; the hooks behave
 * as tapable says; `converters(role)` shows what `register` did.
 */
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { Message } from "@earendil-works/pi-ai";
import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { blockImages, escapeSummaries, excludeCustomMessages, lint, safeFences } from "../../src/hooks/index.js";
import {
	type ConvertToLlmError,
	createRegistry,
	type Plugin,
	type Registry,
	type RegistryOptions,
	Stage,
} from "../../src/index.js";
import { defaultPreset } from "../../src/preset.js";
import { arbAgentMessage } from "../support/arbitraries.js";
import { bashExecution, user } from "../support/fixtures.js";
import { bomb } from "../support/hostile.js";

const RUNS = { numRuns: 300 } as const;

/** Plugins a host might use, faulty ones included, each a fresh object per registry. */
const PLUGINS: Record<string, () => Plugin> = {
	escapeSummaries: () => escapeSummaries(),
	safeFences: () => safeFences(),
	blockImages: () => blockImages(),
	lint: () => lint({ mode: "repair", imagesBlocked: true }),
	excludeCustom: () => excludeCustomMessages(),
	throwingOverride: () => ({
		name: "test:throwing-override",
		apply: (r) =>
			r.register(
				"bashExecution",
				(m) => {
					if (m.command.length % 2 === 0) throw new Error("even command");
					return undefined;
				},
				{ name: "test:throwing-override", override: true },
			),
	}),
	junkConverter: () => ({
		name: "test:junk-converter",
		apply: (r) =>
			r.register("custom", () => ({ role: "custom" }) as unknown as Message, {
				name: "test:junk-converter",
				customType: "junk",
			}),
	}),
	throwingTap: () => ({
		name: "test:throwing-tap",
		apply: (r) =>
			r.hooks.afterConvert.tap("test:throwing-tap", (messages) => {
				if (messages.length % 3 === 0) throw new Error("every third");
				return messages.slice(1);
			}),
	}),
	inPlaceTap: () => ({
		name: "test:in-place-tap",
		apply: (r) =>
			r.hooks.afterConvert.tap({ name: "test:in-place-tap", stage: Stage.VERIFY + 1 }, (messages, ctx) => {
				for (const entry of ctx.input) messages.push(entry as Message);
				return messages;
			}),
	}),
	asyncTap: () => ({
		name: "test:async-tap",
		apply: (r) =>
			r.hooks.afterConvertAsync.tapPromise("test:async-tap", async (messages) => {
				if (messages.length === 2) throw new Error("two");
				return messages.filter((m) => m.role !== "assistant");
			}),
	}),
};
const SYNC = Object.keys(PLUGINS).filter((name) => name !== "asyncTap");

const arbEntry: fc.Arbitrary<unknown> = fc.oneof(
	{ weight: 8, arbitrary: arbAgentMessage },
	{ weight: 1, arbitrary: fc.constantFrom(null, 42, "x", { role: "nobody", timestamp: 0 }, { role: "constructor" }) },
	{
		weight: 1,
		arbitrary: fc.record({
			role: fc.constant("custom"),
			customType: fc.constant("junk"),
			content: fc.string(),
			timestamp: fc.constant(0),
		}),
	},
	{ weight: 1, arbitrary: fc.constant(bashExecution({ command: "ab", excludeFromContext: true })) },
);
const arbEntries = fc.array(arbEntry, { maxLength: 12 });

function registryWith(names: readonly string[], options: RegistryOptions = {}): Registry {
	const registry = createRegistry(options);
	for (const plugin of defaultPreset) registry.use(plugin);
	for (const name of names) registry.use((PLUGINS[name] as () => Plugin)());
	return registry;
}

/** A registry's run, with what it reported on `hooks.error`. */
function collecting(registry: Registry): ConvertToLlmError[] {
	const errors: ConvertToLlmError[] = [];
	registry.hooks.error.tap("test:collect", (error) => {
		errors.push(error);
	});
	return errors;
}

const said = (errors: readonly ConvertToLlmError[]) => errors.map((e) => [e.code, e.index, e.plugin, e.message]);

describe("one pipeline: explain observes convert", () => {
	it("should give explain(h).output === convert(h) and the same reports, for built-in and faulty plugins", () => {
		fc.assert(
			fc.property(arbEntries, fc.subarray(SYNC), fc.boolean(), (entries, names, isolate) => {
				const registry = registryWith(names, { isolate });
				const errors = collecting(registry);
				const history = entries as AgentMessage[];
				const output = registry.convert(history);
				const explained = registry.explain(history);
				expect(explained.output).toStrictEqual(output);
				expect(said(explained.errors)).toEqual(said(errors));
			}),
			RUNS,
		);
	});

	it("should do the same for convertAsync and explainAsync", async () => {
		await fc.assert(
			fc.asyncProperty(arbEntries, fc.subarray(Object.keys(PLUGINS)), async (entries, names) => {
				const registry = registryWith(names);
				const errors = collecting(registry);
				const history = entries as AgentMessage[];
				const output = await registry.convertAsync(history);
				const explained = await registry.explainAsync(history);
				expect(explained.output).toStrictEqual(output);
				expect(said(explained.errors)).toEqual(said(errors));
			}),
			RUNS,
		);
	});

	it("should explain every input entry once, and trace every output to an input or a tap", () => {
		fc.assert(
			fc.property(arbEntries, fc.subarray(SYNC), (entries, names) => {
				const { output, messages } = registryWith(names).explain(entries as AgentMessage[]);
				expect(messages.map((m) => m.index)).toEqual(entries.map((_, i) => i));
				for (const m of messages) expect(m.outputs.length > 0 || m.dropped !== undefined).toBe(true);
				const positions = messages.flatMap((m) => m.outputs);
				expect(new Set(positions).size).toBe(positions.length);
				for (const p of positions) expect(p).toBeLessThan(output.length);
			}),
			RUNS,
		);
	});
});

describe("the role table", () => {
	it("should convert where new Function is refused (CSP), as anywhere else", () => {
		const history = [user("hi"), bashExecution({ command: "ls" }), { role: "nobody" } as unknown as AgentMessage];
		const expected = registryWith([]).convert(history);
		vi.stubGlobal("Function", () => {
			throw new EvalError("Refused to evaluate a string as JavaScript (unsafe-eval)");
		});
		try {
			expect(registryWith([]).convert(history)).toStrictEqual(expected);
		} finally {
			vi.unstubAllGlobals();
		}
	});

	it("should use a converter registered after a conversion", () => {
		const registry = registryWith([]);
		expect(registry.convert([{ role: "ticket", timestamp: 0 } as unknown as AgentMessage])).toEqual([]);
		registry.register("ticket" as "user", () => user("ticket"), { name: "tickets" });
		expect(registry.convert([{ role: "ticket", timestamp: 0 } as unknown as AgentMessage])).toEqual([user("ticket")]);
	});

	it("should convert with each new converter when register and convert interleave (3,000 rounds)", () => {
		const registry = registryWith([]);
		for (let i = 0; i < 3000; i++) {
			registry.register(`late${i}` as "user", () => user(`late ${i}`), { name: `late-${i}` });
			const output = registry.convert([{ role: `late${i}`, timestamp: 0 } as unknown as AgentMessage, user("u")]);
			expect(output).toEqual([user(`late ${i}`), user("u")]);
		}
		expect(registry.roles()).toHaveLength(3000 + 8);
	});

	it("should dispatch roles past the switched ones through the table, as the first ones", () => {
		const registry = registryWith([]);
		for (let i = 0; i < 40; i++) registry.register(`role${i}` as "user", () => user(`r${i}`), { name: `ext-${i}` });
		const history = [0, 17, 39].map((i) => ({ role: `role${i}`, timestamp: 0 }) as unknown as AgentMessage);
		expect(registry.convert(history)).toEqual([user("r0"), user("r17"), user("r39")]);
	});
});

describe("honest hooks", () => {
	it("should answer isUsed() false until a tap or an interceptor is added, as tapable does", () => {
		const registry = registryWith([]);
		for (const hook of Object.values(registry.hooks)) expect(hook.isUsed()).toBe(false);
		registry.hooks.afterConvert.tap("t", () => undefined);
		expect(registry.hooks.afterConvert.isUsed()).toBe(true);
		expect(registry.hooks.beforeConvert.isUsed()).toBe(false);
	});

	it("should run interceptors on the hooks, including a call interceptor on a hook with no tap", () => {
		const registry = registryWith([]);
		const calls: string[] = [];
		registry.hooks.afterConvert.intercept({ call: () => calls.push("call"), tap: (tap) => calls.push(tap.name) });
		registry.convert([user("a")]);
		registry.hooks.afterConvert.tap("later", () => undefined);
		registry.convert([user("a")]);
		expect(calls).toEqual(["call", "call", "later"]);
	});

	it("should keep tapable's stage and before for post-conversion taps", () => {
		const registry = registryWith([]);
		const order: string[] = [];
		const tap = (name: string) => () => {
			order.push(name);
			return undefined;
		};
		registry.hooks.afterConvert.tap({ name: "late", stage: 10 }, tap("late"));
		registry.hooks.afterConvert.tap("a", tap("a"));
		registry.hooks.afterConvert.tap({ name: "b", before: "a" }, tap("b"));
		registry.convert([user("x")]);
		expect(order).toEqual(["b", "a", "late"]);
	});

	it("should give converters a context they cannot corrupt", () => {
		const registry = createRegistry();
		const indices: number[] = [];
		registry.register(
			"user",
			(m, ctx) => {
				indices.push(ctx.index);
				return m;
			},
			{ name: "reader" },
		);
		registry.register(
			"user",
			(_m, ctx) => {
				(ctx as { index: number }).index = 99;
				return undefined;
			},
			{ name: "vandal", override: true },
		);
		const errors = collecting(registry);

		expect(registry.convert([user("a"), user("b")])).toEqual([user("a"), user("b")]);
		// The vandal's write throws (the context is frozen): it is reported, and its fallback sees the truth.
		expect(indices).toEqual([0, 1]);
		expect(errors.map((e) => e.plugin)).toEqual(["vandal", "vandal"]);
	});
});

describe("registry.converters(role)", () => {
	it("should list a role's converters in the order they are asked, frozen", () => {
		const registry = registryWith(["safeFences"]);
		registry.register("custom", () => undefined, { name: "todo", customType: "todo" });
		expect(registry.converters("bashExecution").map((c) => [c.name, c.override])).toEqual([
			["convert-to-llm:safe-fences", true],
			["convert-to-llm:safe-fences:fail-closed", true],
			["convert-to-llm:bash-execution", false],
		]);
		expect(registry.converters("custom")).toEqual([
			{ name: "todo", stage: 0, override: false, customType: "todo" },
			{ name: "convert-to-llm:custom", stage: 0, override: false, customType: undefined },
		]);
		expect(Object.isFrozen(registry.converters("custom"))).toBe(true);
		expect(registry.converters("nobody")).toEqual([]);
	});
});

/** Entries as hostile as they come, each made fresh: bombs, throwing getters, odd shapes. */
const HOSTILE: Record<string, () => unknown> = {
	bomb,
	throwingRole: () => ({
		get role(): string {
			throw new Error("role");
		},
	}),
	flippingRole: () => {
		let reads = 0;
		return {
			get role() {
				reads++;
				return reads % 2 === 1 ? "user" : "bashExecution";
			},
			content: "x",
			timestamp: 0,
		};
	},
	throwingContent: () => ({
		role: "custom",
		customType: "x",
		get content(): string {
			throw new Error("content");
		},
		timestamp: 0,
	}),
	cycle: () => {
		const block: Record<string, unknown> = { type: "text", text: "c" };
		block.self = block;
		return { role: "user", content: [block, block], timestamp: 0 };
	},
	symbolKeyed: () => ({ role: "user", content: "s", timestamp: 0, [Symbol("k")]: { nested: true } }),
	revoked: () => {
		const { proxy, revoke } = Proxy.revocable({ role: "user" }, {});
		revoke();
		return proxy;
	},
	functionField: () => ({
		role: "toolResult",
		content: [],
		toolCallId: "c",
		isError: false,
		timestamp: 0,
		fn: () => 1,
	}),
};
const SHARED_BLOCK = { type: "text", text: "shared" };
/**
 * What to put in a history: generated entries, or the name of a hostile one, made in the property
 * itself (fast-check probes the values it generates, and a bomb would explode in fast-check).
 */
const arbHostileSpec: fc.Arbitrary<{ entry: unknown } | { kind: string }> = fc.oneof(
	{ weight: 3, arbitrary: arbEntry.map((entry) => ({ entry })) },
	{ weight: 2, arbitrary: fc.constantFrom(...Object.keys(HOSTILE)).map((kind) => ({ kind })) },
	{ weight: 1, arbitrary: fc.constant({ entry: { role: "user", content: [SHARED_BLOCK], timestamp: 0 } }) },
);
const made = (spec: { entry: unknown } | { kind: string }): unknown =>
	"kind" in spec ? (HOSTILE[spec.kind] as () => unknown)() : spec.entry;

/** Every object reachable from `value` (own keys and symbols), skipping what cannot be read. */
function reachable(value: unknown, into = new Set<object>()): Set<object> {
	if (value === null || (typeof value !== "object" && typeof value !== "function") || into.has(value)) return into;
	into.add(value);
	let keys: PropertyKey[];
	try {
		keys = Reflect.ownKeys(value);
	} catch {
		return into;
	}
	for (const key of keys) {
		try {
			reachable((value as Record<PropertyKey, unknown>)[key], into);
		} catch {
			// A getter or a trap threw: nothing reachable from there.
		}
	}
	return into;
}

describe("generated hostile histories", () => {
	it("should never throw when lenient, share nothing under isolate, and report each entry at most once", async () => {
		await fc.assert(
			fc.asyncProperty(
				fc.array(arbHostileSpec, { maxLength: 10 }),
				fc.subarray(SYNC),
				fc.boolean(),
				async (specs, names, isolate) => {
					const entries = specs.map(made);
					const registry = registryWith(names, { isolate });
					const errors = collecting(registry);
					const history = entries as AgentMessage[];
					const output = registry.convert(history);
					expect(Array.isArray(output)).toBe(true);
					if (isolate) {
						// Under isolate the roles are the copies' data; without it a role getter is the caller's own.
						for (const message of output)
							expect(["user", "assistant", "toolResult", "system"]).toContain(
								(message as { role?: unknown }).role,
							);
						const inputObjects = reachable(entries);
						for (const object of reachable(output)) expect(inputObjects.has(object)).toBe(false);
					}
					const perIndex = new Map<number, number>();
					for (const error of errors)
						if (
							error.index !== undefined &&
							error.plugin?.startsWith("test:") !== true &&
							error.code !== "CONVERT_TO_LLM_LINT"
						)
							perIndex.set(error.index, (perIndex.get(error.index) ?? 0) + 1);
					for (const count of perIndex.values()) expect(count).toBe(1);
					expect(Array.isArray(registry.explain(history).output)).toBe(true);
					expect(Array.isArray(await registry.convertAsync(history))).toBe(true);
				},
			),
			RUNS,
		);
	});
});
