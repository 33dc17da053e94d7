import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { Message } from "@earendil-works/pi-ai";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { MessageSource, Registry } from "../../src/index.js";
import { createDefaultRegistry } from "../../src/preset.js";
import { arbAgentMessage } from "../support/arbitraries.js";

/** Entries of a history that make every kind of loop path: multi-message and empty results, throwing and unhandled roles, holes, repeats. */
const arbEntry: fc.Arbitrary<unknown> = fc.oneof(
	{ weight: 6, arbitrary: arbAgentMessage },
	{ weight: 1, arbitrary: fc.constant({ role: "twice", timestamp: 1 }) },
	{ weight: 1, arbitrary: fc.constant({ role: "none", timestamp: 2 }) },
	{ weight: 1, arbitrary: fc.constant({ role: "throws", timestamp: 3 }) },
	{ weight: 1, arbitrary: fc.constant({ role: "unknownRole", timestamp: 4 }) },
	{ weight: 1, arbitrary: fc.constantFrom(null, 7, "text") },
);

const arbInput: fc.Arbitrary<unknown[]> = fc
	.tuple(
		fc.array(arbEntry, { maxLength: 16 }),
		fc.array(fc.nat(15), { maxLength: 3 }),
		fc.array(fc.nat(15), { maxLength: 2 }),
	)
	.map(([entries, repeats, holes]) => {
		// The same object at two places (a history may repeat one), and holes (a sparse array).
		const input: unknown[] = [...entries];
		for (const at of repeats) if (at < input.length) input.push(input[at]);
		for (const at of holes) if (at < input.length) delete input[at];
		return input;
	});

/** A tracked default registry with extension roles whose converters return two messages, none, or throw. */
function tracked(options: { isolate?: boolean }): Registry {
	const registry = createDefaultRegistry(options).trackSources();
	// Roles nobody declared (a test's own): registered through an untyped view of `register`.
	const register = registry.register.bind(registry) as unknown as (
		role: string,
		converter: (message: { timestamp: number }) => unknown,
		options: { name: string; override?: boolean },
	) => void;
	register(
		"twice",
		(message) => [
			{ role: "user", content: "first", timestamp: message.timestamp },
			{ role: "user", content: "second", timestamp: 0 },
		],
		{ name: "test:twice" },
	);
	register("none", () => null, { name: "test:none" });
	// Two converters for one role: the first (an override) throws, the second is its fallback.
	register("throws", () => ({ role: "user", content: "fallback", timestamp: 0 }) as Message, {
		name: "test:fallback",
	});
	register(
		"throws",
		() => {
			throw new Error("converter failed");
		},
		{ name: "test:throws", override: true },
	);
	return registry;
}

/** The source of each output, by position, as an afterConvert tap sees it. */
function sourcesOf(registry: Registry, input: unknown[]): (MessageSource | undefined)[] {
	let seen: (MessageSource | undefined)[] = [];
	registry.hooks.error.tap("quiet", () => {});
	registry.hooks.afterConvert.tap("sources", (messages, ctx) => {
		seen = messages.map((message) => ctx.sourceOf(message));
		return undefined;
	});
	registry.convert(input as AgentMessage[]);
	return seen;
}

describe("registry.trackSources", () => {
	it("should give the same source for every output whether the outputs are the history's objects or copies (isolate)", () => {
		fc.assert(
			fc.property(arbInput, (input) => {
				const fromCompiled = sourcesOf(tracked({}), input);
				// Under isolate each output is a copy of its own, so a repeated object is not traced to its first place.
				const objects = input.filter((entry) => typeof entry === "object" && entry !== null);
				if (new Set(objects).size === objects.length)
					expect(sourcesOf(tracked({ isolate: true }), input)).toEqual(fromCompiled);
				// Every output is traced, to an input that is there.
				for (const source of fromCompiled) {
					expect(source).toBeDefined();
					expect(Object.hasOwn(input, (source as MessageSource).index)).toBe(true);
				}
			}),
			{ numRuns: 300 },
		);
	});

	it("should trace the entries of a long sparse history to their indices", () => {
		const input: unknown[] = [];
		input[0] = { role: "user", content: "first", timestamp: 1 };
		input[2 ** 22] = { role: "twice", timestamp: 2 };
		const registry = tracked({});
		registry.convert(input as AgentMessage[]);
		expect(sourcesOf(registry, input)).toEqual([
			{ index: 0, plugin: "convert-to-llm:model-roles" },
			{ index: 2 ** 22, plugin: "test:twice" },
			{ index: 2 ** 22, plugin: "test:twice" },
		]);
	});

	it("should trace each of a converter's several outputs, and a repeated object to its first input", () => {
		const registry = tracked({});
		const shared = { role: "user", content: "again", timestamp: 5 };
		const input = [{ role: "twice", timestamp: 1 }, shared, { role: "none", timestamp: 2 }, shared];
		registry.convert(input as AgentMessage[]);
		const sources = sourcesOf(registry, input);
		expect(sources).toEqual([
			{ index: 0, plugin: "test:twice" },
			{ index: 0, plugin: "test:twice" },
			{ index: 1, plugin: "convert-to-llm:model-roles" },
			{ index: 1, plugin: "convert-to-llm:model-roles" },
		]);
	});
});
