/**
 * `src/values.ts`: one home for value inspection (describing, quoting, reading settings). Every helper
 * is total: it answers for hostile values (a proxy whose every trap throws another such
 * proxy, a revoked proxy, `Object.create(null)`, symbols) instead of throwing.
 */
import { describe, expect, it } from "vitest";
import {
	describeValue,
	errorText,
	isImageBlock,
	isInstance,
	isJsonObject,
	isNonTextBlock,
	isPluginShape,
	isRecord,
	quote,
	readSetting,
	settleWithin,
	textOf,
} from "../src/values.js";
import { bomb } from "./support/hostile.js";

const revoked = (): object => {
	const { proxy, revoke } = Proxy.revocable({}, {});
	revoke();
	return proxy;
};

const hostile: { kind: string; value: () => unknown }[] = [
	{ kind: "a proxy whose every trap throws", value: bomb },
	{ kind: "a revoked proxy", value: revoked },
	{ kind: "Object.create(null)", value: () => Object.create(null) },
	{ kind: "a symbol", value: () => Symbol("s") },
	{ kind: "a bigint", value: () => 10n },
	{
		kind: "an error whose message getter throws",
		value: () => Object.defineProperty(new Error(), "message", { get: bomb }),
	},
	{ kind: "a function", value: () => () => "source code" },
];

describe("values: total on hostile values", () => {
	it.each(hostile)("should describe, quote and give the text of $kind without throwing", ({ value }) => {
		expect(typeof describeValue(value())).toBe("string");
		expect(typeof quote(value())).toBe("string");
		expect(typeof errorText(value())).toBe("string");
		expect(typeof textOf(value())).toBe("string");
		expect(typeof isInstance(value(), Error)).toBe("boolean");
		expect(typeof isJsonObject(value())).toBe("boolean");
		expect(isPluginShape(value())).toBe(false);
	});

	it("should never print a function's source", () => {
		expect(describeValue(() => "secret")).toBe("a function");
	});

	it("should answer false for instanceof on a value whose prototype lookup throws", () => {
		expect(isInstance(bomb(), Error)).toBe(false);
		expect(isInstance(new TypeError("x"), Error)).toBe(true);
	});
});

describe("describeValue and quote: one wording", () => {
	it.each([
		[null, "null"],
		[undefined, "undefined"],
		[42, "number 42"],
		[true, "boolean true"],
		["x".repeat(50), `a string ("${"x".repeat(40)}…")`],
		[[1, 2], "an array of 2"],
		[{ role: "ticket" }, 'a message with role "ticket"'],
		[{ content: "x" }, "an object without a string role"],
	])("should describe %j as %s", (value, expected) => {
		expect(describeValue(value)).toBe(expected);
	});

	it("should quote strings whole up to 200 characters and cut longer ones", () => {
		expect(quote("call_1")).toBe('"call_1"');
		expect(quote("r".repeat(100_000))).toBe(`"${"r".repeat(200)}…"`);
		expect(quote(7)).toBe("number 7");
	});
});

describe("errorText", () => {
	it.each([
		[new Error("x is not a function."), "x is not a function"],
		[new Error("wait..."), "wait"],
		["plain", "plain"],
		[null, "null"],
		[Object.create(null), "an object without a string role"],
	])("should give the text of %s", (cause, expected) => {
		expect(errorText(cause)).toBe(expected);
	});

	it("should cut a huge message to 1,000 characters", () => {
		expect(errorText(new Error("e".repeat(1_000_000)))).toHaveLength(1001);
	});

	it("should drop a long run of final periods in linear time (no regex on the report path)", () => {
		expect(errorText(`a${".".repeat(100_000)}`)).toBe("a");
	});
});

describe("image tests", () => {
	it.each([
		{ block: { type: "image", data: "", mimeType: "image/png" }, pi: true, strict: true },
		{ block: { type: "Image", data: "", mimeType: "image/png" }, pi: false, strict: true },
		{ block: { data: "", mimeType: "image/png" }, pi: false, strict: true },
		{ block: null, pi: false, strict: true },
		{ block: "text", pi: false, strict: true },
		{ block: { type: "text", text: "hi" }, pi: false, strict: false },
	])("should test $block: pi's rule $pi, the strict rule $strict", ({ block, pi, strict }) => {
		expect(isImageBlock(block)).toBe(pi);
		expect(isNonTextBlock(block)).toBe(strict);
	});

	it("should count arrays as records but not as JSON objects", () => {
		expect(isRecord([])).toBe(true);
		expect(isJsonObject([])).toBe(false);
		expect(isJsonObject({})).toBe(true);
		expect(isRecord(null)).toBe(false);
	});
});

describe("isPluginShape: the shape registry.use() takes", () => {
	it.each([
		["a plugin", { name: "p", apply() {} }, true],
		["a blank name", { name: " \t", apply() {} }, false],
		["an empty name", { name: "", apply() {} }, false],
		["a name that is not a string", { name: 7, apply() {} }, false],
		["no apply", { name: "p" }, false],
		["apply that is not a function", { name: "p", apply: "x" }, false],
		["a function", () => {}, false],
		["a throwing name getter", Object.defineProperty({ apply() {} }, "name", { get: bomb }), false],
	])("should answer for %s", (_kind, value, expected) => {
		expect(isPluginShape(value)).toBe(expected);
	});
});

describe("readSetting", () => {
	it.each([
		[true, true],
		[false, false],
		[() => 1, true],
		[() => 0, false],
		[() => "", false],
		[() => undefined, false],
		[undefined, false],
	])("should read %s as %s", (setting, expected) => {
		expect(readSetting(setting, () => undefined)).toBe(expected);
	});

	it("should fail closed (true) on a setting that throws, after telling onThrow what it threw", () => {
		const seen: unknown[] = [];
		const thrown = new Error("settings file gone");
		expect(
			readSetting(
				() => {
					throw thrown;
				},
				(cause) => seen.push(cause),
			),
		).toBe(true);
		expect(seen).toEqual([thrown]);
	});
});

describe("textOf: the text of a value a view prints", () => {
	it.each([
		{ kind: "a string", value: "hi", text: "hi" },
		{ kind: "a number", value: 5, text: "5" },
		{ kind: "null", value: null, text: "null" },
		{ kind: "a plain object", value: { a: 1 }, text: "[object Object]" },
		{ kind: "JSON's object with no primitive", value: { valueOf: 0, toString: 0 }, text: "[object Object]" },
		{ kind: "Object.create(null)", value: Object.create(null), text: "[object Object]" },
		{ kind: "an array", value: [1, 2], text: "1,2" },
		{ kind: "a symbol", value: Symbol("s"), text: "Symbol(s)" },
		{ kind: "a revoked proxy", value: revoked(), text: "[a value that cannot be shown]" },
	])("should give $kind as $text", ({ value, text }) => {
		expect(textOf(value)).toBe(text);
	});

	it("should give the text of an error whose message has no primitive, in errorText too", () => {
		const error = Object.assign(new Error(), { message: { valueOf: 0, toString: 0 } });
		expect(errorText(error)).toBe("[object Object]");
	});
});

describe("settleWithin", () => {
	it("should settle as the promise does when it settles in time", async () => {
		await expect(settleWithin(Promise.resolve(7), 1000, () => new Error("late"))).resolves.toBe(7);
		await expect(settleWithin(Promise.reject(new Error("own")), 1000, () => new Error("late"))).rejects.toThrow(
			"own",
		);
	});

	it("should reject with the timeout's error when the promise does not settle in time", async () => {
		await expect(settleWithin(new Promise(() => {}), 5, () => new Error("late"))).rejects.toThrow("late");
	});
});
