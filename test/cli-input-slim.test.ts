/**
 * The CLI's file input holds the messages before a session's latest compaction slim (src/session/
 * slim.ts): each file must load exactly as the same bytes on stdin do, which are read whole (no hint,
 * nothing slim). Generated long sessions, and files where the hint is wrong or the order is not pi's.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type LoadedInput, loadInput } from "../src/cli/input.js";
import { latestFirstKeptId } from "../src/session/slim.js";
import { writeLargeSession } from "./fixtures/sessions/large-session.js";
import { assistant, compaction, HEADER, jsonl, messageEntry, user } from "./support/session-lines.js";

const tmp = mkdtempSync(join(tmpdir(), "ctl-input-slim-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const MAX = 512 * 1024 * 1024;

async function load(spec: string, text: string, leaf?: string): Promise<LoadedInput> {
	return loadInput({ spec, cwd: tmp, readStdin: async () => text, leaf, maxBytes: MAX });
}

/** The file's load, checked equal to the same text's on stdin (but for the name). */
async function sameAsStdin(name: string, text: string, leaf?: string): Promise<LoadedInput> {
	writeFileSync(join(tmp, name), text);
	const file = await load(name, text, leaf);
	const stdin = await load("-", text, leaf);
	// Problems name the input: the file by its name, standard input as "stdin".
	const renamed = JSON.parse(JSON.stringify({ ...file, name: "stdin" }).replaceAll(`\\"${name}\\"`, '\\"stdin\\"'));
	expect(renamed).toEqual(JSON.parse(JSON.stringify(stdin)));
	return file;
}

describe("loadInput of a session file, messages before the latest compaction held slim", () => {
	it.each([0.3, 0.9])("should load a long generated session (compaction at %d) as stdin does", async (at) => {
		const path = join(tmp, `large-${at}.jsonl`);
		writeLargeSession(path, 5000, 3, at);
		const text = (await import("node:fs")).readFileSync(path, "utf8");
		const loaded = await sameAsStdin(`large-${at}.jsonl`, text);
		expect(loaded.problems).toEqual([]);
		expect(loaded.messages.length).toBeGreaterThan(0);
	});

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
		],
		[
			"the kept entry written after its child (not pi's order: read again)",
			jsonl(HEADER, user("b", "a", "child first"), user("a", null, "parent after"), compaction("c", "b", "a")),
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
		],
		[
			"a compaction whose kept entry is in no line",
			jsonl(HEADER, user("a", null, "one"), compaction("c", "a", "nowhere"), user("d", "c", "after")),
		],
		["no compaction", jsonl(HEADER, user("a", null, "one"), assistant("b", "a", "m"), user("c", "b", "three"))],
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
		],
		[
			"a last line with no newline after the compaction",
			jsonl(HEADER, user("a", null, "one"), user("b", "a", "kept")) + JSON.stringify(compaction("c", "b", "b")),
		],
	])("should load a file with %s as stdin does", async (_what, text) => {
		const loaded = await sameAsStdin("odd.jsonl", text);
		expect(loaded.session?.entries).toBeGreaterThan(0);
	});

	it("should load a file with --leaf before the compaction as stdin does (its path sends slim entries)", async () => {
		const text = jsonl(
			HEADER,
			user("a", null, "one"),
			user("b", "a", "two"),
			compaction("c", "b", "b"),
			user("d", "c", "after"),
		);
		const loaded = await sameAsStdin("leaf.jsonl", text, "a");
		expect(loaded.messages).toHaveLength(1);
	});
});

describe("latestFirstKeptId", () => {
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
			expect(latestFirstKeptId(readerOf(bytes), bytes.length)).toBe("kept-2");
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
		expect(latestFirstKeptId(readerOf(bytes), bytes.length)).toBe("kept-2");
	});

	it("should give nothing without a compaction line, or when that line does not parse", () => {
		const none = Buffer.from(jsonl(HEADER, user("a", null, "one")));
		expect(latestFirstKeptId(readerOf(none), none.length)).toBeUndefined();
		const broken = Buffer.from(`${jsonl(HEADER)}{"type":"compaction","firstKeptEntryId":\n`);
		expect(latestFirstKeptId(readerOf(broken), broken.length)).toBeUndefined();
	});
});
