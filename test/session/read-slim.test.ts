/**
 * The session entrance holds the message entries before a session's latest compaction slim
 * (src/session/slim.ts), from a file or a text: each must read exactly as the same bytes do as a
 * stream, which is read once with every entry whole; where the hint is wrong (the context sends a
 * slim entry) it is read a second time, whole. Generated long sessions, and files where the hint is
 * wrong or the order is not pi's.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import {
	type ReadSessionOptions,
	type ReadSessionResult,
	readSession,
	readSessionFile,
	readSessionStream,
} from "../../src/session/index.js";
import { SessionLineParser } from "../../src/session/line-parser.js";
import { latestKeptId, latestKeptIdInText } from "../../src/session/slim.js";
import { writeLargeSession } from "../fixtures/sessions/large-session.js";
import { assistant, compaction, HEADER, jsonl, messageEntry, user } from "../support/session-lines.js";

const tmp = mkdtempSync(join(tmpdir(), "ctl-read-slim-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

/** The stream of `text` in chunks of `size` bytes. */
async function* chunks(text: string, size = 4096): AsyncGenerator<Uint8Array> {
	const bytes = Buffer.from(text);
	for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

/**
 * The file's and the text's reading, each checked equal to the stream's (read once, whole), and how
 * many passes each took.
 */
async function sameAsStream(
	name: string,
	text: string,
	options: ReadSessionOptions = {},
): Promise<{ read: ReadSessionResult; passes: { file: number; text: number } }> {
	const path = join(tmp, name);
	writeFileSync(path, text);
	const streamed = await readSessionStream(chunks(text), { ...options, file: path });
	const finish = vi.spyOn(SessionLineParser.prototype, "finish");
	const read = readSessionFile(path, options);
	const filePasses = finish.mock.calls.length;
	expect(read).toEqual(streamed);
	expect(readSession(text, { ...options, file: path })).toEqual(streamed);
	return { read, passes: { file: filePasses, text: finish.mock.calls.length - filePasses } };
}

describe("readSessionFile and readSession, messages before the latest compaction held slim", () => {
	it.each([0.3, 0.9])(
		"should read a long generated session (compaction at %d) as a stream is read, in one pass",
		async (at) => {
			const text = (() => {
				const path = join(tmp, `large-${at}.src.jsonl`);
				writeLargeSession(path, 5000, 3, at);
				return readFileSync(path, "utf8");
			})();
			const { read, passes } = await sameAsStream(`large-${at}.jsonl`, text);
			expect(read.problems).toEqual([]);
			expect(read.messages.length).toBeGreaterThan(0);
			expect(passes).toEqual({ file: 1, text: 1 });
		},
	);

	it.each([
		[
			"the kept entry and an assistant before it (the model comes from a slim entry)",
			jsonl(
				HEADER,
				assistant("a", null, "m-old"),
				user("b", "a", "kept"),
				compaction("c", "b", "b"),
				user("d", "c", "after"),
			),
			1,
		],
		[
			"a system message in the kept range (left out, read from a slim entry)",
			jsonl(
				HEADER,
				user("a", null, "old"),
				messageEntry("s", "a", { role: "system", content: "prompt", timestamp: 1 }),
				user("b", "s", "kept"),
				compaction("c", "b", "s"),
			),
			1,
		],
		[
			"the latest compaction on an abandoned branch (the leaf's path sends slim entries: read again)",
			jsonl(
				HEADER,
				user("a", null, "one"),
				user("b", "a", "two"),
				compaction("c1", "b", "b"),
				user("x", "a", "branch"),
				compaction("c2", "x", "x"),
				user("leaf", "c1", "on the first"),
			),
			2,
		],
		[
			"the kept entry written after its child (not pi's order: read again)",
			jsonl(HEADER, user("b", "a", "child first"), user("a", null, "parent after"), compaction("c", "b", "a")),
			2,
		],
		[
			"a kept id that names two entries, and lines that do not parse before it",
			jsonl(
				HEADER,
				"{not json",
				user("k", null, "first k"),
				"[1,",
				user("k", "k", "second k"),
				compaction("c", "k", "k"),
				user("d", "c", "after"),
			),
			1,
		],
		[
			"a compaction whose kept entry is in no line",
			jsonl(HEADER, user("a", null, "one"), compaction("c", "a", "nowhere"), user("d", "c", "after")),
			2,
		],
		["no compaction", jsonl(HEADER, user("a", null, "one"), assistant("b", "a", "m"), user("c", "b", "three")), 1],
		[
			"a version 2 file (migrated entry by entry: nothing slim)",
			jsonl(
				{ ...HEADER, version: 2 },
				messageEntry("a", null, {
					role: "hookMessage",
					customType: "x",
					content: "hook",
					display: true,
					timestamp: 1,
				}),
				user("b", "a", "kept"),
				compaction("c", "b", "b"),
			),
			1,
		],
		[
			"a last line with no newline after the compaction (no hint)",
			jsonl(HEADER, user("a", null, "one"), user("b", "a", "kept")) + JSON.stringify(compaction("c", "b", "b")),
			1,
		],
	])("should read a file with %s as a stream is read", async (_what, text, passes) => {
		const { read, passes: taken } = await sameAsStream("odd.jsonl", text);
		expect(read.entryCount).toBeGreaterThan(0);
		expect(taken).toEqual({ file: passes, text: passes });
	});

	it("should read a file with a leafId before the compaction as a stream is read (its path sends slim entries)", async () => {
		const text = jsonl(
			HEADER,
			user("a", null, "one"),
			user("b", "a", "two"),
			compaction("c", "b", "b"),
			user("d", "c", "after"),
		);
		const { read, passes } = await sameAsStream("leaf.jsonl", text, { leafId: "a" });
		expect(read.messages).toHaveLength(1);
		expect(passes).toEqual({ file: 2, text: 2 });
	});

	it("should give the tree, every entry whole, in one pass when asked for it", async () => {
		const text = jsonl(
			HEADER,
			user("a", null, "one"),
			user("b", "a", "two"),
			compaction("c", "b", "b"),
			user("d", "c", "after"),
		);
		const { read, passes } = await sameAsStream("tree.jsonl", text, { tree: true });
		expect(passes).toEqual({ file: 1, text: 1 });
		expect(read.tree?.leafId).toBe("d");
		expect(read.tree?.session.entries[0]).toEqual(user("a", null, "one"));
		expect(readSessionFile(join(tmp, "tree.jsonl")).tree).toBeUndefined();
	});
});

describe("latestKeptId", () => {
	const readerOf =
		(bytes: Buffer) =>
		(buffer: Buffer, position: number): number =>
			bytes.copy(buffer, 0, position, position + buffer.length);

	it("should find the latest compaction line's firstKeptEntryId, one split between its megabyte reads too", () => {
		const filler = `${JSON.stringify(user("f", null, "x".repeat(1000)))}\n`;
		const line = `${JSON.stringify(compaction("c2", "f", "kept-2"))}\n`;
		for (const after of [0, 10, line.length - 5, 1024 * 1024 - 20, 1024 * 1024 + 3]) {
			const tail = "y".repeat(after);
			const text = `${jsonl(HEADER)}${JSON.stringify(compaction("c1", "f", "kept-1"))}\n${filler.repeat(1200)}${line}${tail}\n`;
			const bytes = Buffer.from(text);
			expect(latestKeptId(readerOf(bytes), bytes.length)).toBe("kept-2");
			expect(latestKeptIdInText(text)).toBe("kept-2");
		}
	});

	it("should take the later of two compaction lines in the same megabyte read", () => {
		const text = jsonl(
			HEADER,
			user("a", null, "one"),
			compaction("c1", "a", "kept-1"),
			user("b", "c1", "two"),
			compaction("c2", "b", "kept-2"),
			user("c", "c2", "three"),
		);
		const bytes = Buffer.from(text);
		expect(latestKeptId(readerOf(bytes), bytes.length)).toBe("kept-2");
		expect(latestKeptIdInText(text)).toBe("kept-2");
	});

	it("should give nothing without a compaction line, or when that line does not parse", () => {
		for (const text of [
			jsonl(HEADER, user("a", null, "one")),
			`${jsonl(HEADER)}{"type":"compaction","firstKeptEntryId":\n`,
		]) {
			const bytes = Buffer.from(text);
			expect(latestKeptId(readerOf(bytes), bytes.length)).toBeUndefined();
			expect(latestKeptIdInText(text)).toBeUndefined();
		}
	});
});
