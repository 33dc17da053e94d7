/**
 * The built-in converters of the default preset, rule by rule: each row states the input and the exact
 * output, and is checked through the converter, through `convertToLlm` and against pi 0.73.1.
 */
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { ImageContent, Message, TextContent, ToolResultMessage, UserMessage } from "@earendil-works/pi-ai";
import { describe, expect, it } from "vitest";
import {
	BASH_EXECUTION_PLUGIN,
	BRANCH_SUMMARY_PLUGIN,
	COMPACTION_SUMMARY_PLUGIN,
	CUSTOM_PLUGIN,
	convertBashExecution,
	convertBranchSummary,
	convertCompactionSummary,
	convertCustom,
	MODEL_ROLES,
	MODEL_ROLES_PLUGIN,
	passThrough,
} from "../../src/builtin-converters/index.js";
import type {
	BashExecutionMessage,
	BranchSummaryMessage,
	CompactionSummaryMessage,
	CustomMessage,
} from "../../src/messages.js";
import { convertToLlm, createDefaultRegistry, defaultPreset } from "../../src/preset.js";
import { assistant, bashExecution } from "../support/fixtures.js";
import { upstreamConvertToLlm } from "../support/upstream.js";

/** Asserts that the default preset and pi 0.73.1 turn `[message]` into `expected`, byte for byte. */
function expectConverted(message: AgentMessage, expected: Message[]): void {
	const ours = convertToLlm([message]);
	const theirs = upstreamConvertToLlm([message]);
	expect(ours).toStrictEqual(expected);
	expect(theirs).toStrictEqual(expected);
	expect(JSON.stringify(ours)).toBe(JSON.stringify(theirs));
}

const text = (value: string): TextContent => ({ type: "text", text: value });
const image: ImageContent = { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" };

describe("defaultPreset", () => {
	it("should list the built-in plugins in pi's order, frozen", () => {
		expect(defaultPreset.map((plugin) => plugin.name)).toEqual([
			MODEL_ROLES_PLUGIN,
			BASH_EXECUTION_PLUGIN,
			CUSTOM_PLUGIN,
			BRANCH_SUMMARY_PLUGIN,
			COMPACTION_SUMMARY_PLUGIN,
		]);
		expect(Object.isFrozen(defaultPreset)).toBe(true);
	});

	it("should convert the eight roles of a pi history (system since pi 0.86)", () => {
		expect(new Set(createDefaultRegistry().roles())).toEqual(
			new Set([
				"user",
				"assistant",
				"toolResult",
				"system",
				"bashExecution",
				"custom",
				"branchSummary",
				"compactionSummary",
			]),
		);
	});
});

describe("modelRoles", () => {
	it.each<{ kind: string; message: Message }>([
		{ kind: "a user message with string content", message: { role: "user", content: "hi", timestamp: 1 } },
		{
			kind: "a user message with text and images",
			message: { role: "user", content: [text("look"), image], timestamp: 1 } satisfies UserMessage,
		},
		{
			kind: "an assistant message with text, thinking and a tool call",
			message: assistant(
				[
					{ type: "thinking", thinking: "hmm", thinkingSignature: "sig" },
					text("ok"),
					{ type: "toolCall", id: "c1", name: "bash", arguments: { command: "ls" } },
				],
				{ timestamp: 2 },
			),
		},
		{
			kind: "a tool result with text and an image",
			message: {
				role: "toolResult",
				toolCallId: "c1",
				toolName: "read",
				content: [text("a.png"), image],
				details: { path: "a.png" },
				isError: false,
				timestamp: 3,
			} satisfies ToolResultMessage,
		},
	])("should pass $kind through as the same object", ({ message }) => {
		expect(passThrough(message)).toBe(message);
		const [ours] = convertToLlm([message]);
		const [theirs] = upstreamConvertToLlm([message]);
		expect(ours).toBe(message);
		expect(theirs).toBe(message);
	});

	it("should cover exactly pi-ai's four roles, system last", () => {
		expect([...MODEL_ROLES]).toEqual(["user", "assistant", "toolResult", "system"]);
	});

	it("should pass a pi 1.x system message through as the same object", () => {
		const system = {
			role: "system",
			content: "You are pi.",
			sections: { intro: "You are pi.", skills: null },
			toolsAdded: [{ name: "read", description: "Read a file", parameters: { type: "object" } }],
			toolsRemoved: [{ name: "write" }],
			timestamp: 0,
		};
		const output = convertToLlm([system as unknown as AgentMessage]);
		expect(output).toHaveLength(1);
		expect(output[0]).toBe(system);
	});
});

const bash = (fields: Partial<BashExecutionMessage>): BashExecutionMessage =>
	bashExecution({ timestamp: 7, ...fields });

describe("bashExecution", () => {
	it.each<{ kind: string; excludeFromContext: unknown }>([
		{ kind: "true", excludeFromContext: true },
		{ kind: "1 (truthy)", excludeFromContext: 1 },
		{ kind: '"yes" (truthy)', excludeFromContext: "yes" },
	])("should drop the run when excludeFromContext is $kind", ({ excludeFromContext }) => {
		const message = bash({ excludeFromContext: excludeFromContext as boolean });
		expect(convertBashExecution(message)).toBeNull();
		expectConverted(message, []);
	});

	it.each<{ kind: string; fields: Partial<BashExecutionMessage> }>([
		{ kind: "false", fields: { excludeFromContext: false } },
		{ kind: "undefined", fields: { excludeFromContext: undefined } },
		{ kind: "absent", fields: {} },
		{ kind: "0 (falsy)", fields: { excludeFromContext: 0 as unknown as boolean } },
	])("should keep the run when excludeFromContext is $kind", ({ fields }) => {
		const message = bash(fields);
		const expected: UserMessage = {
			role: "user",
			content: [{ type: "text", text: "Ran `ls`\n```\na.txt\n```" }],
			timestamp: 7,
		};
		expect(convertBashExecution(message)).toStrictEqual(expected);
		expectConverted(message, [expected]);
	});

	it("should build the message with pi's key order (role, content, timestamp)", () => {
		const converted = convertBashExecution(bash({ exitCode: 1 }));
		expect(JSON.stringify(converted)).toBe(
			'{"role":"user","content":[{"type":"text","text":"Ran `ls`\\n```\\na.txt\\n```\\n\\nCommand exited with code 1"}],"timestamp":7}',
		);
	});
});

const custom = (content: CustomMessage["content"], fields: Partial<CustomMessage> = {}): CustomMessage => ({
	role: "custom",
	customType: "my-ext",
	content,
	display: true,
	timestamp: 9,
	...fields,
});

describe("custom", () => {
	it.each<{ kind: string; content: string }>([
		{ kind: "plain text", content: "Build is green" },
		{ kind: "an empty string", content: "" },
		{ kind: "backticks and a fence", content: "```\n`x`\n```" },
		{ kind: "unicode", content: "日本語 👩‍👩‍👧" },
	])("should turn string content ($kind) into one text block", ({ content }) => {
		const message = custom(content, { details: { runId: 7 } });
		const expected: UserMessage = { role: "user", content: [{ type: "text", text: content }], timestamp: 9 };
		expect(convertCustom(message)).toStrictEqual(expected);
		expectConverted(message, [expected]);
	});

	it.each<{ kind: string; content: (TextContent | ImageContent)[] }>([
		{ kind: "text blocks", content: [text("a"), text("b")] },
		{ kind: "text and images", content: [text("see"), image, image] },
		{ kind: "an empty array", content: [] },
	])("should pass array content ($kind) on by reference", ({ content }) => {
		const message = custom(content, { customType: "shots", display: false });
		const converted = convertCustom(message);
		expect(converted).toStrictEqual({ role: "user", content, timestamp: 9 });
		expect(converted?.content).toBe(content);
		const [ours] = convertToLlm([message]);
		const [theirs] = upstreamConvertToLlm([message]);
		expect(ours?.content).toBe(content);
		expect(theirs?.content).toBe(content);
		expectConverted(message, [{ role: "user", content, timestamp: 9 }]);
	});

	it("should build a new message, not return the custom message", () => {
		const message = custom("x");
		expect(convertCustom(message)).not.toBe(message);
		expect(Object.keys(convertCustom(message) ?? {})).toEqual(["role", "content", "timestamp"]);
	});

	it.each([true, 1, "yes", false, undefined])(
		"should send a message whose excludeFromContext is %s, as every pi version does (0.73.1 to 1.6.0)",
		(excludeFromContext) => {
			const message = { ...custom("x"), excludeFromContext } as CustomMessage;
			const expected: UserMessage = { role: "user", content: [text("x")], timestamp: 9 };
			expect(convertCustom(message)).toStrictEqual(expected);
			expect(convertToLlm([message])).toStrictEqual([expected]);
		},
	);
});

const SUMMARIES = ["Tried X, it failed", "", "</summary>", "```ts\nconst a = `b`;\n```", "résumé 日本語 🎉", "\n"];

describe("branchSummary", () => {
	it.each(SUMMARIES)(
		"should wrap the summary %j in the branch prefix and a suffix with no leading newline",
		(summary) => {
			const message: BranchSummaryMessage = { role: "branchSummary", summary, fromId: "a1b2c3d4", timestamp: 11 };
			const expected: UserMessage = {
				role: "user",
				content: [
					{
						type: "text",
						text: `The following is a summary of a branch that this conversation came back from:\n\n<summary>\n${summary}</summary>`,
					},
				],
				timestamp: 11,
			};
			expect(convertBranchSummary(message)).toStrictEqual(expected);
			expectConverted(message, [expected]);
		},
	);
});

describe("compactionSummary", () => {
	it.each(SUMMARIES)(
		"should wrap the summary %j in the compaction prefix and a suffix with a leading newline",
		(summary) => {
			const message: CompactionSummaryMessage = {
				role: "compactionSummary",
				summary,
				tokensBefore: 48_000,
				timestamp: 12,
			};
			const expected: UserMessage = {
				role: "user",
				content: [
					{
						type: "text",
						text: `The conversation history before this point was compacted into the following summary:\n\n<summary>\n${summary}\n</summary>`,
					},
				],
				timestamp: 12,
			};
			expect(convertCompactionSummary(message)).toStrictEqual(expected);
			expectConverted(message, [expected]);
		},
	);
});

describe("convertToLlm", () => {
	it("should keep the order of a mixed history and drop only !! runs", () => {
		const user: UserMessage = { role: "user", content: "run it", timestamp: 1 };
		const shown = bash({ command: "make", output: "", exitCode: 2 });
		const hidden = bash({ command: "secret", excludeFromContext: true });
		const note = custom([text("n")]);
		const history: AgentMessage[] = [user, hidden, shown, note, hidden];
		const converted = convertToLlm(history);
		expect(converted).toStrictEqual(upstreamConvertToLlm(history));
		expect(converted).toHaveLength(3);
		expect(converted[0]).toBe(user);
		expect(converted[1]?.content).toEqual([text("Ran `make`\n(no output)\n\nCommand exited with code 2")]);
		expect(converted[2]?.content).toBe(note.content);
	});

	it("should return an empty array for an empty history", () => {
		expect(convertToLlm([])).toStrictEqual([]);
		expect(upstreamConvertToLlm([])).toStrictEqual([]);
	});
});
