/**
 * The app roles' text constants, `bashExecutionToText` and the factories, rule by rule, each checked
 * against the literal text it must produce and against pi-coding-agent 0.73.1 itself.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as upstream from "../node_modules/@mariozechner/pi-coding-agent/dist/core/messages.js";
import { ErrorCode, InvalidMessageError } from "../src/errors.js";
import {
	type BashExecutionMessage,
	BRANCH_SUMMARY_PREFIX,
	BRANCH_SUMMARY_SUFFIX,
	bashExecutionToText,
	COMPACTION_SUMMARY_PREFIX,
	COMPACTION_SUMMARY_SUFFIX,
	createBranchSummaryMessage,
	createCompactionSummaryMessage,
	createCustomMessage,
	type TimestampInput,
} from "../src/messages.js";
import { arbBashExecution } from "./support/arbitraries.js";
import { bashExecution } from "./support/fixtures.js";

describe("text constants", () => {
	it.each([
		{
			name: "COMPACTION_SUMMARY_PREFIX",
			ours: COMPACTION_SUMMARY_PREFIX,
			theirs: upstream.COMPACTION_SUMMARY_PREFIX,
			literal: "The conversation history before this point was compacted into the following summary:\n\n<summary>\n",
		},
		{
			name: "COMPACTION_SUMMARY_SUFFIX",
			ours: COMPACTION_SUMMARY_SUFFIX,
			theirs: upstream.COMPACTION_SUMMARY_SUFFIX,
			literal: "\n</summary>",
		},
		{
			name: "BRANCH_SUMMARY_PREFIX",
			ours: BRANCH_SUMMARY_PREFIX,
			theirs: upstream.BRANCH_SUMMARY_PREFIX,
			literal: "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n",
		},
		{
			name: "BRANCH_SUMMARY_SUFFIX",
			ours: BRANCH_SUMMARY_SUFFIX,
			theirs: upstream.BRANCH_SUMMARY_SUFFIX,
			literal: "</summary>",
		},
	])("should define $name byte-identical to pi 0.73.1", ({ ours, theirs, literal }) => {
		expect(ours).toBe(literal);
		expect(ours).toBe(theirs);
	});

	it("should start the compaction suffix with a newline and the branch suffix without one", () => {
		expect(COMPACTION_SUMMARY_SUFFIX.startsWith("\n")).toBe(true);
		expect(BRANCH_SUMMARY_SUFFIX.startsWith("\n")).toBe(false);
	});
});

const bash = (fields: Partial<BashExecutionMessage>): BashExecutionMessage =>
	bashExecution({ timestamp: 1, ...fields });

/** `exitCode: null` is what pi's stored sessions hold for a killed process, although the type says `number | undefined`. */
const NULL_EXIT = null as unknown as number;
const withoutExitCode = (): BashExecutionMessage => {
	const message = bash({});
	delete (message as Partial<BashExecutionMessage>).exitCode;
	return message;
};

describe("bashExecutionToText", () => {
	it.each<{ rule: string; message: BashExecutionMessage; text: string }>([
		{ rule: "print the command and fence the output", message: bash({}), text: "Ran `ls`\n```\na.txt\n```" },
		{ rule: "print (no output) for empty output", message: bash({ output: "" }), text: "Ran `ls`\n(no output)" },
		{
			rule: "fence output holding backticks and fences verbatim",
			message: bash({ output: "```js\nconst a = `b`;\n```" }),
			text: "Ran `ls`\n```\n```js\nconst a = `b`;\n```\n```",
		},
		{
			rule: "print a command holding backticks verbatim",
			message: bash({ command: "echo `date`", output: "" }),
			text: "Ran `echo `date``\n(no output)",
		},
		{ rule: "print nothing for exit code 0", message: bash({ exitCode: 0 }), text: "Ran `ls`\n```\na.txt\n```" },
		{
			rule: "print nothing for exit code null",
			message: bash({ exitCode: NULL_EXIT }),
			text: "Ran `ls`\n```\na.txt\n```",
		},
		{
			rule: "print nothing for exit code undefined",
			message: bash({ exitCode: undefined }),
			text: "Ran `ls`\n```\na.txt\n```",
		},
		{ rule: "print nothing for an absent exit code", message: withoutExitCode(), text: "Ran `ls`\n```\na.txt\n```" },
		{
			rule: "print a nonzero exit code",
			message: bash({ exitCode: 2 }),
			text: "Ran `ls`\n```\na.txt\n```\n\nCommand exited with code 2",
		},
		{
			rule: "print a negative exit code",
			message: bash({ exitCode: -1 }),
			text: "Ran `ls`\n```\na.txt\n```\n\nCommand exited with code -1",
		},
		{
			rule: "hide a nonzero exit code when cancelled",
			message: bash({ cancelled: true, exitCode: 130 }),
			text: "Ran `ls`\n```\na.txt\n```\n\n(command cancelled)",
		},
		{
			rule: "say cancelled whatever the exit code",
			message: bash({ cancelled: true, exitCode: NULL_EXIT, output: "" }),
			text: "Ran `ls`\n(no output)\n\n(command cancelled)",
		},
		{
			rule: "add the truncation note when truncated with a fullOutputPath",
			message: bash({ truncated: true, fullOutputPath: "/tmp/out.log" }),
			text: "Ran `ls`\n```\na.txt\n```\n\n[Output truncated. Full output: /tmp/out.log]",
		},
		{
			rule: "omit the truncation note when truncated without a fullOutputPath",
			message: bash({ truncated: true }),
			text: "Ran `ls`\n```\na.txt\n```",
		},
		{
			rule: 'omit the truncation note when fullOutputPath is ""',
			message: bash({ truncated: true, fullOutputPath: "" }),
			text: "Ran `ls`\n```\na.txt\n```",
		},
		{
			rule: "omit the truncation note when not truncated, even with a fullOutputPath",
			message: bash({ truncated: false, fullOutputPath: "/tmp/out.log" }),
			text: "Ran `ls`\n```\na.txt\n```",
		},
		{
			rule: "put exit code then truncation note, in that order",
			message: bash({ exitCode: 1, truncated: true, fullOutputPath: "/tmp/out.log" }),
			text: "Ran `ls`\n```\na.txt\n```\n\nCommand exited with code 1\n\n[Output truncated. Full output: /tmp/out.log]",
		},
		{
			rule: "put cancelled then truncation note, in that order",
			message: bash({ cancelled: true, exitCode: 1, output: "", truncated: true, fullOutputPath: "/p" }),
			text: "Ran `ls`\n(no output)\n\n(command cancelled)\n\n[Output truncated. Full output: /p]",
		},
	])("should $rule", ({ message, text }) => {
		expect(bashExecutionToText(message)).toBe(text);
		expect(upstream.bashExecutionToText(message)).toBe(text);
	});

	it("should match pi 0.73.1 on generated bash runs", () => {
		fc.assert(
			fc.property(arbBashExecution, (message) => {
				expect(bashExecutionToText(message)).toBe(upstream.bashExecutionToText(message));
			}),
			{ numRuns: 1000 },
		);
	});
});

type Factory = {
	name: string;
	role: string;
	ours: (timestamp: TimestampInput) => unknown;
	theirs: (timestamp: string) => unknown;
};

const images = [{ type: "image" as const, data: "iVBORw0KGgo=", mimeType: "image/png" }];
const factories: Factory[] = [
	{
		name: "createBranchSummaryMessage",
		role: "branchSummary",
		ours: (t) => createBranchSummaryMessage("Tried X </summary> `y` ✓", "a1b2c3d4", t),
		theirs: (t) => upstream.createBranchSummaryMessage("Tried X </summary> `y` ✓", "a1b2c3d4", t),
	},
	{
		name: "createCompactionSummaryMessage",
		role: "compactionSummary",
		ours: (t) => createCompactionSummaryMessage("", 48_000, t),
		theirs: (t) => upstream.createCompactionSummaryMessage("", 48_000, t),
	},
	{
		name: "createCustomMessage (string content)",
		role: "custom",
		ours: (t) => createCustomMessage("todo-ext", "3 todos open", true, { open: 3 }, t),
		theirs: (t) => upstream.createCustomMessage("todo-ext", "3 todos open", true, { open: 3 }, t),
	},
	{
		name: "createCustomMessage (array content, no details)",
		role: "custom",
		ours: (t) => createCustomMessage("shots", images, false, undefined, t),
		theirs: (t) => upstream.createCustomMessage("shots", images, false, undefined, t),
	},
];

const ISO_STRINGS = [
	"2025-01-31T12:00:00.000Z",
	"2025-01-31T12:00:00Z",
	"2025-01-31T14:00:00.123+02:00",
	"2025-01-31",
	"1970-01-01T00:00:00.000Z",
	"1969-12-31T23:59:59.999Z",
];

describe.each(factories)("$name", ({ name, role, ours, theirs }) => {
	it.each(ISO_STRINGS)("should build what pi builds from the ISO string %s", (iso) => {
		const message = ours(iso);
		expect(message).toStrictEqual(theirs(iso));
		expect(JSON.stringify(message)).toBe(JSON.stringify(theirs(iso)));
		expect((message as { timestamp: number }).timestamp).toBe(Date.parse(iso));
	});

	it("should build what pi builds from any valid date's ISO string", () => {
		fc.assert(
			fc.property(fc.date({ noInvalidDate: true }), (date) => {
				expect(ours(date.toISOString())).toStrictEqual(theirs(date.toISOString()));
			}),
			{ numRuns: 200 },
		);
	});

	it.each<{ kind: string; input: TimestampInput; ms: number }>([
		{ kind: "epoch milliseconds", input: 1_738_324_800_000, ms: 1_738_324_800_000 },
		{ kind: "epoch 0", input: 0, ms: 0 },
		{ kind: "a Date", input: new Date("2025-01-31T12:00:00.000Z"), ms: 1_738_324_800_000 },
	])("should accept $kind", ({ input, ms }) => {
		const message = ours(input) as { timestamp: number };
		expect(message.timestamp).toBe(ms);
		expect(message).toStrictEqual(theirs(new Date(ms).toISOString()));
	});

	it.each<{ kind: string; input: TimestampInput; shown: string }>([
		{ kind: '"nope"', input: "nope", shown: '"nope"' },
		{ kind: "an empty string", input: "", shown: '""' },
		{ kind: "NaN", input: Number.NaN, shown: "NaN" },
		{ kind: "an out-of-range number", input: 8.64e15 + 1, shown: "8640000000000001" },
		{ kind: "an invalid Date", input: new Date("x"), shown: "Invalid Date" },
	])("should throw InvalidMessageError for $kind", ({ input, shown }) => {
		let thrown: unknown;
		try {
			ours(input);
		} catch (error) {
			thrown = error;
		}
		expect(thrown).toBeInstanceOf(InvalidMessageError);
		const error = thrown as InvalidMessageError;
		expect(error.code).toBe(ErrorCode.INVALID_MESSAGE);
		expect(error.code).toBe("CONVERT_TO_LLM_INVALID_MESSAGE");
		expect(error.name).toBe("InvalidMessageError");
		expect(error.role).toBe(role);
		expect(error.message).toContain(name.split(" ")[0] as string);
		expect(error.message).toContain(`timestamp ${shown} is not a valid date`);
		expect(error.message).toContain("ISO 8601");
	});
});
