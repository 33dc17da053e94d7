/**
 * The memo of bash runs' texts: the same string while a run's fields stay the same, a new text as
 * soon as one changes, and never a remembered text for a field whose printing may change.
 */
import { describe, expect, it } from "vitest";
import { bashTextMemo } from "../../src/builtin-converters/bash-text-memo.js";
import { type BashExecutionMessage, bashExecutionToText } from "../../src/messages.js";
import { createDefaultRegistry } from "../../src/preset.js";
import { bashExecution } from "../support/fixtures.js";
import { upstreamConvertToLlm } from "../support/upstream.js";

const run = (fields: Partial<BashExecutionMessage> = {}): BashExecutionMessage =>
	bashExecution({ command: "npm test", output: "ok\n".repeat(100), timestamp: 7, ...fields });

describe("bashTextMemo", () => {
	it("should make a run's text once while the run is unchanged", () => {
		const made: BashExecutionMessage[] = [];
		const textOf = bashTextMemo((message) => {
			made.push(message);
			return bashExecutionToText(message);
		});
		const message = run();
		const other = run({ command: "ls" });
		for (let i = 0; i < 3; i++) {
			expect(textOf(message)).toBe(bashExecutionToText(message));
			expect(textOf(other)).toBe(bashExecutionToText(other));
		}
		expect(made).toEqual([message, other]);
	});

	it.each<[string, Partial<BashExecutionMessage>]>([
		["command", { command: "npm run lint" }],
		["output", { output: "" }],
		["cancelled", { cancelled: true }],
		["exitCode", { exitCode: 2 }],
		["truncated", { truncated: true, fullOutputPath: "/tmp/out.log" }],
		["fullOutputPath", { fullOutputPath: "/tmp/other.log" }],
	])("should make a new text when %s changes in place", (_field, change) => {
		const textOf = bashTextMemo();
		const message = run({ truncated: true, fullOutputPath: "/tmp/out.log" });
		textOf(message);
		Object.assign(message, change);
		expect(textOf(message)).toBe(bashExecutionToText(message));
	});

	it("should print a field that is an object anew each time, as pi does", () => {
		const textOf = bashTextMemo();
		let calls = 0;
		const command = { toString: () => `command ${++calls}` };
		const message = run({ command: command as unknown as string });
		expect(textOf(message)).toContain("Ran `command 1`");
		expect(textOf(message)).toContain("Ran `command 2`");
	});

	it("should convert a run with a field pi never reads that throws, as pi does", () => {
		const message = run({ truncated: false });
		Object.defineProperty(message, "fullOutputPath", {
			enumerable: true,
			get() {
				throw new Error("not readable");
			},
		});
		const registry = createDefaultRegistry();
		const errors: unknown[] = [];
		registry.hooks.error.tap("collect", (error) => {
			errors.push(error);
		});
		expect(registry.convert([message])).toStrictEqual(upstreamConvertToLlm([message]));
		expect(registry.convert([message])).toHaveLength(1);
		expect(errors).toEqual([]);
	});

	it("should keep one memo per registry, and give pi's output on every conversion", () => {
		const history = [run(), run({ exitCode: 1 }), run({ output: "" })];
		const one = createDefaultRegistry();
		const two = createDefaultRegistry();
		const first = one.convert(history);
		const again = one.convert(history);
		expect(again).toStrictEqual(upstreamConvertToLlm(history));
		expect(two.convert(history)).toStrictEqual(first);
		// New messages each time, as pi's: a caller may change them.
		expect(again[0]).not.toBe(first[0]);
		expect(again[0]?.content).not.toBe(first[0]?.content);
	});
});
