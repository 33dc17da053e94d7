/**
 * What `calibratedCounter` does with the usage a session recorded: the billed size of a request
 * (`billedUsage`), and each kind of usage it cannot trust (none, zeros, wrong types, NaN, negative):
 * refused with a reason, nothing learnt, and pi's estimate (or the last good bill) kept.
 */
import type { Message } from "@earendil-works/pi-ai";
import { describe, expect, it } from "vitest";
import { billedUsage } from "../../src/filters/billed-usage.js";
import { calibratedCounter } from "../../src/filters/calibrated-counter.js";
import { user } from "../support/fixtures.js";

const request: Message[] = [user("x".repeat(400))]; // pi's estimate: 100

const throwing = Object.defineProperty({}, "input", {
	get() {
		throw new Error("no");
	},
});

/** Usages that cannot be trusted, and the reason given for each. */
const BAD: [string, unknown, string][] = [
	["no usage", undefined, "no usage was recorded (an older session, or a provider that omits it)"],
	["null", null, "no usage was recorded (an older session, or a provider that omits it)"],
	["a number", 1200, "the usage is number 1200, not an object"],
	["an array", [1, 2, 3], "the usage is an array of 3, not an object"],
	[
		"all zeros",
		{ input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0 },
		"the usage is all zeros: the provider reported none (e.g. the request was aborted before it answered)",
	],
	["input missing", { output: 5, cacheRead: 10 }, "usage.input is undefined, not a finite number >= 0"],
	["input a string", { input: "120", cacheRead: 0 }, 'usage.input is a string ("120"), not a finite number >= 0'],
	["input NaN", { input: Number.NaN }, "usage.input is number NaN, not a finite number >= 0"],
	["input negative", { input: -5 }, "usage.input is number -5, not a finite number >= 0"],
	["input infinite", { input: Number.POSITIVE_INFINITY }, "usage.input is number Infinity, not a finite number >= 0"],
	["cacheRead null", { input: 5, cacheRead: null }, "usage.cacheRead is null, not a finite number >= 0"],
	["cacheWrite negative", { input: 5, cacheWrite: -1 }, "usage.cacheWrite is number -1, not a finite number >= 0"],
	["a throwing getter", throwing, "usage.input cannot be read"],
];

describe("billedUsage", () => {
	it("should be input + cacheRead + cacheWrite, output left out", () => {
		expect(billedUsage({ input: 3, output: 191, cacheRead: 0, cacheWrite: 1684, totalTokens: 1878 })).toEqual({
			tokens: 1687,
			kind: "billed",
			label: "billed",
			input: 3,
			cacheRead: 0,
			cacheWrite: 1684,
		});
	});

	it("should count absent cache fields as 0 (a provider without a prompt cache)", () => {
		expect(billedUsage({ input: 900 })).toMatchObject({ tokens: 900, input: 900, cacheRead: 0, cacheWrite: 0 });
	});

	it("should not read the cost: a NaN or negative cost leaves the tokens as billed", () => {
		const usage = { input: 10, output: 1, cacheRead: 90, cacheWrite: 0, cost: { total: Number.NaN, input: -1 } };

		expect(billedUsage(usage).tokens).toBe(100);
	});

	it.each(BAD)("should refuse %s, saying why", (_, usage, reason) => {
		expect(billedUsage(usage)).toEqual({ tokens: null, reason });
	});
});

describe("calibratedCounter with usage it cannot trust", () => {
	it.each(BAD)("should learn nothing from %s and keep pi's estimate", (_, usage, reason) => {
		const counter = calibratedCounter();
		const seen = counter.observe(request, usage);

		expect(seen).toEqual({ accepted: false, reason, predicted: counter.count(request) });
		expect(counter.count(request)).toMatchObject({ tokens: 100, kind: "estimate", fallback: expect.any(String) });
		expect(counter.state().observations).toBe(0);
	});

	it.each(BAD)("should keep the last good bill after %s", (_, usage) => {
		const counter = calibratedCounter();
		counter.observe(request, { input: 1000, cacheRead: 0, cacheWrite: 0 });
		counter.observe([...request, user("y".repeat(400))], usage);

		expect(counter.count(request)).toMatchObject({ tokens: 1000, kind: "calibrated", observations: 1 });
	});
});
