/**
 * The session reader on a header whose `version` has no primitive (`{"valueOf":0,"toString":0}`):
 * pi compares the version with numbers, which throws a `TypeError` there; the reader's contract
 * allows only `InvalidSessionError`, and the CLI says it in one line.
 */
import { describe, expect, it } from "vitest";
import { InvalidSessionError } from "../../src/errors.js";
import { readSession } from "../../src/session/index.js";
import { cli } from "../fixtures/sessions/run-cli.js";

const header = (version: unknown) =>
	JSON.stringify({ type: "session", id: "s", version, timestamp: "2025-01-31T12:00:00.000Z", cwd: "/" });
const text = (version: unknown) =>
	`${header(version)}\n${JSON.stringify({ type: "message", id: "a", parentId: null, timestamp: "2025-01-31T12:00:00.000Z", message: { role: "user", content: "hi", timestamp: 0 } })}\n`;

describe("readSession with a header version that has no primitive", () => {
	it("should throw an InvalidSessionError naming the header line, not a TypeError", () => {
		expect(() => readSession(text({ valueOf: 0, toString: 0 }))).toThrow(InvalidSessionError);
		expect(() => readSession(text({ valueOf: 0, toString: 0 }))).toThrow(
			/"version" \(line 1\) is not a version number/,
		);
	});

	it("should keep reading versions pi compares as numbers (a string, an array of one)", () => {
		expect(readSession(text("3")).messages).toHaveLength(1);
		expect(readSession(text([3])).messages).toHaveLength(1);
	});

	it("should make the CLI say it in one line and exit 2", async () => {
		const run = await cli(["-"], { stdin: text({ valueOf: 0, toString: 0 }) });
		expect(run.code).toBe(2);
		expect(run.stderr).toMatch(
			/^convert-to-llm: "stdin" has a session header whose "version" \(line 1\) is not a version number/,
		);
		expect(run.stderr).not.toContain("unexpected error");
	});
});
