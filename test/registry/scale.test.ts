/**
 * Size limits that must not exist: a history of a million messages and a converter that returns
 * 200,000 messages both convert (no recursion, no `push(...xs)` argument-count overflow). These are
 * correctness tests, not timing tests.
 */
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { Message, UserMessage } from "@earendil-works/pi-ai";
import { describe, expect, it } from "vitest";
import { type BashExecutionMessage, type ConvertToLlmError, createRegistry } from "../../src/index.js";
import { createDefaultRegistry } from "../../src/preset.js";

const MILLION = 1_000_000;
const BIG_RESULT = 200_000;

function bash(i: number): BashExecutionMessage {
	return {
		role: "bashExecution",
		command: `echo ${i}`,
		output: String(i),
		exitCode: 0,
		cancelled: false,
		truncated: false,
		timestamp: i,
	};
}

/** A million messages: users, with a bash run every tenth entry. */
function millionMessages(): AgentMessage[] {
	const history: AgentMessage[] = new Array(MILLION);
	for (let i = 0; i < MILLION; i++) {
		history[i] = i % 10 === 9 ? bash(i) : ({ role: "user", content: "m", timestamp: i } satisfies UserMessage);
	}
	return history;
}

function bigResult(): UserMessage[] {
	const result: UserMessage[] = new Array(BIG_RESULT);
	for (let i = 0; i < BIG_RESULT; i++) result[i] = { role: "user", content: `part ${i}`, timestamp: i };
	return result;
}

describe("registry.convert at scale", () => {
	it("should convert a history of 1,000,000 messages, in order", async () => {
		const history = millionMessages();
		const registry = createDefaultRegistry();
		const errors: ConvertToLlmError[] = [];
		registry.hooks.error.tap("collect", (error) => {
			errors.push(error);
		});

		const output = registry.convert(history);

		expect(output).toHaveLength(MILLION);
		expect(errors).toEqual([]);
		expect(output[0]).toBe(history[0]);
		expect(output[MILLION - 2]).toBe(history[MILLION - 2]);
		expect(output[MILLION - 1]).toMatchObject({ role: "user", timestamp: MILLION - 1 });
		expect(output[9]).toEqual({
			role: "user",
			content: [{ type: "text", text: "Ran `echo 9`\n```\n9\n```" }],
			timestamp: 9,
		});
		await expect(registry.convertAsync(history)).resolves.toHaveLength(MILLION);
	});

	it("should drop and report each of 100,000 malformed entries without throwing", () => {
		// 100,000, not a million: each report builds an Error object (with a stack), which is slow.
		const count = 100_000;
		const history = new Array<unknown>(count).fill(null) as AgentMessage[];
		const registry = createDefaultRegistry();
		let reported = 0;
		registry.hooks.error.tap("count", () => {
			reported++;
		});

		expect(registry.convert(history)).toEqual([]);
		expect(reported).toBe(count);
	});

	it("should accept a converter that returns 200,000 messages", () => {
		const result = bigResult();
		const registry = createRegistry().register("bashExecution", () => result, { name: "expander" });

		const output = registry.convert([bash(1), bash(2)]);

		expect(output).toHaveLength(2 * BIG_RESULT);
		expect(output[0]).toBe(result[0]);
		expect(output[BIG_RESULT - 1]).toBe(result[BIG_RESULT - 1]);
		expect(output[BIG_RESULT]).toBe(result[0]);
		expect(output[2 * BIG_RESULT - 1]).toBe(result[BIG_RESULT - 1]);
	});

	it("should check a 200,000-message result item by item, reporting a bad item at the end", () => {
		const result: unknown[] = bigResult();
		result.push("not a message");
		const registry = createRegistry({ strict: true }).register("bashExecution", () => result as Message[], {
			name: "expander",
		});

		expect(() => registry.convert([bash(1)])).toThrow(`item ${BIG_RESULT}`);
	});

	it("should let 200,000-message arrays through the beforeConvert, afterConvert and afterConvertAsync waterfalls", async () => {
		const registry = createDefaultRegistry();
		const extra = bigResult();
		registry.hooks.beforeConvert.tap("grow-history", (messages) => [...messages, ...extra]);
		registry.hooks.afterConvert.tap("grow-output", (messages) => messages.concat(extra));
		registry.hooks.afterConvertAsync.tapPromise("keep", async (messages) => messages);

		const output = await registry.convertAsync([bash(0)]);

		expect(output).toHaveLength(1 + 2 * BIG_RESULT);
		expect(output[output.length - 1]).toBe(extra[BIG_RESULT - 1]);
	});
});
