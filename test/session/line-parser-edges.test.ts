/**
 * The file's first and last line where pi 0.73.1 and pi 1.x part: 0.73.1 trims the whole text
 * (`content.trim()`), so a byte order mark or a no-break space at the file's start or end goes; 1.x
 * parses each line as it is, and `JSON.parse` allows only spaces, tabs and line ends around a value.
 * The reader reads each such line as pi 1.x does and says what pi 0.73.1 does, except a first line
 * that 0.73.1 reads as the header, without which 1.x refuses the file: that one is read, and the
 * problem says pi 1.x refuses the file. (Both pi lines' own readings of such files are compared in
 * test/differential/session-odd-lines-differential.test.ts.)
 */
import { describe, expect, it } from "vitest";
import { parseSession, readSession } from "../../src/session/index.js";
import { HEADER, jsonl, user } from "../support/session-lines.js";

const BODY = [HEADER, user("a", null, "one"), user("b", "a", "two")] as const;

describe("SessionLineParser at the file's edges", () => {
	it.each([
		["a byte order mark", "\ufeff", "U+FEFF (a byte order mark)"],
		["a no-break space", "\u00a0", "U+00A0 (a no-break space)"],
		["an ideographic space", "\u3000", "U+3000"],
	])("should read a header after %s as pi 0.73.1 does, and say that pi 1.x refuses the file", (_what, mark, named) => {
		const read = readSession(`${mark}${jsonl(...BODY)}`, { file: "s.jsonl" });
		expect(read.messages).toEqual(readSession(jsonl(...BODY)).messages);
		expect(read.problems).toEqual([
			{
				kind: "edge-whitespace",
				file: "s.jsonl",
				line: 1,
				excerpt: expect.stringMatching(/^.\{"type":"session"/u),
				message: `"s.jsonl", line 1 starts with ${named}, which is not JSON whitespace: pi 1.x does not read that line, and refuses the file unless the next line it reads is a session header; pi 0.73.1 trims the start of the file and reads the header, as the reader did. Remove that character.`,
			},
		]);
	});

	it("should throw that problem in strict mode", () => {
		expect(() => parseSession(`\ufeff${jsonl(...BODY)}`, { strict: true })).toThrow(
			/line 1 starts with U\+FEFF \(a byte order mark\).*pi 1\.x does not read that line/,
		);
	});

	it.each([
		["a no-break space", "\u00a0", "U+00A0 (a no-break space)"],
		["a byte order mark", "\ufeff", "U+FEFF (a byte order mark)"],
		["a no-break space and blank lines", "\u00a0\n\n \n", "U+00A0 (a no-break space)"],
	])(
		"should skip a last line that ends with %s as pi 1.x does, and say that pi 0.73.1 reads it",
		(_what, mark, named) => {
			const read = readSession(`${jsonl(...BODY).trimEnd()}${mark}`, { file: "s.jsonl" });
			expect(read.messages).toEqual(readSession(jsonl(BODY[0], BODY[1])).messages);
			expect(read.leafId).toBe("a");
			expect(read.problems.map((problem) => [problem.kind, problem.line, problem.message])).toEqual([
				[
					"edge-whitespace",
					3,
					`"s.jsonl", line 3 ends with ${named}, which is not JSON whitespace; it was skipped, as pi 1.x skips it (pi 0.73.1 trims the end of the file and reads that line, as its last value). Remove that character.`,
				],
			]);
		},
	);

	it("should skip a line in the middle that ends with a no-break space as both pi lines do: not JSON", () => {
		const lines = jsonl(...BODY).split("\n");
		lines[1] = `${lines[1]}\u00a0`;
		const read = readSession(lines.join("\n"));
		expect(read.messages.map((message) => (message as { content?: unknown }).content)).toEqual(["two"]);
		expect(read.problems.map((problem) => [problem.kind, problem.line])).toEqual([
			["not-json", 2],
			["broken-link", 3],
		]);
	});

	it.each([
		["null", "pi 0.73.1 fails to open a session with a null line"],
		["5", "pi 0.73.1 takes it for the header and reads no session"],
		['{"role":"user"}', "pi 0.73.1 takes it for the header and reads no session"],
	])(
		"should skip a first line %s after a byte order mark as pi 1.x does, and say what pi 0.73.1 does",
		(value, old) => {
			const read = readSession(`\ufeff${value}\n${jsonl(...BODY)}`);
			expect(read.messages).toEqual(readSession(jsonl(...BODY)).messages);
			expect(read.problems.map((problem) => problem.message)).toEqual([
				`The session, line 1 starts with U+FEFF (a byte order mark), which is not JSON whitespace; it was skipped, as pi 1.x skips it (pi 0.73.1 trims the start of the file and reads the line: ${old}). Remove that character.`,
			]);
		},
	);

	it("should read JSON whitespace around any line as both pi lines do, without a problem", () => {
		const text = `\n \t${JSON.stringify(HEADER)} \r\n${JSON.stringify(BODY[1])}\t\n ${JSON.stringify(BODY[2])} \r\n\n`;
		expect(readSession(text).problems).toEqual([]);
		expect(readSession(text).messages).toHaveLength(2);
	});
});
