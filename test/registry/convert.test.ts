/**
 * The registry's contract, part 3: `convert()`: what a converter's result means, unknown roles,
 * malformed input, faulty converters (each reported once in lenient mode and thrown in strict mode),
 * unbound use and the input left untouched.
 */
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { fauxAssistantMessage, type UserMessage } from "@earendil-works/pi-ai";
import { describe, expect, it } from "vitest";
import {
	type BashExecutionMessage,
	ConversionError,
	ConvertToLlmError,
	createBranchSummaryMessage,
	createCompactionSummaryMessage,
	createCustomMessage,
	createRegistry,
	ErrorCode,
	InvalidMessageError,
	modelRoles,
	UnknownRoleError,
} from "../../src/index.js";
import { createDefaultRegistry } from "../../src/preset.js";
import { collectErrors, MODES, T0, thrownBy, user, userTexts } from "../support/fixtures.js";

import { bash, bashToUser, custom, history, toolResult } from "../support/registry-helpers.js";

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

		it("should fall back, and report the override, when its result's role cannot be read, in every loop", () => {
			const make = (options: object) => {
				const registry = createRegistry(options as never)
					.use(modelRoles)
					.register("bashExecution", bashToUser, { name: "base" })
					.register(
						"bashExecution",
						() =>
							({
								get role(): string {
									throw new Error("no role");
								},
							}) as never,
						{ name: "unreadable", override: true },
					);
				return { registry, errors: collectErrors(registry) };
			};
			const history = [bash("ls"), user("after")];
			const compiled = make({});
			compiled.registry.convert(history);
			compiled.errors.length = 0;
			const output = compiled.registry.convert(history);
			expect(userTexts(output)).toEqual([userTexts([bashToUser(bash("ls"))])[0], "after"]);
			expect(compiled.errors).toHaveLength(1);
			expect(compiled.errors[0]).toMatchObject({ index: 0, plugin: "unreadable" });
			for (const options of [{ isolate: true }]) {
				const other = make(options);
				expect(other.registry.convert(history)).toStrictEqual(output);
				expect(other.errors.map((e) => e.message)).toEqual(compiled.errors.map((e) => e.message));
			}
			expect(make({}).registry.explain(history).output).toStrictEqual(output);
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
			expect(output.filter((m) => (passed as readonly unknown[]).includes(m))).toHaveLength(passed.length);
		});

		it("should return a new array, never the input", () => {
			const input = [user("a"), user("b")];

			const output = createDefaultRegistry().convert(input);

			expect(output).not.toBe(input);
			expect(output).toEqual(input);
		});
	});
});
