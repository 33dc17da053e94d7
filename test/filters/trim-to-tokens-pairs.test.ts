/**
 * `trimToTokens` never separates a tool call from its result, whatever sits between them: custom
 * messages, bash runs and summaries (user-role messages once converted), system messages, other
 * assistants. Checked on generated pi 1.x histories converted by the default preset, for every
 * strategy, `startOn`, `endOn` and `step`, with pi's estimate and a counter of one per message.
 */
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { Message } from "@earendil-works/pi-ai";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type TrimToTokensOptions, trimToTokens } from "../../src/filters/trim-to-tokens.js";
import { createDefaultRegistry } from "../../src/preset.js";
import { arbInterleavedHistory } from "../support/filter-histories.js";
import { assistant, bashExecution, user } from "../support/fixtures.js";

const callIds = (message: Message): string[] =>
	message.role === "assistant"
		? message.content.flatMap((block) => (block.type === "toolCall" ? [block.id] : []))
		: [];

/** The tool results of `output` whose call is in no assistant message before them. */
function orphans(output: readonly Message[]): string[] {
	const calls = new Set<string>();
	const found: string[] = [];
	for (const message of output) {
		if (message.role === "toolResult" && !calls.has(message.toolCallId)) found.push(message.toolCallId);
		for (const id of callIds(message)) calls.add(id);
	}
	return found;
}

/** The calls of `output` whose result the untrimmed conversion has but `output` lost. */
function unanswered(output: readonly Message[], untrimmed: readonly Message[]): string[] {
	const results = (messages: readonly Message[]) =>
		new Set(messages.flatMap((m) => (m.role === "toolResult" ? [m.toolCallId] : [])));
	const had = results(untrimmed);
	const has = results(output);
	return output.flatMap(callIds).filter((id) => had.has(id) && !has.has(id));
}

const arbOptions: fc.Arbitrary<TrimToTokensOptions> = fc
	.record({
		maxTokens: fc.nat({ max: 600 }),
		counter: fc.constantFrom("estimate", "one"),
		strategy: fc.constantFrom("last" as const, "first" as const),
		startOn: fc.option(fc.subarray(["user", "assistant"] as const, { minLength: 1 }), { nil: undefined }),
		endOn: fc.option(fc.subarray(["user", "assistant", "toolResult"] as const, { minLength: 1 }), { nil: undefined }),
		stepShare: fc.option(fc.double({ min: 0.05, max: 1, noNaN: true }), { nil: undefined }),
	})
	.map(({ maxTokens, counter, strategy, startOn, endOn, stepShare }): TrimToTokensOptions => {
		const options: TrimToTokensOptions = { maxTokens, strategy };
		if (counter === "one") options.tokenCounter = () => 1;
		if (strategy === "last" && startOn !== undefined) options.startOn = startOn;
		if (endOn !== undefined) options.endOn = endOn;
		if (strategy === "last" && stepShare !== undefined && maxTokens > 0)
			options.step = Math.max(1, Math.floor(maxTokens * stepShare));
		return options;
	});

describe("trimToTokens", () => {
	it("should keep every tool result's call and every kept call's result, whatever roles sit between them", () => {
		let trimmed = 0;
		fc.assert(
			fc.property(arbInterleavedHistory(), arbOptions, (history, options) => {
				const untrimmed = createDefaultRegistry().convert(history);
				const { output } = createDefaultRegistry().use(trimToTokens(options)).run(history);
				expect(orphans(untrimmed)).toEqual([]);
				expect(orphans(output)).toEqual([]);
				expect(unanswered(output, untrimmed)).toEqual([]);
				if (output.length < untrimmed.length) trimmed++;
			}),
			{ numRuns: 1500 },
		);
		expect(trimmed).toBeGreaterThan(300);
	});

	it("should not start on a custom message or a bash run that sits between a call and its result", () => {
		const history: AgentMessage[] = [
			user("x".repeat(400)),
			assistant([{ type: "toolCall", id: "c1", name: "bash", arguments: {} }]),
			{ role: "custom", customType: "note", content: "steer", display: true, timestamp: 2 },
			bashExecution({ command: "ls", output: "a" }),
			{
				role: "toolResult",
				toolCallId: "c1",
				toolName: "bash",
				content: [{ type: "text", text: "ok" }],
				isError: false,
				timestamp: 4,
			},
			user("and now?"),
		];
		const { output, problems } = createDefaultRegistry()
			.use(trimToTokens({ maxTokens: 40 }))
			.run(history);
		expect(output.map((m) => m.role)).toEqual(["user"]);
		expect(output[0]).toBe(history[5]);
		expect(problems).toEqual([]);
	});
});
