import { describe, expect, it } from "vitest";
import {
	ConvertToLlmError,
	createRegistry,
	ErrorCode,
	InvalidPluginError,
	modelRoles,
	type Plugin,
	type Registry,
	UnknownRoleError,
} from "../../src/index.js";
import { collectErrors, MODES, thrownBy, user, userTexts } from "../support/fixtures.js";

import { bash, bashToUser, history } from "../support/registry-helpers.js";

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
