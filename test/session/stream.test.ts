/**
 * The session reader as a stream of lines: `readSessionStream` over chunks split anywhere (inside a
 * line, inside a UTF-8 character), `readSessionFile` a megabyte at a time, and pi's rules for the
 * lines it keeps but are no entries; the problems as data, counted per kind.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { InvalidSessionError } from "../../src/errors.js";
import {
	MAX_PROBLEMS_PER_KIND,
	parseSession,
	readSession,
	readSessionFile,
	readSessionStream,
} from "../../src/session/index.js";
import { LineSplitter } from "../../src/session/lines.js";
import { HEADER, jsonl, T, user } from "../support/session-lines.js";

const tmp = mkdtempSync(join(tmpdir(), "ctl-session-stream-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const TEXT = jsonl(
	HEADER,
	user("a", null, "héllo ✓ 🎉"),
	"{broken",
	user("b", "a", "second ✓"),
	"[]",
	user("c", "b", "çà"),
);

async function* chunks(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
	for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

describe("readSessionStream", () => {
	it.each([1, 2, 3, 7, 64])(
		"should read chunks of %i bytes, characters split between them, as readSession reads the text",
		async (size) => {
			const streamed = await readSessionStream(chunks(Buffer.from(TEXT), size), { file: "s.jsonl" });
			expect(streamed).toEqual(readSession(TEXT, { file: "s.jsonl" }));
			expect(streamed.messages.map((m) => (m as { content: string }).content)).toEqual([
				"héllo ✓ 🎉",
				"second ✓",
				"çà",
			]);
		},
	);

	it("should read text chunks, and a last line without a newline", async () => {
		async function* text() {
			yield TEXT.slice(0, 50);
			yield "";
			yield TEXT.slice(50).trimEnd();
		}
		expect(await readSessionStream(text())).toEqual(readSession(TEXT));
	});

	it("should reject with the stream's own error, and end the stream when the reader throws", async () => {
		let ended = false;
		async function* failing() {
			try {
				yield "not a session\n";
				yield `${JSON.stringify({ type: "message" })}\n`;
				yield "more\n";
			} finally {
				ended = true;
			}
		}
		await expect(readSessionStream(failing(), { strict: true })).rejects.toThrow(InvalidSessionError);
		expect(ended).toBe(true);
		async function* broken() {
			yield `${JSON.stringify(HEADER)}\n`;
			throw new Error("disk gone");
		}
		await expect(readSessionStream(broken())).rejects.toThrow("disk gone");
	});
});

describe("readSessionFile", () => {
	it("should read a file line by line as readSession reads its text, naming the file", () => {
		const path = join(tmp, "s.jsonl");
		writeFileSync(path, TEXT);
		expect(readSessionFile(path)).toEqual(readSession(TEXT, { file: path }));
	});

	it("should read lines that span many of its reads", () => {
		const long = "x".repeat(3 * 1024 * 1024);
		const text = jsonl(HEADER, user("a", null, long), user("b", "a", "after"));
		const path = join(tmp, "long.jsonl");
		writeFileSync(path, text);
		const read = readSessionFile(path, { tree: true });
		expect(read.messages.map((m) => (m as { content: string }).content)).toEqual([long, "after"]);
		expect(read.tree?.session.lines).toEqual([2, 3]);
	});
});

describe("LineSplitter", () => {
	it("should split on \\n as split does, keeping \\r, across chunks", () => {
		const lines: [string, number][] = [];
		const splitter = new LineSplitter({ line: (text, number) => lines.push([text, number]) });
		for (const chunk of ["a\r\nb", "", "c\n", "\n", "d"]) splitter.push(chunk);
		splitter.end();
		expect(lines).toEqual([
			["a\r", 1],
			["bc", 2],
			["", 3],
			["d", 4],
		]);
	});

	it("should give the lines of the whole text decoded at once, however bytes of ASCII, UTF-8 and broken UTF-8 are split into chunks", () => {
		// Whole characters, the bytes of one alone (a character left open, or continued from nowhere), and ASCII.
		const piece = fc.oneof(
			fc.constantFrom("a", "\n", "{", "é", "✓", "🎉").map((text) => [...Buffer.from(text)]),
			fc.constantFrom(0x80, 0xbf, 0xc3, 0xe2, 0xf0, 0xff).map((byte) => [byte]),
		);
		fc.assert(
			fc.property(fc.array(piece, { maxLength: 60 }), fc.array(fc.nat(12), { maxLength: 20 }), (pieces, cuts) => {
				const bytes = Uint8Array.from(pieces.flat());
				const lines: string[] = [];
				const splitter = new LineSplitter({ line: (text) => lines.push(text) });
				let from = 0;
				for (const cut of cuts) {
					const to = Math.min(bytes.length, from + cut);
					splitter.push(bytes.subarray(from, to));
					from = to;
				}
				splitter.push(bytes.subarray(from));
				splitter.end();
				const whole = Buffer.from(bytes).toString("utf8").split("\n");
				if (whole.at(-1) === "") whole.pop();
				expect(lines).toEqual(whole);
			}),
			{ numRuns: 2000 },
		);
	});
});

describe("session lines pi keeps that are no entries", () => {
	it("should send an empty context when the last line is JSON but not an object, as pi does, and say so", () => {
		for (const last of ["1", '"x"', "true", "[]"]) {
			const text = jsonl(HEADER, user("a", null, "one"), last);
			const read = readSession(text, { file: "s.jsonl", tree: true });
			expect(read).toMatchObject({ messages: [], leafId: null, pathLength: 0, thinkingLevel: "off", model: null });
			expect(read.tree?.session.nonEntryLastLine).toBe(3);
			expect(read.problems.map((p) => p.kind)).toEqual(["not-an-entry", "leaf-not-an-entry"]);
			expect(read.problems[1]?.message).toBe(
				'"s.jsonl": pi would send an empty context: the last line is not an entry (line 3 is JSON but not an object, and pi resumes from it). Remove that line, or pick a leaf with leafId.',
			);
			expect(readSession(text, { leafId: "a" }).messages).toHaveLength(1);
		}
	});

	it('should skip null, false, 0 and "" as pi 1.x does, and say what pi 0.73.1 does with them', () => {
		const text = jsonl(HEADER, user("a", null, "one"), "0", "null");
		const read = parseSession(text);
		expect(read.entries).toHaveLength(1);
		expect(read.nonEntryLastLine).toBeUndefined();
		expect(read.problems.map((p) => p.message)).toEqual([
			"The session, line 3 is 0; it was skipped, as pi 1.x skips it (pi 0.73.1 keeps it as an entry that sends nothing, and as the last line sends an empty context). Remove that line.",
			"The session, line 4 is null; it was skipped, as pi 1.x skips it (pi 0.73.1 fails to open a session with a null line). Remove that line.",
		]);
	});

	it("should find the header after any number of lines pi skips", () => {
		const junk = Array.from({ length: 1200 }, (_, i) => (i % 3 === 0 ? "null" : `junk ${i}`));
		const read = readSession(jsonl(...junk, HEADER, user("a", null, "one")), { tree: true });
		expect(read.messages).toHaveLength(1);
		expect(read.tree?.session.lines).toEqual([1202]);
		expect(read.problemCounts).toEqual([
			{
				kind: "skipped-value",
				count: 400,
				omitted: 390,
				summary: expect.stringMatching(/^… and 390 more lines like it/),
			},
			{
				kind: "not-json",
				count: 800,
				omitted: 790,
				summary: "… and 790 more lines like it: not valid JSON, skipped.",
			},
		]);
	});

	it("should keep a version 1 array line in the chain, as pi gives it an id, so a firstKeptEntryIndex after it keeps the right entry", () => {
		const v1 = (content: string) => ({
			type: "message",
			timestamp: T,
			message: { role: "user", content, timestamp: 1 },
		});
		const compaction = { type: "compaction", timestamp: T, summary: "s", firstKeptEntryIndex: 3, tokensBefore: 1 };
		const { version: _version, ...header } = HEADER;
		const read = readSession(jsonl(header, v1("one"), "[]", v1("two"), v1("three"), compaction, v1("four")));
		expect(read.messages.map((m) => (m as { content?: string }).content ?? m.role)).toEqual([
			"compactionSummary",
			"two",
			"three",
			"four",
		]);
		expect(read.problems.map((p) => p.kind)).toEqual(["not-an-entry"]);
	});
});

describe("session problems", () => {
	it("should keep the first few of each kind as data and count the rest", () => {
		const junk = Array.from({ length: 25 }, (_, i) => `junk ${i}`);
		const read = readSession(jsonl(HEADER, ...junk, user("a", null, "one")));
		expect(read.problems).toHaveLength(MAX_PROBLEMS_PER_KIND);
		expect(read.problems[0]).toEqual({
			kind: "not-json",
			line: 2,
			excerpt: "junk 0",
			message: "The session, line 2 is not valid JSON; it was skipped, as pi skips it. Fix or remove that line.",
		});
		expect(read.problems[0]).not.toBeInstanceOf(Error);
		expect(read.problemCounts).toEqual([
			{ kind: "not-json", count: 25, omitted: 15, summary: "… and 15 more lines like it: not valid JSON, skipped." },
		]);
	});

	it("should throw an InvalidSessionError made from the first problem in strict mode", () => {
		const text = jsonl(HEADER, user("a", null, "one"), "7");
		expect(() => readSession(text, { strict: true, file: "s.jsonl" })).toThrow(
			expect.objectContaining({ name: "InvalidSessionError", file: "s.jsonl", line: 3 }),
		);
	});
});
