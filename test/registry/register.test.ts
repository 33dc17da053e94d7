import { describe, expect, it } from "vitest";
import {
	ConversionError,
	ConvertToLlmError,
	createRegistry,
	DuplicateConverterError,
	ErrorCode,
	InvalidPluginError,
	Stage,
	UnknownRoleError,
} from "../../src/index.js";
import { createDefaultRegistry } from "../../src/preset.js";
import { collectErrors, MODES, T0, thrownBy, user, userTexts } from "../support/fixtures.js";

import { type AuditNoteMessage, bash, bashToUser, custom } from "../support/registry-helpers.js";

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
