/**
 * The registry's contract: `use()` and `register()` (names, duplicates, `override`, stages,
 * `customType`), and `convert()` (what a converter's result means, unknown roles, malformed input,
 * faulty converters, each reported once in lenient mode and thrown in strict mode).
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { fauxAssistantMessage, type ToolResultMessage, type UserMessage } from "@mariozechner/pi-ai";
import { describe, expect, it } from "vitest";
import {
	type BashExecutionMessage,
	ConversionError,
	ConvertToLlmError,
	type CustomMessage,
	createBranchSummaryMessage,
	createCompactionSummaryMessage,
	createCustomMessage,
	createRegistry,
	DuplicateConverterError,
	ErrorCode,
	InvalidMessageError,
	InvalidPluginError,
	modelRoles,
	type Plugin,
	type Registry,
	Stage,
	UnknownRoleError,
} from "../src/index.js";
import { createDefaultRegistry } from "../src/preset.js";
import { bashExecution, collectErrors, MODES, T0, thrownBy, user, userTexts } from "./support/fixtures.js";

/** A role declared by a consumer, as an extension would (see also `custom-role.test-d.ts`). */
interface AuditNoteMessage {
	role: "auditNote";
	note: string;
	severity: "info" | "warn";
	timestamp: number;
}

declare module "@mariozechner/pi-agent-core" {
	interface CustomAgentMessages {
		auditNote: AuditNoteMessage;
	}
}

function bash(command: string, overrides: Partial<BashExecutionMessage> = {}): BashExecutionMessage {
	return bashExecution({ command, output: "ok", ...overrides });
}

function custom(customType: string, content = "note"): CustomMessage {
	return createCustomMessage(customType, content, true, undefined, T0);
}

function toolResult(text: string): ToolResultMessage {
	return {
		role: "toolResult",
		toolCallId: "call-1",
		toolName: "read",
		content: [{ type: "text", text }],
		isError: false,
		timestamp: T0,
	};
}

/** A history that holds values the types forbid (as a stored session or a buggy plugin may). */
function history(...entries: unknown[]): AgentMessage[] {
	return entries as AgentMessage[];
}

/** A converter of `bashExecution` to one user text message, as a plugin would write it. */
const bashToUser = (m: BashExecutionMessage): UserMessage => user(`ran ${m.command}`, m.timestamp);

describe("createRegistry", () => {
	it("should know no role until plugins are used", () => {
		const registry = createRegistry();
		const errors = collectErrors(registry);

		expect(registry.roles()).toEqual([]);
		expect(registry.convert([user("hi")])).toEqual([]);
		expect(errors).toHaveLength(1);
		expect(errors[0]).toBeInstanceOf(UnknownRoleError);
	});

	it.each(MODES)("should expose strict = $strict in $mode mode", ({ strict }) => {
		expect(createRegistry({ strict }).strict).toBe(strict);
	});

	it("should be lenient by default", () => {
		expect(createRegistry().strict).toBe(false);
		expect(() => createRegistry().convert(history(null))).not.toThrow();
	});

	it("should share no state between registries", () => {
		const a = createRegistry().use(modelRoles);
		const b = createRegistry();
		a.register("bashExecution", bashToUser, { name: "a-bash" });
		a.hooks.afterConvert.tap("a-tail", (messages) => [...messages, user("from a")]);
		const bErrors = collectErrors(b);

		// b knows none of a's roles, hooks or plugins; the same plugin object applies to b afresh.
		expect(b.roles()).toEqual([]);
		expect(b.convert([bash("ls")])).toEqual([]);
		expect(bErrors).toHaveLength(1);
		b.use(modelRoles);
		expect(b.convert([user("hi")])).toEqual([user("hi")]);
		expect(b.hooks).not.toBe(a.hooks);
		expect(b.hooks.afterConvert.taps).toHaveLength(0);
		// a registering the same role as b does not collide.
		b.register("bashExecution", bashToUser, { name: "b-bash" });
		expect(userTexts(a.convert([bash("ls")]))).toEqual(["ran ls", "from a"]);
		expect(userTexts(b.convert([bash("ls")]))).toEqual(["ran ls"]);
	});

	it("should declare its hooks once, in a frozen object", () => {
		const registry = createRegistry();

		expect(Object.isFrozen(registry.hooks)).toBe(true);
		expect(Object.keys(registry.hooks).sort()).toEqual(
			["afterConvert", "afterConvertAsync", "beforeConvert", "error"].sort(),
		);
		expect(registry.hooks).toBe(registry.hooks);
	});
});

describe("registry.use", () => {
	it("should be chainable", () => {
		const registry = createRegistry();
		const plugin: Plugin = { name: "noop", apply() {} };

		expect(registry.use(plugin)).toBe(registry);
	});

	it("should apply the same plugin object once, however often it is used", () => {
		const registry = createRegistry();
		const applied: Registry[] = [];
		const plugin: Plugin = {
			name: "bash",
			apply(r) {
				applied.push(r);
				r.register("bashExecution", bashToUser, { name: "bash" });
			},
		};

		registry.use(plugin).use(plugin).use(plugin);

		expect(applied).toEqual([registry]);
		expect(userTexts(registry.convert([bash("ls")]))).toEqual(["ran ls"]);
	});

	it("should refuse a second plugin object with a name already used, since it would run twice", () => {
		const registry = createRegistry();
		let count = 0;
		const make = (): Plugin => ({
			name: "same-name",
			apply() {
				count++;
			},
		});

		registry.use(make());
		const error = thrownBy(() => registry.use(make()));

		expect(count).toBe(1);
		expect(error).toBeInstanceOf(InvalidPluginError);
		expect(error).toMatchObject({ code: ErrorCode.INVALID_PLUGIN, plugin: "same-name" });
		expect((error as Error).message).toContain("run twice");
	});

	const badPlugins: [string, unknown][] = [
		["a plugin without a name", { apply() {} }],
		["a plugin with an empty name", { name: "", apply() {} }],
		["a plugin with a blank name", { name: "   ", apply() {} }],
		["a plugin with a non-string name", { name: 42, apply() {} }],
		["a plugin without apply", { name: "no-apply" }],
		["a plugin whose apply is not a function", { name: "bad-apply", apply: "yes" }],
		["undefined", undefined],
		["null", null],
		["a string", "my-plugin"],
		["a function", () => {}],
	];
	const badPluginCases = badPlugins.flatMap(([what, plugin]) =>
		MODES.map(({ mode, strict }) => ({ what, plugin, mode, strict })),
	);

	it.each(badPluginCases)("should throw InvalidPluginError for $what in $mode mode", ({ plugin, strict }) => {
		const registry = createRegistry({ strict });

		const error = thrownBy(() => registry.use(plugin as Plugin));

		expect(error).toBeInstanceOf(InvalidPluginError);
		expect(error).toBeInstanceOf(ConvertToLlmError);
		expect((error as InvalidPluginError).code).toBe(ErrorCode.INVALID_PLUGIN);
		expect((error as Error).message).toMatch(/apply|name/);
	});

	it("should name the plugin in the error when only apply is missing", () => {
		const error = thrownBy(() => createRegistry().use({ name: "half-done" } as unknown as Plugin));

		expect(error).toMatchObject({ plugin: "half-done" });
		expect((error as Error).message).toContain('"half-done"');
	});
});

describe("registry.register", () => {
	it("should be chainable", () => {
		const registry = createRegistry();

		expect(registry.register("bashExecution", bashToUser, { name: "bash" })).toBe(registry);
	});

	it("should convert a role with the registered converter", () => {
		const registry = createRegistry().register("bashExecution", (m) => user(`$ ${m.command}`, m.timestamp), {
			name: "bash",
		});

		expect(registry.convert([bash("ls -la")])).toEqual([user("$ ls -la")]);
		expect(registry.roles()).toEqual(["bashExecution"]);
	});

	const badOptions: [string, unknown][] = [
		["no options", undefined],
		["options without a name", {}],
		["an empty name", { name: "" }],
		["a blank name", { name: "  " }],
		["a non-string name", { name: 7 }],
	];
	const badOptionCases = badOptions.flatMap(([what, options]) =>
		MODES.map(({ mode, strict }) => ({ what, options, mode, strict })),
	);

	it.each(badOptionCases)("should throw InvalidPluginError for $what in $mode mode", ({ options, strict }) => {
		const registry = createRegistry({ strict });

		const error = thrownBy(() => registry.register("bashExecution", bashToUser, options as { name: string }));

		expect(error).toBeInstanceOf(InvalidPluginError);
		expect((error as InvalidPluginError).code).toBe(ErrorCode.INVALID_PLUGIN);
		expect((error as Error).message).toContain("name");
		expect(registry.roles()).toEqual([]);
	});

	it.each([
		["a non-string role", 42, bashToUser],
		["a converter that is not a function", "bashExecution", "not a function"],
	])("should throw InvalidPluginError for %s", (_what, role, converter) => {
		const error = thrownBy(() =>
			createRegistry().register(role as "bashExecution", converter as typeof bashToUser, { name: "p" }),
		);

		expect(error).toBeInstanceOf(InvalidPluginError);
		expect(error).toMatchObject({ plugin: "p" });
	});

	describe("duplicates", () => {
		it.each(MODES)(
			"should throw DuplicateConverterError for a second converter of a role in $mode mode",
			({ strict }) => {
				const registry = createRegistry({ strict }).register("bashExecution", bashToUser, { name: "first-plugin" });

				const error = thrownBy(() =>
					registry.register("bashExecution", () => user("second"), { name: "second-plugin" }),
				);

				expect(error).toBeInstanceOf(DuplicateConverterError);
				expect(error).toBeInstanceOf(ConvertToLlmError);
				expect(error).toMatchObject({
					name: "DuplicateConverterError",
					code: ErrorCode.DUPLICATE_CONVERTER,
					plugin: "second-plugin",
				});
				const message = (error as Error).message;
				expect(message).toContain('"first-plugin"');
				expect(message).toContain('"second-plugin"');
				expect(message).toContain("bashExecution");
				expect(message).toContain("override: true");
				// The first converter is kept, untouched.
				expect(userTexts(registry.convert([bash("ls")]))).toEqual(["ran ls"]);
			},
		);

		it("should set role on DuplicateConverterError", () => {
			const registry = createRegistry().register("bashExecution", bashToUser, { name: "first-plugin" });

			const error = thrownBy(() => registry.register("bashExecution", bashToUser, { name: "second-plugin" }));

			expect(error).toMatchObject({ role: "bashExecution", plugin: "second-plugin" });
		});

		it("should throw for a duplicate even when both converters come from one plugin name", () => {
			const registry = createRegistry().register("user", (m) => m, { name: "same" });

			expect(() => registry.register("user", (m) => m, { name: "same" })).toThrow(DuplicateConverterError);
		});

		it("should offer no converter hooks to tap around register()", () => {
			const registry = createRegistry().register("user", (m) => m, { name: "first" });

			expect("convert" in registry.hooks).toBe(false);
			expect("convertCustom" in registry.hooks).toBe(false);
		});
	});

	describe("override", () => {
		it("should run the override first and keep the earlier converter as its fallback when it returns undefined", () => {
			const calls: string[] = [];
			const registry = createRegistry()
				.register(
					"bashExecution",
					(m) => {
						calls.push(`base ${m.command}`);
						return bashToUser(m);
					},
					{ name: "base" },
				)
				.register(
					"bashExecution",
					(m) => {
						calls.push(`override ${m.command}`);
						return m.command === "secret" ? user("[redacted]") : undefined;
					},
					{ name: "redactor", override: true },
				);

			const output = registry.convert([bash("ls"), bash("secret")]);

			expect(userTexts(output)).toEqual(["ran ls", "[redacted]"]);
			expect(calls).toEqual(["override ls", "base ls", "override secret"]);
		});

		it("should fall back to the earlier converter when the override throws, reporting it once", () => {
			const registry = createRegistry()
				.register("bashExecution", bashToUser, { name: "base" })
				.register(
					"bashExecution",
					() => {
						throw new Error("override broke");
					},
					{ name: "broken-override", override: true },
				);
			const errors = collectErrors(registry);

			expect(userTexts(registry.convert([bash("ls")]))).toEqual(["ran ls"]);
			expect(errors).toHaveLength(1);
			expect(errors[0]).toBeInstanceOf(ConversionError);
			expect(errors[0]).toMatchObject({ role: "bashExecution", index: 0, plugin: "broken-override" });
		});

		/** A registry whose `user` converter "base" records its calls, and a pass-through override that records its name. */
		function overridden() {
			const calls: string[] = [];
			const pass = (name: string) => (): undefined => {
				calls.push(name);
				return undefined;
			};
			const registry = createRegistry().register(
				"user",
				(m) => {
					calls.push("base");
					return m;
				},
				{ name: "base" },
			);
			return { calls, pass, registry };
		}

		it("should stack overrides, the latest first", () => {
			const { calls, pass, registry } = overridden();
			registry
				.register("user", pass("first-override"), { name: "first-override", override: true })
				.register("user", pass("second-override"), { name: "second-override", override: true });

			registry.convert([user("hi")]);

			expect(calls).toEqual(["second-override", "first-override", "base"]);
		});

		it("should order overrides by stage: a lower stage runs first, whatever the registration order", () => {
			const { calls, pass, registry } = overridden();
			registry
				.register("user", pass("early"), { name: "early", override: true, stage: Stage.EARLY })
				.register("user", pass("default"), { name: "default", override: true })
				.register("user", pass("earliest"), { name: "earliest", override: true, stage: Stage.EARLY - 1 });

			registry.convert([user("hi")]);

			expect(calls).toEqual(["earliest", "early", "default", "base"]);
		});

		it("should accept override: true on the first converter of a role", () => {
			const registry = createRegistry().register("bashExecution", bashToUser, { name: "only", override: true });

			expect(userTexts(registry.convert([bash("ls")]))).toEqual(["ran ls"]);
		});

		it("should let a user override a model role of the default preset and keep pass-through as fallback", () => {
			const registry = createDefaultRegistry().register("user", (m) => (m.content === "secret" ? null : undefined), {
				name: "drop-secret",
				override: true,
			});
			const kept = user("hello");

			const output = registry.convert([kept, user("secret")]);

			expect(output).toHaveLength(1);
			expect(output[0]).toBe(kept);
		});
	});

	describe("customType", () => {
		it("should send only messages of that customType to a customType converter", () => {
			const seen: string[] = [];
			const registry = createRegistry().register(
				"custom",
				(m) => {
					seen.push(m.customType);
					return user(`todo: ${String(m.content)}`);
				},
				{ name: "todo-ext", customType: "todo" },
			);
			const errors = collectErrors(registry);

			const output = registry.convert([custom("todo", "a"), custom("other", "b"), custom("todo", "c")]);

			expect(userTexts(output)).toEqual(["todo: a", "todo: c"]);
			expect(seen).toEqual(["todo", "todo"]);
			expect(errors).toHaveLength(1);
			expect(errors[0]).toBeInstanceOf(UnknownRoleError);
			expect(errors[0]).toMatchObject({ role: "custom", customType: "other", index: 1 });
		});

		it("should run a customType converter before the generic custom converter, which stays the fallback", () => {
			const calls: string[] = [];
			const registry = createRegistry()
				.register(
					"custom",
					(m) => {
						calls.push(`generic ${m.customType}`);
						return user(`generic: ${String(m.content)}`);
					},
					{ name: "generic" },
				)
				.register(
					"custom",
					(m) => {
						calls.push(`todo ${String(m.content)}`);
						return m.content === "pass" ? undefined : user(`todo: ${String(m.content)}`);
					},
					{ name: "todo-ext", customType: "todo" },
				);

			const output = registry.convert([custom("todo", "mine"), custom("todo", "pass"), custom("notes", "n")]);

			expect(userTexts(output)).toEqual(["todo: mine", "generic: pass", "generic: n"]);
			expect(calls).toEqual(["todo mine", "todo pass", "generic todo", "generic notes"]);
		});

		it("should run the customType converter first even when it was registered before the generic one", () => {
			const registry = createRegistry()
				.register("custom", () => user("typed"), { name: "typed", customType: "t" })
				.register("custom", () => user("generic"), { name: "generic" });

			expect(userTexts(registry.convert([custom("t"), custom("u")]))).toEqual(["typed", "generic"]);
		});

		it("should fall back to the generic converter when the customType converter throws, reporting it once", () => {
			const registry = createRegistry()
				.register("custom", () => user("generic"), { name: "generic" })
				.register(
					"custom",
					() => {
						throw new TypeError("bad todo");
					},
					{ name: "todo-ext", customType: "todo" },
				);
			const errors = collectErrors(registry);

			expect(userTexts(registry.convert([custom("todo")]))).toEqual(["generic"]);
			expect(errors).toHaveLength(1);
			expect(errors[0]).toMatchObject({
				code: ErrorCode.CONVERSION_FAILED,
				role: "custom",
				customType: "todo",
				index: 0,
				plugin: "todo-ext",
			});
			expect((errors[0] as Error).cause).toBeInstanceOf(TypeError);
		});

		it("should not let customType converters of one type collide with another type or the generic converter", () => {
			const registry = createRegistry()
				.register("custom", () => user("generic"), { name: "generic" })
				.register("custom", () => user("a"), { name: "a", customType: "a" })
				.register("custom", () => user("b"), { name: "b", customType: "b" });

			expect(userTexts(registry.convert([custom("b"), custom("a"), custom("c")]))).toEqual(["b", "a", "generic"]);
		});

		it.each(MODES)(
			"should throw DuplicateConverterError for a second converter of a customType in $mode mode",
			({ strict }) => {
				const registry = createRegistry({ strict }).register("custom", () => user("one"), {
					name: "ext-one",
					customType: "todo",
				});

				const error = thrownBy(() =>
					registry.register("custom", () => user("two"), { name: "ext-two", customType: "todo" }),
				);

				expect(error).toBeInstanceOf(DuplicateConverterError);
				expect(error).toMatchObject({ plugin: "ext-two" });
				expect((error as Error).message).toContain('"ext-one"');
				expect((error as Error).message).toContain('"todo"');
			},
		);

		it("should set role and customType on DuplicateConverterError for a customType", () => {
			const registry = createRegistry().register("custom", () => user("one"), {
				name: "ext-one",
				customType: "todo",
			});

			const error = thrownBy(() =>
				registry.register("custom", () => user("two"), { name: "ext-two", customType: "todo" }),
			);

			expect(error).toMatchObject({ role: "custom", customType: "todo", plugin: "ext-two" });
		});

		it("should run an overriding customType converter first, with the earlier one as its fallback", () => {
			const registry = createRegistry()
				.register("custom", () => user("one"), { name: "ext-one", customType: "todo" })
				.register("custom", (m) => (m.content === "mine" ? user("two") : undefined), {
					name: "ext-two",
					customType: "todo",
					override: true,
				});

			expect(userTexts(registry.convert([custom("todo", "mine"), custom("todo", "other")]))).toEqual(["two", "one"]);
		});

		it.each(["user", "assistant", "toolResult", "bashExecution", "branchSummary", "compactionSummary"] as const)(
			"should throw InvalidPluginError for a customType on role %s",
			(role) => {
				const registry = createRegistry();

				const error = thrownBy(() =>
					registry.register(role, () => null, { name: "misplaced", customType: "todo" } as { name: string }),
				);

				expect(error).toBeInstanceOf(InvalidPluginError);
				expect(error).toMatchObject({ plugin: "misplaced", role });
				expect((error as Error).message).toContain('"custom"');
				expect(registry.roles()).toEqual([]);
			},
		);

		it.each<[string, unknown]>([
			["a number", 5],
			["null", null],
		])("should throw InvalidPluginError for a customType that is %s", (_what, customType) => {
			expect(() =>
				createRegistry().register("custom", () => null, { name: "p", customType: customType as string }),
			).toThrow(InvalidPluginError);
		});

		it("should list custom among the roles when only customType converters exist", () => {
			const registry = createRegistry().register("custom", () => null, { name: "p", customType: "x" });

			expect(registry.roles()).toEqual(["custom"]);
		});
	});

	it("should convert a role a consumer declared by merging into CustomAgentMessages", () => {
		const registry = createDefaultRegistry().register(
			"auditNote",
			(m) => (m.severity === "warn" ? user(`[audit] ${m.note}`, m.timestamp) : null),
			{ name: "audit-ext" },
		);
		const errors = collectErrors(registry);
		const note: AuditNoteMessage = { role: "auditNote", note: "disk almost full", severity: "warn", timestamp: T0 };

		const output = registry.convert([
			user("hi"),
			note,
			{ role: "auditNote", note: "fyi", severity: "info", timestamp: T0 },
		]);

		expect(output).toEqual([user("hi"), user("[audit] disk almost full")]);
		expect(errors).toEqual([]);
		expect(registry.roles()).toContain("auditNote");
	});
});

describe("registry.convert", () => {
	describe("converter results", () => {
		it("should treat undefined as 'not mine' and let the next converter decide", () => {
			const registry = createRegistry()
				.register("bashExecution", bashToUser, { name: "base" })
				.register("bashExecution", () => undefined, { name: "abstainer", override: true });
			const errors = collectErrors(registry);

			expect(userTexts(registry.convert([bash("ls")]))).toEqual(["ran ls"]);
			expect(errors).toEqual([]);
		});

		it.each([
			["null", null],
			["an empty array", []],
		])("should drop the message, without reporting, when the converter returns %s", (_what, result) => {
			const registry = createRegistry()
				.use(modelRoles)
				.register("bashExecution", () => result, { name: "dropper" });
			const errors = collectErrors(registry);

			const output = registry.convert([user("before"), bash("ls"), user("after")]);

			expect(userTexts(output)).toEqual(["before", "after"]);
			expect(errors).toEqual([]);
		});

		it("should not ask the fallback when a converter drops a message", () => {
			let fallbackCalls = 0;
			const registry = createRegistry()
				.register(
					"bashExecution",
					(m) => {
						fallbackCalls++;
						return bashToUser(m);
					},
					{ name: "base" },
				)
				.register("bashExecution", () => null, { name: "dropper", override: true });

			expect(registry.convert([bash("ls")])).toEqual([]);
			expect(fallbackCalls).toBe(0);
		});

		it("should turn one message into several, keeping their order and the history's order", () => {
			const registry = createRegistry()
				.use(modelRoles)
				.register("bashExecution", (m) => [user(`cmd ${m.command}`), user(`out ${m.output}`), user("end")], {
					name: "splitter",
				});

			const output = registry.convert([
				user("a"),
				bash("ls", { output: "x" }),
				user("b"),
				bash("pwd", { output: "y" }),
			]);

			expect(userTexts(output)).toEqual(["a", "cmd ls", "out x", "end", "b", "cmd pwd", "out y", "end"]);
		});

		it("should accept a readonly (frozen) array result", () => {
			const results = Object.freeze([user("one"), user("two")]);
			const registry = createRegistry().register("bashExecution", () => results, { name: "frozen" });

			const output = registry.convert([bash("ls")]);

			expect(userTexts(output)).toEqual(["one", "two"]);
			expect(output).not.toBe(results);
		});

		it("should give converters the index, the history and the mode", () => {
			const seen: { index: number; messages: readonly unknown[]; strict: boolean }[] = [];
			const input = [bash("a"), user("x"), bash("b")];
			const registry = createRegistry({ strict: true })
				.use(modelRoles)
				.register(
					"bashExecution",
					(m, ctx) => {
						seen.push({ index: ctx.index, messages: ctx.messages, strict: ctx.strict });
						return bashToUser(m);
					},
					{ name: "bash" },
				);

			registry.convert(input);

			expect(seen.map((s) => s.index)).toEqual([0, 2]);
			expect(seen[0]?.messages).toBe(input);
			expect(seen.every((s) => s.strict)).toBe(true);
		});
	});

	describe("unknown roles", () => {
		const roles = ["notification", "constructor", "__proto__", "toString", "hasOwnProperty", "valueOf", ""];

		it.each(roles)("should drop role %j and report it once as UnknownRoleError (lenient)", (role) => {
			const registry = createRegistry().use(modelRoles);
			const errors = collectErrors(registry);

			const output = registry.convert(history(user("before"), { role, timestamp: T0 }, user("after")));

			expect(userTexts(output)).toEqual(["before", "after"]);
			expect(errors).toHaveLength(1);
			expect(errors[0]).toBeInstanceOf(UnknownRoleError);
			expect(errors[0]).toMatchObject({
				name: "UnknownRoleError",
				code: ErrorCode.UNKNOWN_ROLE,
				role,
				index: 1,
			});
			expect(errors[0]?.message).toContain("register");
		});

		it.each(roles)("should throw UnknownRoleError for role %j (strict)", (role) => {
			const registry = createRegistry({ strict: true }).use(modelRoles);

			const error = thrownBy(() => registry.convert(history(user("before"), { role, timestamp: T0 })));

			expect(error).toBeInstanceOf(UnknownRoleError);
			expect(error).toMatchObject({ role, index: 1 });
		});

		it.each(MODES)("should treat a message every converter passes on as unknown ($mode)", ({ strict }) => {
			const registry = createRegistry({ strict }).register("bashExecution", () => undefined, { name: "abstainer" });
			const errors = collectErrors(registry);

			const run = () => registry.convert([bash("ls")]);

			if (strict) {
				expect(thrownBy(run)).toMatchObject({ code: ErrorCode.UNKNOWN_ROLE, role: "bashExecution", index: 0 });
			} else {
				expect(run()).toEqual([]);
				expect(errors).toHaveLength(1);
				expect(errors[0]).toBeInstanceOf(UnknownRoleError);
				expect(errors[0]?.message).toContain('"abstainer"');
				expect(errors[0]?.message).toContain("null");
			}
		});

		it("should not let a role named like an Object.prototype member reach a prototype function", () => {
			const registry = createDefaultRegistry();
			const errors = collectErrors(registry);

			const output = registry.convert(
				history(
					{ role: "constructor" },
					{ role: "__proto__" },
					{ role: "toString" },
					{ role: "hasOwnProperty" },
					{ role: "__defineGetter__" },
					user("kept"),
				),
			);

			expect(output).toEqual([user("kept")]);
			expect(errors.map((e) => [e.constructor, e.index])).toEqual([
				[UnknownRoleError, 0],
				[UnknownRoleError, 1],
				[UnknownRoleError, 2],
				[UnknownRoleError, 3],
				[UnknownRoleError, 4],
			]);
		});
	});

	describe("malformed entries", () => {
		const entries: [string, unknown][] = [
			["null", null],
			["undefined", undefined],
			["a number", 42],
			["a string", "str"],
			["a boolean", true],
			["an empty object", {}],
			["an object with a numeric role", { role: 5 }],
			["an object with a null role", { role: null }],
			["an object with an object role", { role: { toString: () => "user" } }],
			["an empty array", []],
			["an array holding a message", [{ role: "user", content: "x", timestamp: 0 }]],
		];
		const cases = entries.flatMap(([what, entry]) =>
			MODES.map(({ mode, strict }) => ({ what, entry, mode, strict })),
		);

		it.each(cases)("should handle $what as an InvalidMessageError with its index ($mode)", ({ entry, strict }) => {
			const registry = createRegistry({ strict }).use(modelRoles);
			const errors = collectErrors(registry);

			const run = () => registry.convert(history(user("before"), entry, user("after")));

			if (strict) {
				const error = thrownBy(run);
				expect(error).toBeInstanceOf(InvalidMessageError);
				expect(error).toMatchObject({ code: ErrorCode.INVALID_MESSAGE, index: 1 });
			} else {
				expect(userTexts(run())).toEqual(["before", "after"]);
				expect(errors).toHaveLength(1);
				expect(errors[0]).toBeInstanceOf(InvalidMessageError);
				expect(errors[0]).toMatchObject({ name: "InvalidMessageError", index: 1 });
				expect(errors[0]?.message).toContain("Message 1");
			}
		});

		it("should treat a hole in a sparse history as a malformed entry", () => {
			const registry = createRegistry().use(modelRoles);
			const errors = collectErrors(registry);
			const sparse: AgentMessage[] = [];
			sparse[1] = user("after the hole");

			expect(userTexts(registry.convert(sparse))).toEqual(["after the hole"]);
			expect(errors.map((e) => [e.code, e.index])).toEqual([[ErrorCode.INVALID_MESSAGE, 0]]);
		});

		it("should not throw (lenient) on an entry whose role getter throws, and report it once", () => {
			const registry = createRegistry().use(modelRoles);
			const errors = collectErrors(registry);
			const hostile = {
				get role(): string {
					throw new Error("role getter exploded");
				},
			};

			const output = registry.convert(history(user("before"), hostile, user("after")));

			expect(userTexts(output)).toEqual(["before", "after"]);
			expect(errors).toHaveLength(1);
			expect(errors[0]).toBeInstanceOf(ConvertToLlmError);
			expect(errors[0]?.index).toBe(1);
		});

		it("should not throw (lenient) on a custom message whose customType is a bigint", () => {
			const registry = createRegistry().use(modelRoles);
			const errors = collectErrors(registry);

			const output = registry.convert(
				history(user("before"), { role: "custom", customType: 10n, content: "x", timestamp: T0 }, user("after")),
			);

			expect(userTexts(output)).toEqual(["before", "after"]);
			expect(errors).toHaveLength(1);
			expect(errors[0]).toMatchObject({ role: "custom", index: 1 });
		});
	});

	describe("non-array argument", () => {
		const values: [string, unknown][] = [
			["undefined", undefined],
			["null", null],
			["an object", {}],
			["a string", "x"],
			["a number", 3],
			["an array-like object", { length: 1, 0: { role: "user", content: "x", timestamp: 0 } }],
			["a message", { role: "user", content: "x", timestamp: 0 }],
		];

		it.each(values)("should return [] for %s and report one InvalidMessageError (lenient)", (_what, value) => {
			const registry = createDefaultRegistry();
			const errors = collectErrors(registry);

			expect(registry.convert(value as AgentMessage[])).toEqual([]);
			expect(errors).toHaveLength(1);
			expect(errors[0]).toBeInstanceOf(InvalidMessageError);
			expect(errors[0]?.index).toBeUndefined();
			expect(errors[0]?.message).toContain("array");
		});

		it.each(values)("should resolve to [] for %s in convertAsync and report once (lenient)", async (_what, value) => {
			const registry = createDefaultRegistry();
			const errors = collectErrors(registry);

			await expect(registry.convertAsync(value as AgentMessage[])).resolves.toEqual([]);
			expect(errors).toHaveLength(1);
			expect(errors[0]).toBeInstanceOf(InvalidMessageError);
		});

		it.each(values)("should throw InvalidMessageError for %s (strict)", async (_what, value) => {
			const registry = createDefaultRegistry({ strict: true });

			expect(() => registry.convert(value as AgentMessage[])).toThrow(InvalidMessageError);
			await expect(registry.convertAsync(value as AgentMessage[])).rejects.toBeInstanceOf(InvalidMessageError);
		});
	});

	describe("faulty converters", () => {
		const throwers: [string, unknown][] = [
			["an Error", new Error("disk on fire")],
			["a TypeError", new TypeError("cannot read x of undefined")],
			["a string", "plain string thrown"],
			["undefined", undefined],
		];

		it.each(throwers)(
			"should drop the message and report a converter that throws %s exactly once (lenient)",
			(_what, thrown) => {
				const registry = createRegistry()
					.use(modelRoles)
					.register(
						"bashExecution",
						() => {
							throw thrown;
						},
						{ name: "fragile" },
					);
				const errors = collectErrors(registry);

				const output = registry.convert([user("before"), bash("ls"), user("after")]);

				expect(userTexts(output)).toEqual(["before", "after"]);
				expect(errors).toHaveLength(1);
				expect(errors[0]).toBeInstanceOf(ConversionError);
				expect(errors[0]).toMatchObject({
					name: "ConversionError",
					code: ErrorCode.CONVERSION_FAILED,
					role: "bashExecution",
					index: 1,
					plugin: "fragile",
				});
				expect(errors[0]?.cause).toBe(thrown);
				expect(errors[0]?.message).toContain('"fragile"');
				expect(errors[0]?.message).toContain("message 1");
			},
		);

		it.each(throwers)("should throw a ConversionError for a converter that throws %s (strict)", (_what, thrown) => {
			const registry = createRegistry({ strict: true })
				.use(modelRoles)
				.register("bashExecution", bashToUser, { name: "base" })
				.register(
					"bashExecution",
					() => {
						throw thrown;
					},
					{ name: "fragile", override: true },
				);

			const error = thrownBy(() => registry.convert([user("before"), bash("ls")]));

			expect(error).toBeInstanceOf(ConversionError);
			expect(error).toMatchObject({ role: "bashExecution", index: 1, plugin: "fragile" });
			expect((error as Error).cause).toBe(thrown);
		});

		it.each(MODES)("should pass on an error that is already ours without wrapping it ($mode)", ({ strict }) => {
			const inner = new InvalidMessageError("nested registry refused it", { index: 9 });
			const registry = createRegistry({ strict }).register(
				"bashExecution",
				() => {
					throw inner;
				},
				{ name: "nested" },
			);
			const errors = collectErrors(registry);

			if (strict) {
				expect(thrownBy(() => registry.convert([bash("ls")]))).toBe(inner);
			} else {
				expect(registry.convert([bash("ls")])).toEqual([]);
				expect(errors).toHaveLength(1);
				expect(errors[0]).toBe(inner);
			}
		});

		const badResults: [string, (m: BashExecutionMessage) => unknown, RegExp][] = [
			["the AgentMessage itself", (m) => m, /role "bashExecution"/],
			["another AgentMessage", () => custom("x"), /role "custom"/],
			["a string", () => "ran ls", /string/],
			["a number", () => 42, /number 42/],
			["a boolean", () => false, /boolean false/],
			["an object without a role", () => ({ content: "x" }), /without a string role/],
			["an object with a role pi-ai does not know", () => ({ role: "developer", content: "x" }), /role "developer"/],
			["an array with a bad item", () => [user("fine"), "oops"], /item 1/],
			["an array holding an AgentMessage", (m) => [m], /item 0/],
			["an array holding null", () => [null], /item 0/],
		];
		const badResultCases = badResults.flatMap(([what, converter, detail]) =>
			MODES.map(({ mode, strict }) => ({ what, converter, detail, mode, strict })),
		);

		it.each(badResultCases)(
			"should report a converter returning $what as a ConversionError ($mode)",
			({ converter, detail, strict }) => {
				const registry = createRegistry({ strict })
					.register("bashExecution", bashToUser, { name: "base" })
					.register("bashExecution", converter as (m: BashExecutionMessage) => UserMessage, {
						name: "sloppy",
						override: true,
					});
				const errors = collectErrors(registry);

				const run = () => registry.convert([bash("ls")]);

				if (strict) {
					const error = thrownBy(run);
					expect(error).toBeInstanceOf(ConversionError);
					expect(error).toMatchObject({ role: "bashExecution", index: 0, plugin: "sloppy" });
					expect((error as Error).message).toMatch(detail);
				} else {
					// The earlier converter is the fallback; nothing invalid reaches the output.
					expect(userTexts(run())).toEqual(["ran ls"]);
					expect(errors).toHaveLength(1);
					expect(errors[0]).toBeInstanceOf(ConversionError);
					expect(errors[0]).toMatchObject({ role: "bashExecution", index: 0, plugin: "sloppy" });
					expect(errors[0]?.message).toMatch(detail);
					expect(errors[0]?.message).toContain("Message");
				}
			},
		);

		it("should drop the message when the only converter returns a non-Message, reporting once", () => {
			const registry = createRegistry().register("bashExecution", (m) => m as unknown as UserMessage, {
				name: "sloppy",
			});
			const errors = collectErrors(registry);

			expect(registry.convert([bash("ls")])).toEqual([]);
			expect(errors).toHaveLength(1);
			expect(errors[0]).toBeInstanceOf(ConversionError);
		});

		it("should report each problem of a history once, in order", () => {
			const registry = createRegistry()
				.use(modelRoles)
				.register(
					"bashExecution",
					() => {
						throw new Error("nope");
					},
					{ name: "fragile" },
				)
				.register("custom", () => "bad" as unknown as UserMessage, { name: "sloppy" });
			const errors = collectErrors(registry);

			const output = registry.convert(
				history(user("0"), bash("1"), null, { role: "mystery" }, custom("4"), user("5"), { role: 6 }),
			);

			expect(userTexts(output)).toEqual(["0", "5"]);
			expect(errors.map((e) => [e.name, e.index, e.plugin])).toEqual([
				["ConversionError", 1, "fragile"],
				["InvalidMessageError", 2, undefined],
				["UnknownRoleError", 3, undefined],
				["ConversionError", 4, "sloppy"],
				["InvalidMessageError", 6, undefined],
			]);
		});

		it("should keep converting when an error tap throws", () => {
			const registry = createRegistry().use(modelRoles);
			registry.hooks.error.tap("throwing-logger", () => {
				throw new Error("logger down");
			});
			const errors = collectErrors(registry);

			const output = registry.convert(history(user("a"), { role: "mystery" }, null, user("b")));

			expect(userTexts(output)).toEqual(["a", "b"]);
			expect(errors.map((e) => e.index)).toEqual([1, 2]);
		});

		it("should not call hooks.error in strict mode: the error is thrown instead", () => {
			const registry = createRegistry({ strict: true }).use(modelRoles);
			const errors = collectErrors(registry);

			expect(() => registry.convert(history({ role: "mystery" }))).toThrow(UnknownRoleError);
			expect(errors).toEqual([]);
		});
	});

	describe("unbound use", () => {
		it("should convert when destructured from the registry", async () => {
			const { convert, convertAsync } = createDefaultRegistry();
			const input = [user("hi"), bash("ls")];

			expect(convert(input)).toHaveLength(2);
			await expect(convertAsync(input)).resolves.toHaveLength(2);
		});

		it.each([
			["another object", { convert: "not me" }],
			["undefined", undefined],
			["null", null],
		])("should convert when called with %s as this", async (_what, self) => {
			const registry = createDefaultRegistry();
			const input = [user("hi"), bash("ls")];
			const expected = registry.convert(input);

			expect(registry.convert.call(self, input)).toEqual(expected);
			expect(Reflect.apply(registry.convert, self, [input])).toEqual(expected);
			await expect(registry.convertAsync.call(self, input)).resolves.toEqual(expected);
		});

		it("should work as a callback of another object, as pi-agent-core calls config.convertToLlm(messages)", async () => {
			const registry = createDefaultRegistry();
			const config = { convertToLlm: registry.convert, convertToLlmAsync: registry.convertAsync };

			expect(config.convertToLlm([user("hi")])).toEqual([user("hi")]);
			await expect(config.convertToLlmAsync([user("hi")])).resolves.toEqual([user("hi")]);
		});
	});

	describe("input", () => {
		function deepFreeze<T>(value: T): T {
			if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
				Object.freeze(value);
				for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
			}
			return value;
		}

		function everyRole(): AgentMessage[] {
			return [
				createCompactionSummaryMessage("compacted", 1000, T0),
				user("hello"),
				{
					role: "user",
					content: [
						{ type: "text", text: "look" },
						{ type: "image", data: "AAAA", mimeType: "image/png" },
					],
					timestamp: T0,
				},
				fauxAssistantMessage("hi there", { timestamp: T0 }),
				toolResult("file contents"),
				bash("npm test", { output: "1 failing", exitCode: 1, truncated: true, fullOutputPath: "/tmp/log" }),
				bash("cat secrets", { excludeFromContext: true }),
				custom("notes", "remember"),
				createCustomMessage("screens", [{ type: "text", text: "screen" }], false, { n: 1 }, T0),
				createBranchSummaryMessage("tried X", "abc", T0),
			];
		}

		it("should convert a deep-frozen history without mutating it", async () => {
			const input = deepFreeze(everyRole());
			const snapshot = structuredClone(input);
			const registry = createDefaultRegistry();
			registry.hooks.afterConvert.tap("tail", (messages) => [...messages, user("tail")]);

			const output = registry.convert(input);
			const asyncOutput = await registry.convertAsync(input);

			expect(output).toHaveLength(10);
			expect(asyncOutput).toEqual(output);
			expect(input).toEqual(snapshot);
		});

		it("should pass user, assistant and toolResult messages through as the same objects", () => {
			const input = everyRole();
			const registry = createDefaultRegistry();

			const output = registry.convert(input);

			const passed = input.filter((m) => m.role === "user" || m.role === "assistant" || m.role === "toolResult");
			for (const message of passed) expect(output).toContain(message);
			expect(output.filter((m) => passed.includes(m))).toHaveLength(passed.length);
		});

		it("should return a new array, never the input", () => {
			const input = [user("a"), user("b")];

			const output = createDefaultRegistry().convert(input);

			expect(output).not.toBe(input);
			expect(output).toEqual(input);
		});
	});
});
