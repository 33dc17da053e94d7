/**
 * `--clear-tool-results[=<spec>]`: the spec (JSON, or key=value pairs named as the options) read into
 * `clearToolResults`' options, the same output as the library, the header and `--explain` naming the
 * filter and what it changed, and bad specs as usage errors (exit 2).
 */
import type { Message, ToolResultMessage } from "@earendil-works/pi-ai";
import { describe, expect, it } from "vitest";
import { parseClearSpec, takeClearToolResults } from "../../src/cli/filter-options.js";
import { clearToolResults } from "../../src/filters/clear-tool-results.js";
import { createDefaultRegistry } from "../../src/preset.js";
import { cli } from "../fixtures/sessions/run-cli.js";
import { assistant, T0, user } from "../support/fixtures.js";

function turn(i: number, chars: number): Message[] {
	const result: ToolResultMessage = {
		role: "toolResult",
		toolCallId: `c${i}`,
		toolName: "read",
		content: [{ type: "text", text: "x".repeat(chars) }],
		isError: false,
		timestamp: T0 + i,
	};
	return [
		user(`turn ${i}`, T0 + i),
		assistant([{ type: "toolCall", id: `c${i}`, name: "read", arguments: { path: `f${i}.ts` } }]),
		result,
	];
}

const history = [0, 1, 2, 3, 4].flatMap((i) => turn(i, 4_000));
const stdin = JSON.stringify(history);

describe("parseClearSpec", () => {
	it.each([
		["", {}],
		["trigger=2000", { trigger: { tokens: 2000 } }],
		["trigger=tokens:80000+messages:40", { trigger: { tokens: 80_000, messages: 40 } }],
		["trigger=2000,trigger=messages:200", { trigger: [{ tokens: 2000 }, { messages: 200 }] }],
		["trigger=fraction:0.8,contextWindow=200000", { trigger: { fraction: 0.8 }, contextWindow: 200_000 }],
		["keep=5", { keep: { messages: 5 } }],
		["keep=tokens:20000", { keep: { tokens: 20_000 } }],
		["excludeTools=todo+plan,clearToolInputs", { excludeTools: ["todo", "plan"], clearToolInputs: true }],
		[
			"keepImages=false,when=cache-cold,cacheLifetimeMs=3600000",
			{ keepImages: false, when: "cache-cold", cacheLifetimeMs: 3_600_000 },
		],
		["clearAtLeast=0,placeholder=[cleared]", { clearAtLeast: 0, placeholder: "[cleared]" }],
		['{"trigger":{"tokens":5},"keep":{"messages":1}}', { trigger: { tokens: 5 }, keep: { messages: 1 } }],
	])("should read %j", (spec, expected) => {
		expect(parseClearSpec(spec)).toEqual(expected);
	});

	it.each([
		["keep=-1", "keep takes a number"],
		["trigger=lots", "trigger tokens takes a number"],
		["trigger=size:5", 'unknown field "size"'],
		["trigger=5+tokens:6", "gives tokens twice"],
		["keep=1,keep=2", '"keep" is given twice'],
		["clearToolInputs=yes", "true or false"],
		["placeholder=", '"placeholder" has no value'],
		["keep_last=3", 'unknown key "keep_last"'],
		["{trigger: 5}", "not valid JSON"],
	])("should refuse %j and say why", (spec, why) => {
		expect(() => parseClearSpec(spec)).toThrow(why);
	});
});

describe("takeClearToolResults", () => {
	it.each([
		[["--clear-tool-results", "a.json"], ["a.json"], ""],
		[["--json", "--clear-tool-results=keep=1", "a.json"], ["--json", "a.json"], "keep=1"],
		[["a.json", "--", "--clear-tool-results"], ["a.json", "--", "--clear-tool-results"], undefined],
	])("should take the flag out of %j", (argv, rest, spec) => {
		expect(takeClearToolResults(argv)).toEqual({ rest, clearToolResults: spec });
	});
});

describe("convert-to-llm --clear-tool-results", () => {
	it("should print what the library's clearToolResults produces, with --json", async () => {
		const spec = "trigger=2000,keep=1,clearAtLeast=0";
		const run = await cli(["--json", `--clear-tool-results=${spec}`, "-"], { stdin });
		expect(run.code, run.stderr).toBe(0);
		const expected = createDefaultRegistry()
			.use(clearToolResults({ trigger: { tokens: 2000 }, keep: { messages: 1 }, clearAtLeast: 0 }))
			.convert(history as never);
		expect(JSON.parse(run.stdout)).toEqual(expected);
		expect(run.stdout).toContain("[cleared: read f0.ts, 4,000 characters]");
		expect(run.stdout).not.toContain("[cleared: read f4.ts");
	});

	it("should name the filter in the header and say what it changed under --explain", async () => {
		// 24 turns of 5,000 tokens each: past the default trigger of 100,000.
		const long = Array.from({ length: 24 }, (_, i) => turn(i, 20_000)).flat();
		const run = await cli(["--explain", "--clear-tool-results", "-"], { stdin: JSON.stringify(long) });
		expect(run.code, run.stderr).toBe(0);
		expect(run.stdout).toContain("converted with pi's default preset + clear-tool-results");
		expect(run.stdout).toContain("afterConvert convert-to-llm:clear-tool-results: replaced #2, #5,");
		expect(run.stdout).toContain("[cleared: read f0.ts, 20,000 characters]");
	});

	it.each([
		[["--clear-tool-results=keep=-1"], '--clear-tool-results="keep=-1": keep takes a number'],
		[['--clear-tool-results={"keep":{"messages":-1}}'], "keep.messages is number -1"],
		[["--clear-tool-results", "--clear-tool-results=keep=1"], "given twice"],
	])("should refuse %j with exit 2", async (argv, message) => {
		const run = await cli([...argv, "-"], { stdin });
		expect(run.code).toBe(2);
		expect(run.stderr).toContain(message);
	});
});
