/**
 * `clearToolResults` by example: what a cleared result says and keeps, the options it refuses, the
 * steps of `clearAtLeast` and `when: "cache-cold"`, orphans, a failing counter, and what `explain`
 * shows. The LangChain differential and the invariants are in the files beside this one.
 */
import type { Message, ToolResultMessage } from "@earendil-works/pi-ai";
import { describe, expect, it } from "vitest";
import {
	CLEAR_STAGE,
	CLEAR_TOOL_RESULTS_PLUGIN,
	type ClearToolResultsOptions,
	clearToolResults,
} from "../../src/filters/clear-tool-results.js";
import { TRIM_STAGE } from "../../src/filters/trim-to-tokens.js";
import { blockImages } from "../../src/hooks/index.js";
import { InvalidPluginError, Stage } from "../../src/index.js";
import { createDefaultRegistry } from "../../src/preset.js";
import { assistant, T0, user } from "../support/fixtures.js";

const IMAGE = { type: "image" as const, data: "aGVsbG8=", mimeType: "image/png" };

function call(id: string, name: string, args: Record<string, unknown>, timestamp = T0): Message {
	return assistant([{ type: "toolCall", id, name, arguments: args as never }], { timestamp });
}

function result(id: string, name: string, content: ToolResultMessage["content"], timestamp = T0): ToolResultMessage {
	return { role: "toolResult", toolCallId: id, toolName: name, content, isError: false, timestamp };
}

const text = (chars: number): ToolResultMessage["content"] => [{ type: "text", text: "x".repeat(chars) }];

/** A user prompt, `n` calls of read with results of `chars` characters each, then the next prompt. */
function reads(n: number, chars: number, gapMs = 1_000): Message[] {
	const history: Message[] = [user("go", T0)];
	for (let i = 0; i < n; i++) {
		history.push(call(`c${i}`, "read", { path: `src/f${i}.ts` }, T0 + i * gapMs));
		history.push(result(`c${i}`, "read", text(chars), T0 + i * gapMs + 1));
	}
	history.push(user("next", T0 + n * gapMs));
	return history;
}

function run(history: readonly Message[], options: ClearToolResultsOptions, strict = false) {
	return createDefaultRegistry({ strict })
		.use(clearToolResults(options))
		.run(history as never);
}

const clearedText = (message: Message | undefined): string | undefined =>
	message?.role === "toolResult" && message.content[0]?.type === "text" ? message.content[0].text : undefined;

const ALWAYS: ClearToolResultsOptions = { trigger: { tokens: 1 }, keep: { messages: 0 }, clearAtLeast: 0 };

describe("clearToolResults", () => {
	it.each([
		[{ path: "src/parse.ts" }, "read", text(12_400), "[cleared: read src/parse.ts, 12,400 characters]"],
		[{ command: `npm test -- ${"x".repeat(80)}` }, "bash", text(3_100), "[cleared: bash, 3,100 characters]"],
		[{ command: "cat a\nb" }, "bash", text(1), "[cleared: bash, 1 character]"],
		[{}, "screenshot", [IMAGE], "[cleared: screenshot, 1 image]"],
		[
			{ url: "https://example.com" },
			"fetch",
			[...text(10), IMAGE, IMAGE],
			"[cleared: fetch https://example.com, 10 characters and 2 images]",
		],
		[{ pattern: "TODO", path: "src" }, "grep", [], "[cleared: grep src, 0 characters]"],
	])("should name what was there: %j of %s", (args, tool, content, expected) => {
		const history = [user("go"), call("c1", tool, args), result("c1", tool, content), user("next")];
		expect(clearedText(run(history, ALWAYS).output[2])).toBe(expected);
	});

	it("should keep the result's toolCallId, toolName, isError and every other field, and only change its content", () => {
		const original = { ...result("c1", "bash", text(50)), isError: true, details: { exitCode: 1 } };
		const history = [user("go"), call("c1", "bash", { command: "make" }), original, user("next")];
		const cleared = run(history, ALWAYS).output[2];
		expect(cleared).toEqual({
			...original,
			content: [{ type: "text", text: "[cleared: bash make, 50 characters]" }],
		});
	});

	it("should write a placeholder given as it is, and keep the images with keepImages", () => {
		const history = [user("go"), call("c1", "shot", {}), result("c1", "shot", [...text(7), IMAGE]), user("next")];
		expect(run(history, { ...ALWAYS, placeholder: "[gone]" }).output[2]).toMatchObject({
			content: [{ type: "text", text: "[gone]" }],
		});
		expect(run(history, { ...ALWAYS, keepImages: true }).output[2]).toMatchObject({
			content: [{ type: "text", text: "[cleared: shot, 7 characters]" }, IMAGE],
		});
	});

	it("should clear the call's arguments too with clearToolInputs, and name them in the placeholder", () => {
		const history = [
			user("go"),
			call("c1", "write", { path: "a.ts", content: "y".repeat(500) }),
			result("c1", "write", text(5)),
			user("next"),
		];
		const { output } = run(history, { ...ALWAYS, clearToolInputs: true });
		expect(output[1]).toMatchObject({ content: [{ type: "toolCall", id: "c1", name: "write", arguments: {} }] });
		expect(clearedText(output[2])).toBe("[cleared: write a.ts, 5 characters]");
	});

	it("should leave the run in progress, the kept results and excluded tools as they are", () => {
		const history = [
			user("go"),
			call("c1", "read", { path: "a" }),
			result("c1", "read", text(100)),
			call("c2", "todo", {}),
			result("c2", "todo", text(100)),
			call("c3", "read", { path: "b" }),
			result("c3", "read", text(100)),
			user("next"),
			call("c4", "read", { path: "c" }),
			result("c4", "read", text(100)),
		];
		const { output } = run(history, {
			trigger: { tokens: 1 },
			keep: { messages: 2 },
			excludeTools: ["todo"],
			clearAtLeast: 0,
		});
		expect(output.map((m, i) => m !== history[i])).toEqual([
			false,
			false,
			true,
			false,
			false,
			false,
			false,
			false,
			false,
			false,
		]);
	});

	it("should wait until a step clears at least clearAtLeast tokens, then clear all it can at once", () => {
		// n turns of a prompt and one read of 1,000 characters (250 tokens; its placeholder, 11, saves 239).
		const turns = (n: number): Message[] =>
			Array.from({ length: n }, (_, i) => [
				user(`turn ${i}`),
				call(`c${i}`, "read", { path: `src/f${i}.ts` }),
				result(`c${i}`, "read", text(1_000)),
			]).flat();
		const options: ClearToolResultsOptions = { trigger: { tokens: 1 }, keep: { messages: 1 }, clearAtLeast: 600 };
		const cleared = (n: number) =>
			run(turns(n), options).output.filter((m) => clearedText(m)?.startsWith("[cleared")).length;
		// Three results (717 tokens) make a step; between steps each request repeats the one before.
		expect([1, 2, 3, 4, 5, 6, 7, 8].map(cleared)).toEqual([0, 0, 0, 3, 3, 3, 6, 6]);
		expect(
			run(turns(6), { ...options, clearAtLeast: 0 }).output.filter((m) => clearedText(m)?.startsWith("[cleared"))
				.length,
		).toBe(5);
	});

	it('should move only when the previous request is older than the cache lifetime with when: "cache-cold"', () => {
		const history = reads(4, 1_000, 60_000); // a request a minute
		const options = { trigger: { tokens: 1 }, keep: { messages: 1 }, when: "cache-cold" as const };
		const cleared = (nowMs: number) =>
			run(history, { ...options, now: () => nowMs }).output.filter((m) => clearedText(m)?.startsWith("[cleared"))
				.length;
		const last = T0 + 3 * 60_000; // the last request, the one that read src/f3.ts
		expect(cleared(last + 60_000)).toBe(0);
		expect(cleared(last + 300_001)).toBe(3);
		expect(
			run(history, { ...options, cacheLifetimeMs: 30_000, now: () => last + 60_000 }).output.filter((m) =>
				clearedText(m)?.startsWith("[cleared"),
			).length,
		).toBe(3);
	});

	it("should leave orphans as pi sends them and report them while it clears", () => {
		const orphan = result("lost", "read", text(100));
		const history = [
			user("go"),
			orphan,
			call("c1", "read", { path: "a" }),
			result("c1", "read", text(100)),
			user("next"),
		];
		const { output, problems } = run(history, ALWAYS);
		expect(output[1]).toBe(orphan);
		expect(clearedText(output[3])).toBe("[cleared: read a, 100 characters]");
		expect(problems.map((p) => p.message)).toEqual([
			expect.stringContaining("1 tool result answers no earlier tool call (output message 1)"),
		]);
		expect(run(history, { ...ALWAYS, trigger: { tokens: 1e9 } }).problems).toEqual([]);
	});

	it("should count a message whose counter throws as infinitely large, clear it, and report it once", () => {
		const history = reads(3, 10);
		const { output, problems } = run(history, {
			trigger: { tokens: 1_000_000 },
			keep: { messages: 0 },
			tokenCounter: (m) => {
				if (m === history[2]) throw new Error("no tokenizer");
				return 1;
			},
		});
		expect(clearedText(output[2])).toBe("[cleared: read src/f0.ts, 10 characters]");
		expect(problems.map((p) => [p.plugin, p.message.includes("no tokenizer")])).toEqual([
			[CLEAR_TOOL_RESULTS_PLUGIN, true],
		]);
	});

	it("should send a result it cannot read as it is, and report it", () => {
		const unreadable = { ...result("c1", "read", text(1)) } as ToolResultMessage;
		Object.defineProperty(unreadable, "content", {
			enumerable: true,
			get() {
				throw new Error("revoked");
			},
		});
		const history = [user("go"), call("c1", "read", { path: "a" }), unreadable, user("next")];
		const { output, problems } = run(history, ALWAYS);
		expect(output[2]).toBe(unreadable);
		expect(problems.map((p) => p.message)).toEqual([
			expect.stringContaining("the token counter returned number Infinity for output message 2"),
			expect.stringContaining("output message 2 could not be read: revoked. It is sent as it is"),
		]);
	});

	it("should report a keep larger than the trigger allows while it clears, and accept it", () => {
		const { problems } = run(reads(3, 100), { trigger: { tokens: 10 }, keep: { tokens: 50 } });
		expect(problems.map((p) => p.message)).toEqual([
			expect.stringContaining("keep { tokens: 50 } is not below the trigger's 10 tokens"),
		]);
	});

	it("should show each cleared result as a message its tap changed in explain", () => {
		const history = reads(3, 400);
		const registry = createDefaultRegistry().use(
			clearToolResults({ trigger: { tokens: 1 }, keep: { messages: 1 }, clearAtLeast: 0 }),
		);
		const explanation = registry.explain(history as never);
		expect(explanation.taps).toEqual([
			{ hook: "afterConvert", plugin: CLEAR_TOOL_RESULTS_PLUGIN, changed: [2, 4], removed: 0, added: 0 },
		]);
		expect(explanation.messages[2]?.outputs).toEqual([2]);
	});

	it("should run after the sanitizers, so a blocked image is counted as the text it became, and before trimToTokens", () => {
		expect(Stage.SANITIZE < CLEAR_STAGE && CLEAR_STAGE < TRIM_STAGE).toBe(true);
		const history = [user("go"), call("c1", "shot", {}), result("c1", "shot", [IMAGE]), user("next")];
		const registry = createDefaultRegistry().use(blockImages()).use(clearToolResults(ALWAYS));
		expect(clearedText(registry.convert(history as never)[2])).toBe("[cleared: shot, 26 characters]");
	});

	it("should take its options as JSON, as a settings file holds them", () => {
		const options = JSON.parse(
			'{"trigger":[{"tokens":80000},{"messages":200}],"keep":{"tokens":20000},"excludeTools":["todo"],"clearToolInputs":true,"placeholder":"[cleared]","keepImages":false,"clearAtLeast":5000,"when":"cache-cold","cacheLifetimeMs":3600000,"contextWindow":200000}',
		);
		expect(clearToolResults(options).name).toBe(CLEAR_TOOL_RESULTS_PLUGIN);
	});

	it.each([
		[{ trigger: { tokens: -1 } }, "trigger.tokens is number -1"],
		[{ trigger: { tokens: 0 } }, "trigger.tokens is number 0"],
		[{ trigger: { tokens: Number.POSITIVE_INFINITY } }, "trigger.tokens is number Infinity"],
		[{ trigger: { messages: 2.5 } }, "trigger.messages is number 2.5"],
		[{ trigger: { fraction: 0.5 } }, "needs contextWindow"],
		[{ trigger: { fraction: 1.5 }, contextWindow: 1000 }, "trigger.fraction is number 1.5"],
		[{ trigger: { fraction: 0.001 }, contextWindow: 100 }, "is 0 tokens"],
		[{ trigger: [] }, "empty list"],
		[{ trigger: [{ tokens: 5 }, {}] }, "trigger[1] names no condition"],
		[{ trigger: { token: 5 } }, 'unknown key "token"'],
		[{ keep: { messages: -1 } }, "keep.messages is number -1"],
		[{ keep: { tokens: Number.NaN } }, "keep.tokens is number NaN"],
		[{ keep: { messages: 1, tokens: 1 } }, "exactly one of messages and tokens"],
		[{ keep: 3 }, "keep is number 3"],
		[{ clearAtLeast: -5 }, "clearAtLeast is number -5"],
		[{ cacheLifetimeMs: Number.NaN }, "cacheLifetimeMs is number NaN"],
		[{ contextWindow: 0 }, "contextWindow is number 0"],
		[{ when: "sometimes" }, 'when is a string ("sometimes")'],
		[{ placeholder: "" }, "placeholder is a string"],
		[{ excludeTools: "todo" }, "excludeTools is"],
		[{ clearToolInputs: "yes" }, "clearToolInputs is"],
		[{ tokenCounter: 4 }, "tokenCounter is number 4"],
		[{ triggerTokens: 5 }, 'unknown option "triggerTokens"'],
		[[], "the options are an array"],
	])("should refuse %j when it is made, with InvalidPluginError", (options, why) => {
		expect(() => clearToolResults(options as ClearToolResultsOptions)).toThrow(InvalidPluginError);
		expect(() => clearToolResults(options as ClearToolResultsOptions)).toThrow(why);
	});
});
