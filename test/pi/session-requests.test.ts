/**
 * The extension's memory of a session's requests: the conversion sent last (per model), the bill of
 * the response to it (observed once, with that request), and which plugins' cache breaks were told.
 */
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { describe, expect, it } from "vitest";
import type { PiContext } from "../../src/pi/pi-api.js";
import { createSessionRequests, modelOf } from "../../src/pi/session-requests.js";
import { createDefaultRegistry } from "../../src/preset.js";

const registry = createDefaultRegistry();
const user = (text: string) => ({ role: "user", content: text, timestamp: 1 }) as AgentMessage;
const conversion = (...texts: string[]) => registry.run(texts.map(user));
const assistant = (usage: unknown) => ({ role: "assistant", content: [], usage, stopReason: "stop", timestamp: 2 });
const USAGE = { input: 10, output: 5, cacheRead: 90, cacheWrite: 0 };

describe("createSessionRequests", () => {
	it("should give the conversion sent last to the same model, and none for another model or after reset", () => {
		const requests = createSessionRequests();
		expect(requests.previous("fake/a")).toBeUndefined();
		const sent = conversion("hello there");
		requests.sent(sent, "fake/a");
		expect(requests.previous("fake/a")).toBe(sent);
		expect(requests.previous("fake/b")).toBeUndefined();
		expect(requests.previous(undefined)).toBeUndefined();
		requests.reset();
		expect(requests.previous("fake/a")).toBeUndefined();
	});

	it("should observe the bill of the request sent last once, with that request, and forget it on reset", () => {
		const requests = createSessionRequests();
		requests.ended(assistant(USAGE));
		expect(requests.lastBill()).toBeUndefined();
		requests.sent(conversion("a".repeat(400)), "fake/a");
		requests.ended({ role: "user", content: "not an answer", timestamp: 3 });
		expect(requests.lastBill()).toBeUndefined();
		requests.ended(assistant(USAGE));
		const bill = requests.lastBill();
		expect(bill?.messages).toBe(1);
		expect(bill?.observation).toMatchObject({ accepted: true, billed: 100 });
		expect(requests.counter().state()).toMatchObject({ observations: 1, model: "fake/a" });
		// A second answer without a new request is not a second bill of the same one.
		requests.ended(assistant({ ...USAGE, input: 1000 }));
		expect(requests.counter().state().observations).toBe(1);
		requests.reset();
		expect(requests.lastBill()).toBeUndefined();
		expect(requests.counter().state().observations).toBe(0);
	});

	it("should not bill a withheld request's answer to the request sent before it", () => {
		const requests = createSessionRequests();
		requests.sent(conversion("a"), "fake/a");
		requests.withheld();
		requests.ended(assistant(USAGE));
		expect(requests.lastBill()).toBeUndefined();
	});

	it.each([
		["no usage", undefined, "no usage was recorded"],
		["a usage of zeros", { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, "the usage is all zeros"],
		["a NaN", { input: Number.NaN }, "usage.input is"],
	])("should keep %s as the reason the last bill could not be read", (_name, usage, reason) => {
		const requests = createSessionRequests();
		requests.sent(conversion("a"), "fake/a");
		requests.ended(assistant(usage));
		const observation = requests.lastBill()?.observation;
		expect(observation?.accepted).toBe(false);
		expect(observation?.accepted === false && observation.reason).toContain(reason);
	});

	it("should never throw on what pi passes as a message", () => {
		const requests = createSessionRequests();
		requests.sent(conversion("a"), undefined);
		const hostile = new Proxy(
			{},
			{
				get() {
					throw new Error("no");
				},
			},
		);
		for (const message of [
			undefined,
			null,
			1,
			"x",
			hostile,
			{
				role: "assistant",
				get usage() {
					throw new Error("no");
				},
			},
		])
			expect(() => requests.ended(message)).not.toThrow();
	});

	it("should say a plugin's first break once per session", () => {
		const requests = createSessionRequests();
		expect(requests.firstBreak("convert-to-llm:trim-to-tokens")).toBe(true);
		expect(requests.firstBreak("convert-to-llm:trim-to-tokens")).toBe(false);
		expect(requests.firstBreak("convert-to-llm:prune-messages")).toBe(true);
		requests.reset();
		expect(requests.firstBreak("convert-to-llm:trim-to-tokens")).toBe(true);
	});
});

describe("modelOf", () => {
	const throwing = {
		get provider(): string {
			throw new Error("no");
		},
		id: "x",
	};
	it.each([
		["a model", { provider: "anthropic", id: "claude-opus-4-5" }, "anthropic/claude-opus-4-5"],
		["no model", undefined, undefined],
		["a model without an id", { provider: "anthropic" }, undefined],
		["a model whose provider throws", throwing, undefined],
	])("should name %s", (_name, model, name) => {
		expect(modelOf({ model } as unknown as PiContext)).toBe(name);
	});
});
