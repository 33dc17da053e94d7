/**
 * `pruneMessageList({ messages, … })`: the AI SDK's call shape over a pi-ai `Message[]` (its
 * decisions against the real `ai` package are in test/filters/prune-messages.test.ts, for both shapes).
 * Here, its own contract: the plugin's output, step included, a new array and an untouched input,
 * problems thrown or handed over, the refusals; and the plugin factory pointing to it.
 */
import type { Message } from "@earendil-works/pi-ai";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type PruneMessageListArgs, pruneMessageList } from "../../src/filters/prune-message-list.js";
import { type PruneMessagesOptions, pruneMessages } from "../../src/filters/prune-messages.js";
import { type ConvertToLlmError, InvalidMessageError, InvalidPluginError } from "../../src/index.js";
import { createDefaultRegistry } from "../../src/preset.js";
import { deepFreeze } from "../support/arbitraries.js";
import { arbHistory } from "../support/filter-histories.js";
import { assistant, user } from "../support/fixtures.js";

const arbOptions: fc.Arbitrary<PruneMessagesOptions> = fc.record(
	{
		reasoning: fc.constantFrom("all" as const, "before-last-message" as const, "none" as const),
		toolCalls: fc.oneof(
			fc.constantFrom("all" as const, "before-last-message" as const, "none" as const),
			fc.nat({ max: 7 }).map((n) => `before-last-${n}-messages` as const),
		),
		emptyMessages: fc.constantFrom("keep" as const, "remove" as const),
		step: fc.integer({ min: 1, max: 6 }),
	},
	{ requiredKeys: [] },
);

/** A message whose content throws when read. */
function unreadable(): Message {
	const message = assistant([]);
	Object.defineProperty(message, "content", {
		get: () => {
			throw new Error("trap");
		},
		enumerable: true,
	});
	return message;
}

describe("pruneMessageList", () => {
	it("should return what the pruneMessages plugin returns, as a new array, leaving its input unchanged", () => {
		fc.assert(
			fc.property(arbHistory({ system: "anywhere" }), arbOptions, (history, options) => {
				const frozen = deepFreeze(structuredClone(history));
				const plugin = createDefaultRegistry({ strict: true }).use(pruneMessages(options)).convert(frozen);
				const listed = pruneMessageList({ messages: frozen, ...options });
				expect(listed).toEqual(plugin);
				expect(listed).not.toBe(frozen);
				expect(frozen).toEqual(history);
			}),
			{ numRuns: 500 },
		);
	});

	it("should throw a message it cannot read, or hand it to onProblem and leave it out", () => {
		const messages = [user("a"), unreadable(), user("b")];
		expect(() => pruneMessageList({ messages, toolCalls: "all" })).toThrow("could not be read");
		const problems: ConvertToLlmError[] = [];
		const kept = pruneMessageList({ messages, toolCalls: "all", onProblem: (problem) => problems.push(problem) });
		expect(kept).toEqual([messages[0], messages[2]]);
		expect(problems.map((p) => p.message)).toEqual([expect.stringContaining("trap")]);
	});

	it.each([
		[{ reasoning: "some" }, InvalidPluginError, "pruneMessageList: option reasoning"],
		[{ step: 0 }, InvalidPluginError, "option step"],
		[{ onProblem: 1 }, InvalidPluginError, "onProblem is"],
		[{ messages: "hi" }, InvalidMessageError, "pruneMessageList({ messages"],
		[{ messages: undefined }, InvalidMessageError, "messages is undefined"],
	])("should refuse %j", (args, type, why) => {
		const call = () => pruneMessageList({ messages: [user("a")], ...args } as unknown as PruneMessageListArgs);
		expect(call).toThrow(type);
		expect(call).toThrow(why);
	});

	it("should refuse a list given as the only argument, as the AI SDK's shape takes an object", () => {
		expect(() => pruneMessageList([user("a")] as unknown as PruneMessageListArgs)).toThrow(InvalidMessageError);
	});
});

describe("pruneMessages", () => {
	it.each([
		["a messages key", { messages: [user("hi")], reasoning: "all" }],
		["a list of messages", [user("hi")]],
	])("should throw InvalidPluginError naming pruneMessageList when given %s", (_what, options) => {
		expect(() => pruneMessages(options as unknown as PruneMessagesOptions)).toThrow(InvalidPluginError);
		expect(() => pruneMessages(options as unknown as PruneMessagesOptions)).toThrow("pruneMessageList({ messages");
	});
});
