/**
 * The session reader, rule by rule: lines, the header, the leaf, the path, compaction, what each
 * entry type contributes, migration of versions 1 and 2, and the problems it reports instead of
 * failing (or throws in strict mode).
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
	buildSessionContext,
	CURRENT_SESSION_VERSION,
	InvalidSessionError,
	parseSession,
	readSession,
	readSessionFile,
} from "../../src/session/index.js";
import { HEADER, jsonl, MS, T, texts, user } from "../support/session-lines.js";

const dir = mkdtempSync(join(tmpdir(), "ctl-session-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("parseSession", () => {
	it.each([
		["an empty text", "", /has no JSON line/],
		["only blank lines", "\n  \n\t\n", /has no JSON line/],
		["only malformed lines", "{oops\nnot json\n", /has no JSON line/],
		["JSON without a header", jsonl(user("a", null, "hi")), /is not a pi session: line 1 is not a session header/],
		["a header without a string id", jsonl({ type: "session", id: 7 }), /is not a pi session/],
	])("should throw InvalidSessionError for %s", (_name, text, message) => {
		expect(() => parseSession(text)).toThrow(InvalidSessionError);
		expect(() => parseSession(text)).toThrow(message);
	});

	it("should skip a malformed line as pi does, and report it with its line number", () => {
		const text = `\n${jsonl(HEADER, user("a", null, "one"), "{not json", "42", user("b", "a", "two"))}`;
		const session = parseSession(text, { file: "s.jsonl" });
		expect(session.entries.map((e) => e.id)).toEqual(["a", "b"]);
		expect(session.lines).toEqual([3, 6]);
		expect(session.problems.map((p) => [p.line, p.message])).toEqual([
			[4, '"s.jsonl", line 4 is not valid JSON; it was skipped, as pi skips it. Fix or remove that line.'],
			[
				5,
				'"s.jsonl", line 5 is not a JSON object (it is number 42); pi keeps it as an entry that sends nothing and links to nothing, and the reader left it out. Remove that line.',
			],
		]);
		expect(session.problems.map((p) => [p.kind, p.excerpt, p.file])).toEqual([
			["not-json", "{not json", "s.jsonl"],
			["not-an-entry", "42", "s.jsonl"],
		]);
		expect(session.problemCounts).toEqual([
			{ kind: "not-json", count: 1, omitted: 0 },
			{ kind: "not-an-entry", count: 1, omitted: 0 },
		]);
	});

	it("should throw the first problem in strict mode", () => {
		const text = jsonl(HEADER, "{not json", user("a", null, "one"));
		expect(() => parseSession(text, { strict: true })).toThrow(/line 2 is not valid JSON/);
	});

	it("should read CRLF line ends and a missing final newline", () => {
		const text = `${JSON.stringify(HEADER)}\r\n${JSON.stringify(user("a", null, "hi"))}`;
		const session = parseSession(text);
		expect(session.entries).toHaveLength(1);
		expect(session.problems).toEqual([]);
	});

	it("should leave out every session line from the entries, as pi's getEntries() does", () => {
		const session = parseSession(jsonl(HEADER, user("a", null, "one"), HEADER, user("b", "a", "two")));
		expect(session.entries.map((e) => e.id)).toEqual(["a", "b"]);
		expect(session.lines).toEqual([2, 4]);
	});
});

describe("buildSessionContext", () => {
	const tree = jsonl(
		HEADER,
		{ type: "model_change", id: "m", parentId: null, timestamp: T, provider: "openai", modelId: "gpt-4o" },
		user("a", "m", "root question"),
		user("b", "a", "first try"),
		{ type: "thinking_level_change", id: "t", parentId: "b", timestamp: T, thinkingLevel: "high" },
		{ type: "branch_summary", id: "s", parentId: "a", timestamp: T, fromId: "t", summary: "first try failed" },
		{ type: "branch_summary", id: "e", parentId: "s", timestamp: T, fromId: "x", summary: "" },
		user("c", "e", "second try"),
	);

	it("should walk from the last entry by default, skipping the abandoned branch", () => {
		expect(texts(tree)).toEqual(["user:root question", "branchSummary:first try failed", "user:second try"]);
		const context = readSession(tree);
		expect(context.leafId).toBe("c");
		expect(context.entryIds).toEqual(["a", "s", "c"]);
		expect(context.pathLength).toBe(5);
		expect(context.model).toEqual({ provider: "openai", modelId: "gpt-4o" });
		expect(context.thinkingLevel).toBe("off");
	});

	it("should build the context at another leaf when asked", () => {
		expect(texts(tree, { leafId: "t" })).toEqual(["user:root question", "user:first try"]);
		expect(readSession(tree, { leafId: "t" }).thinkingLevel).toBe("high");
	});

	it("should give no messages for leaf null (before the first entry), as pi", () => {
		expect(readSession(tree, { leafId: null })).toMatchObject({ messages: [], leafId: null, pathLength: 0 });
	});

	it("should build from the last entry for a leaf id that names no entry, as pi does, and say so", () => {
		const context = readSession(tree, { leafId: "nope", file: "t.jsonl" });
		expect(context.messages).toEqual(readSession(tree).messages);
		expect(context.leafId).toBe("c");
		expect(context.problems).toEqual([
			{
				kind: "unknown-leaf",
				file: "t.jsonl",
				entryId: "nope",
				message:
					'"t.jsonl" has no entry with id "nope"; the context was built from the last entry, "c" (line 8), as pi builds it. Pick the "id" of one of its lines with leafId.',
			},
		]);
		expect(() => readSession(tree, { leafId: "nope", strict: true })).toThrow(InvalidSessionError);
	});

	it("should turn custom_message and branch_summary entries into messages with epoch timestamps", () => {
		const text = jsonl(HEADER, {
			type: "custom_message",
			id: "x",
			parentId: null,
			timestamp: T,
			customType: "ext",
			content: "note",
			display: false,
			details: { n: 1 },
		});
		expect(readSession(text).messages).toStrictEqual([
			{ role: "custom", customType: "ext", content: "note", display: false, details: { n: 1 }, timestamp: MS },
		]);
	});

	it("should put the latest compaction's summary first, then the kept entries, then what follows it", () => {
		const text = jsonl(
			HEADER,
			user("a", null, "one"),
			user("b", "a", "two"),
			{
				type: "compaction",
				id: "c1",
				parentId: "b",
				timestamp: T,
				summary: "S1",
				firstKeptEntryId: "a",
				tokensBefore: 1,
			},
			user("d", "c1", "three"),
			user("e", "d", "four"),
			{
				type: "compaction",
				id: "c2",
				parentId: "e",
				timestamp: T,
				summary: "S2",
				firstKeptEntryId: "e",
				tokensBefore: 2,
			},
			user("f", "c2", "five"),
		);
		expect(texts(text)).toEqual(["compactionSummary:S2", "user:four", "user:five"]);
		expect(readSession(text).entryIds).toEqual(["c2", "e", "f"]);
		expect(texts(text, { leafId: "d" })).toEqual(["compactionSummary:S1", "user:one", "user:two", "user:three"]);
	});

	it("should keep nothing before a compaction whose firstKeptEntryId is not on the path", () => {
		const text = jsonl(
			HEADER,
			user("a", null, "one"),
			{
				type: "compaction",
				id: "c",
				parentId: "a",
				timestamp: T,
				summary: "S",
				firstKeptEntryId: "zz",
				tokensBefore: 1,
			},
			user("b", "c", "two"),
		);
		expect(texts(text)).toEqual(["compactionSummary:S", "user:two"]);
	});

	it.each([
		["custom", { customType: "ext", data: 1 }],
		["label", { targetId: "a", label: "x" }],
		["session_info", { name: "n" }],
		["model_change", { provider: "p", modelId: "m" }],
		["thinking_level_change", { thinkingLevel: "low" }],
		["usage", { kind: "cache_warm", provider: "p", model: "m", usage: {} }],
		["context_edit", { targetId: "nowhere", replacement: null }],
	])("should take nothing from a %s entry, and report nothing", (type, fields) => {
		const text = jsonl(HEADER, user("a", null, "one"), { type, id: "z", parentId: "a", timestamp: T, ...fields });
		expect(texts(text)).toEqual(["user:one"]);
		expect(readSession(text).problems).toEqual([]);
	});

	it.each([
		["an unknown type", { type: "future_entry" }, 'entry "z" (line 3) has type "future_entry", which this reader'],
		["no type", { type: undefined }, 'entry "z" (line 3) has no type;'],
		["a non-string type", { type: 7 }, 'entry "z" (line 3) has type 7, which'],
		["a huge type", { type: "x".repeat(100_000) }, `has type "${"x".repeat(58)}…, which`],
	])("should take nothing from an entry with %s, and report it (never ignored silently)", (_name, fields, start) => {
		const text = jsonl(HEADER, user("a", null, "one"), { id: "z", parentId: "a", timestamp: T, ...fields });
		const context = readSession(text);
		expect(texts(text)).toEqual(["user:one"]);
		expect(context.problems).toHaveLength(1);
		expect(context.problems[0]?.message).toContain(start);
		expect(context.problems[0]?.message).toMatch(
			/Update convert-to-llm, or remove the entry if pi did not write it\.$/,
		);
		expect(context.problems[0]).toMatchObject({ entryId: "z", line: 3 });
		expect(() => readSession(text, { strict: true })).toThrow(InvalidSessionError);
	});

	it("should quote a huge entry id cut, not whole, in a problem", () => {
		const id = "i".repeat(100_000);
		const context = readSession(jsonl(HEADER, { type: "message", id, parentId: null, timestamp: T }));
		expect(context.problems[0]?.message).toMatch(/^entry "i{58}… \(line 2\) is a message entry without a message/);
		expect(context.problems[0]?.entryId).toBe(id);
	});

	it("should not report an unknown entry type off the path", () => {
		const text = jsonl(
			HEADER,
			user("a", null, "one"),
			{ type: "future", id: "z", parentId: "a", timestamp: T },
			user("b", "a", "two"),
		);
		expect(readSession(text).problems).toEqual([]);
		expect(readSession(text, { leafId: "z" }).problems).toHaveLength(1);
	});

	it("should stop at a loop in the parent links and report it (pi would hang)", () => {
		const text = jsonl(HEADER, user("a", "b", "one"), user("b", "a", "two"));
		const context = readSession(text);
		expect(texts(text)).toEqual(["user:one", "user:two"]);
		expect(context.problems.map((p) => p.message)).toEqual([
			'entry "a" (line 2) has parent "b", which is already on the path (a loop); the context starts at this entry (pi would hang on this file). Fix its parentId in the file, or pick another leaf with leafId.',
		]);
	});

	it("should take a parent id that several entries hold to be the last of them, as pi's map does", () => {
		// The entry before holds the id, and so does a later one: pi's map gives the later one.
		const later = jsonl(HEADER, user("a", null, "one"), user("b", "a", "two"), user("a", null, "other"));
		expect(texts(later, { leafId: "b" })).toEqual(["user:other", "user:two"]);
		const onPath = jsonl(HEADER, user("a", null, "one"), user("b", "a", "two"), user("a", "b", "three"));
		expect(texts(onPath)).toEqual(["user:two", "user:three"]);
		expect(readSession(onPath).problems.map((p) => p.kind)).toEqual(["loop"]);
	});

	it("should walk a chain of distinct ids whose parents are not the entries before them", () => {
		const text = jsonl(
			HEADER,
			user("a", null, "one"),
			user("c", "b", "three"),
			user("b", "a", "two"),
			user("x", "a", "off the path"),
			user("d", "c", "four"),
		);
		expect(texts(text)).toEqual(["user:one", "user:two", "user:three", "user:four"]);
		expect(readSession(text).problems).toEqual([]);
	});

	it("should start at an entry whose parent is missing, and report it", () => {
		const context = readSession(jsonl(HEADER, user("a", "gone", "one"), user("b", "a", "two")));
		expect(context.messages).toHaveLength(2);
		expect(context.problems[0]?.message).toBe(
			'entry "a" (line 2) has parent "gone", which is not in the file; the context starts at this entry. Fix its parentId in the file, or pick another leaf with leafId.',
		);
		expect(context.problems[0]?.entryId).toBe("a");
	});

	it("should report, not throw, ids, parents and types too deeply nested to quote as JSON", () => {
		const deep = `${"[".repeat(200_000)}${"]".repeat(200_000)}`;
		const entry = (type: string, id: string, parentId: string) =>
			`{"type":${type},"id":${id},"parentId":${parentId},"timestamp":"${T}","message":{"role":"user","content":"x","timestamp":0}}`;
		const broken = readSession(jsonl(HEADER, entry('"message"', deep, deep)));
		expect(broken.problems.map((p) => p.message)).toEqual([
			"entry an array of 1 (line 2) has parent an array of 1, which is not in the file; the context starts at this entry. Fix its parentId in the file, or pick another leaf with leafId.",
		]);
		const unknown = readSession(jsonl(HEADER, entry(deep, '"a"', "null")));
		expect(unknown.problems[0]?.message).toContain("has type an array of 1, which this reader does not know");
		expect(
			readSession(jsonl(HEADER, entry('"message"', deep, "null")), { leafId: "nope" }).problems[0]?.message,
		).toMatch(/has no entry with id "nope"; the context was built from the last entry, an array of 1 \(line 2\)/);
	});

	it("should keep pi's NaN timestamp for an invalid date, and report it", () => {
		const text = jsonl(HEADER, {
			type: "branch_summary",
			id: "s",
			parentId: null,
			timestamp: "soon",
			fromId: "x",
			summary: "S",
		});
		const context = readSession(text);
		expect(context.messages).toStrictEqual([
			{ role: "branchSummary", summary: "S", fromId: "x", timestamp: Number.NaN },
		]);
		expect(context.problems[0]?.message).toMatch(/entry "s" \(line 2\) has an invalid timestamp/);
		expect(() => readSession(text, { strict: true })).toThrow(InvalidSessionError);
	});

	it.each([
		["custom_message", { customType: "ext", content: "c", display: true }, "custom"],
		["compaction", { summary: "S", firstKeptEntryId: "x", tokensBefore: 1 }, "compactionSummary"],
		["branch_summary", { fromId: "x", summary: "S" }, "branchSummary"],
	])(
		"should report a %s timestamp without a primitive value as invalid, not throw a TypeError",
		(type, fields, role) => {
			const text = `${JSON.stringify(HEADER)}\n{"type":"${type}","id":"z","parentId":null,"timestamp":{"valueOf":0,"toString":0},${JSON.stringify(fields).slice(1)}\n`;
			const context = readSession(text);
			expect(context.messages).toHaveLength(1);
			expect(context.messages[0]).toMatchObject({ role, timestamp: Number.NaN });
			expect(context.problems.map((p) => p.message)).toEqual([
				'entry "z" (line 2) has a timestamp that is not a date (pi fails on it); its message gets timestamp NaN (null in JSON). Fix the entry\'s "timestamp" (ISO 8601).',
			]);
			expect(() => readSession(text, { strict: true })).toThrow(InvalidSessionError);
		},
	);

	it("should skip a message entry without a message, and report it", () => {
		const context = readSession(jsonl(HEADER, { type: "message", id: "a", parentId: null, timestamp: T }));
		expect(context.messages).toEqual([]);
		expect(context.problems[0]?.message).toBe(
			'entry "a" (line 2) is a message entry without a message; it was skipped (pi fails on it). Add its "message" in the file, or pick a leaf before it with leafId.',
		);
	});

	it("should read a parsed session more than once, at different leaves, with the same result", () => {
		const session = parseSession(tree);
		expect(buildSessionContext(session, { leafId: "t" }).messages).toHaveLength(2);
		expect(buildSessionContext(session).messages).toHaveLength(3);
		expect(buildSessionContext(session, { leafId: "t" }).messages).toHaveLength(2);
	});
});

describe("migration of version 1 and 2 files, in memory", () => {
	const v1 = jsonl(
		{ type: "session", id: "old", timestamp: T, cwd: "/p" },
		{ type: "message", timestamp: T, message: { role: "user", content: "one", timestamp: 1 } },
		{
			type: "message",
			timestamp: T,
			message: { role: "hookMessage", customType: "x", content: "h", display: true, timestamp: 2 },
		},
		{ type: "compaction", timestamp: T, summary: "S", firstKeptEntryIndex: 2, tokensBefore: 5 },
		{ type: "message", timestamp: T, message: { role: "user", content: "two", timestamp: 3 } },
	);

	it.each([1, 2])("should give each version %i entry its line number, leaving out later session lines", (version) => {
		const header = { type: "session", version, id: "old", timestamp: T, cwd: "/p" };
		const entry = (id: string, parentId: string | null) => ({ ...user(id, parentId, id), type: "message" });
		const session = parseSession(jsonl(header, entry("a", null), "{not json", header, entry("b", "a")));
		expect(session.entries).toHaveLength(2);
		expect(session.lines).toEqual([2, 5]);
		expect(session.entries.map((e) => e.id)).toEqual(version === 1 ? ["00000002", "00000005"] : ["a", "b"]);
	});

	it("should give version 1 entries their line numbers as ids and chain them, and map firstKeptEntryIndex", () => {
		const session = parseSession(v1);
		expect(session.version).toBe(1);
		expect(session.header.version).toBe(CURRENT_SESSION_VERSION);
		expect(session.entries.map((e) => [e.id, e.parentId])).toEqual([
			["00000002", null],
			["00000003", "00000002"],
			["00000004", "00000003"],
			["00000005", "00000004"],
		]);
		expect(session.entries[2]).toMatchObject({ firstKeptEntryId: "00000003" });
		expect(session.entries[2]).not.toHaveProperty("firstKeptEntryIndex");
		expect(texts(v1)).toEqual(["compactionSummary:S", "custom:h", "user:two"]);
		expect(readSession(v1, { leafId: "00000003" }).messages).toHaveLength(2);
	});

	it("should rename role hookMessage to custom, keeping the message's key order", () => {
		const message = readSession(v1, { leafId: "00000003" }).messages[1];
		expect(Object.keys(message as object)).toEqual(["role", "customType", "content", "display", "timestamp"]);
		expect(message).toMatchObject({ role: "custom" });
	});

	it("should rename hookMessage in version 2 files, and not in version 3 files", () => {
		const hook = { role: "hookMessage", customType: "x", content: "h", display: true, timestamp: 2 };
		const entry = { type: "message", id: "a", parentId: null, timestamp: T, message: hook };
		expect(readSession(jsonl({ ...HEADER, version: 2 }, entry)).messages[0]).toMatchObject({ role: "custom" });
		expect(readSession(jsonl(HEADER, entry)).messages[0]).toMatchObject({ role: "hookMessage" });
	});

	it("should not mutate what it parsed: reading the same text twice gives equal results", () => {
		const session = parseSession(v1);
		const before = JSON.stringify(session);
		buildSessionContext(session);
		expect(JSON.stringify(session)).toBe(before);
		expect(parseSession(v1)).toStrictEqual(session);
	});
});

describe("readSessionFile", () => {
	it("should read a version 1 file without changing a byte or its modification time", () => {
		const file = join(dir, "v1.jsonl");
		writeFileSync(
			file,
			'{"type":"session","id":"old","timestamp":"2024-01-01T00:00:00.000Z","cwd":"/p"}\n{"type":"message","timestamp":"2024-01-01T00:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1}}\n',
		);
		const bytes = readFileSync(file);
		const { mtimeMs } = statSync(file);
		expect(readSessionFile(file).messages).toHaveLength(1);
		expect(readFileSync(file).equals(bytes)).toBe(true);
		expect(statSync(file).mtimeMs).toBe(mtimeMs);
	});

	it("should read a read-only file (it never opens for writing)", () => {
		const file = join(dir, "read-only.jsonl");
		writeFileSync(file, jsonl(HEADER, user("a", null, "hi")));
		chmodSync(file, 0o444);
		expect(readSessionFile(file).messages).toHaveLength(1);
	});

	it("should name the file in problems", () => {
		const file = join(dir, "broken.jsonl");
		writeFileSync(file, jsonl(HEADER, "{cut"));
		expect(readSessionFile(file).problems[0]?.message).toContain(`"${file}", line 2`);
		expect(readSessionFile(file).problems[0]?.file).toBe(file);
	});
});
