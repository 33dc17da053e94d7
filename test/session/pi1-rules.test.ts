/**
 * The session reader's pi 1.x rules, one by one, on small hand-made files (pi 1.6.0's
 * `buildSessionContext`, `session-manager.js:166-289`): the compaction checkpoint, system messages in
 * the kept range, `context_edit`, `usage`, `content == null`, `firstKeptEntryId` = own id, and an
 * older compaction in the kept range. Examples A–D are those of pi-versions.md §3.5. Each expected
 * history was also printed by pi 1.6.0's own `buildSessionContext` on the same text, except for the
 * faulty replacements, on which pi throws or sends `content: undefined` (a deliberate difference).
 */
import { describe, expect, it } from "vitest";
import { InvalidSessionError, type ReadSessionResult, readSession } from "../../src/session/index.js";
import { HEADER, jsonl, type Line, MS, messageEntry, T, texts, user } from "../support/session-lines.js";

/** Every entry of the file, as read (`tree: true`). */
const entriesOf = (read: ReadSessionResult) => read.tree?.session.entries ?? [];

const assistant = (id: string, parentId: string | null, text: string): Line =>
	messageEntry(id, parentId, {
		role: "assistant",
		content: [{ type: "text", text }],
		provider: "anthropic",
		model: "claude-sonnet-4-5",
		stopReason: "stop",
		timestamp: 2,
	});
const system = (id: string, parentId: string | null, content: string): Line =>
	messageEntry(id, parentId, { role: "system", content, timestamp: 0 });
const edit = (id: string, parentId: string, targetId: string, replacement: unknown): Line => ({
	type: "context_edit",
	id,
	parentId,
	timestamp: T,
	targetId,
	replacement,
});
const compaction = (id: string, parentId: string, firstKeptEntryId: string, extra: Line = {}): Line => ({
	type: "compaction",
	id,
	parentId,
	timestamp: T,
	summary: `S-${id}`,
	firstKeptEntryId,
	tokensBefore: 100,
	...extra,
});
const checkpoint = { role: "system", content: "You are pi.", toolsAdded: [], timestamp: 5 };

describe("pi 1.x: context_edit", () => {
	it("should leave out a target whose edit is null, and say which edit hid it (example A)", () => {
		const text = jsonl(
			HEADER,
			user("u1", null, "my token is sk-live-123"),
			assistant("a1", "u1", "Noted."),
			edit("e1", "a1", "u1", null),
			user("u2", "e1", "continue"),
			assistant("a2", "u2", "ok"),
		);
		const context = readSession(text);
		expect(texts(text)).toEqual(["assistant:Noted.", "user:continue", "assistant:ok"]);
		expect(context.entryIds).toEqual(["a1", "u2", "a2"]);
		expect(context.contextEdits).toEqual([
			{ editId: "e1", targetId: "u1", effect: "hidden", index: 0, roles: ["user"] },
		]);
		expect(context.problems).toEqual([]);
		expect(JSON.stringify(context.messages)).not.toContain("sk-live-123");
	});

	it("should replace an assistant's content with one text block, keeping role, metadata and key order (example B)", () => {
		const text = jsonl(
			HEADER,
			user("u1", null, "hi"),
			assistant("a1", "u1", "A very long answer ..."),
			edit("e1", "a1", "a1", { content: "[elided]" }),
			user("u2", "e1", "thanks"),
		);
		const context = readSession(text, { tree: true });
		const stored = entriesOf(context)[1] as unknown as { message: Line };
		expect(context.messages[1]).toStrictEqual({ ...stored.message, content: [{ type: "text", text: "[elided]" }] });
		expect(Object.keys(context.messages[1] as object)).toEqual(Object.keys(stored.message));
		expect(context.messages[1]).not.toBe(stored.message);
		expect(stored.message.content).toEqual([{ type: "text", text: "A very long answer ..." }]);
		expect(context.contextEdits).toEqual([
			{ editId: "e1", targetId: "a1", effect: "replaced", index: 1, roles: ["assistant"] },
		]);
	});

	it.each([
		["user", "a string", "[redacted]", "[redacted]"],
		["toolResult", "a string", "[redacted]", [{ type: "text", text: "[redacted]" }]],
		["user", "an array", [{ type: "text", text: "x" }], [{ type: "text", text: "x" }]],
		["custom", "a string", "[redacted]", "[redacted]"],
	])("should give a %s message %s replacement as pi does", (role, _what, replacement, content) => {
		const text = jsonl(
			HEADER,
			messageEntry("m", null, { role, content: "secret", timestamp: 1 }),
			edit("e", "m", "m", { content: replacement }),
		);
		const [message] = readSession(text).messages as unknown as Line[];
		expect(message).toStrictEqual({ role, content, timestamp: 1 });
		if (Array.isArray(replacement)) {
			const stored = entriesOf(readSession(text, { tree: true }))[1] as unknown as {
				replacement: { content: unknown };
			};
			expect(readSession(text).messages[0]).toHaveProperty("content", stored.replacement.content);
		}
	});

	it("should replace a custom_message entry's content, keeping its other fields", () => {
		const entry = {
			type: "custom_message",
			id: "c",
			parentId: null,
			timestamp: T,
			customType: "ext",
			content: "old",
			display: true,
		};
		const text = jsonl(HEADER, entry, edit("e", "c", "c", { content: "new" }));
		expect(readSession(text).messages).toStrictEqual([
			{ role: "custom", customType: "ext", content: "new", display: true, details: undefined, timestamp: MS },
		]);
	});

	it("should apply only the latest edit of a target, and none at a leaf before it (edits are branch-relative)", () => {
		const text = jsonl(
			HEADER,
			user("u1", null, "one"),
			edit("e1", "u1", "u1", { content: "first edit" }),
			edit("e2", "e1", "u1", { content: "second edit" }),
			user("u2", "e2", "two"),
		);
		expect(texts(text)).toEqual(["user:second edit", "user:two"]);
		expect(readSession(text).contextEdits.map((e) => e.editId)).toEqual(["e2"]);
		expect(texts(text, { leafId: "e1" })).toEqual(["user:first edit"]);
		expect(texts(text, { leafId: "u1" })).toEqual(["user:one"]);
	});

	it("should ignore an edit summarized away by a compaction, and apply one in the kept range", () => {
		const text = jsonl(
			HEADER,
			user("u1", null, "one"),
			edit("e1", "u1", "u1", null),
			user("u2", "e1", "two"),
			edit("e2", "u2", "u2", { content: "two, edited" }),
			compaction("c", "e2", "u2"),
		);
		expect(texts(text)).toEqual(["compactionSummary:S-c", "user:two, edited"]);
		expect(readSession(text).contextEdits).toEqual([
			{ editId: "e2", targetId: "u2", effect: "replaced", index: 1, roles: ["user"] },
		]);
	});

	it("should send a branch summary unchanged when an edit replaces it, and report that the edit does nothing", () => {
		const summary = { type: "branch_summary", id: "b", parentId: null, timestamp: T, fromId: "x", summary: "BS" };
		const context = readSession(jsonl(HEADER, summary, edit("e", "b", "b", { content: "new" })));
		expect(context.messages).toStrictEqual([{ role: "branchSummary", summary: "BS", fromId: "x", timestamp: MS }]);
		expect(context.contextEdits).toEqual([]);
		expect(context.problems.map((p) => p.message)).toEqual([
			'entry "e" (line 3) is a context_edit of entry "b" (line 2), whose message (role "branchSummary") has no content a context_edit can replace; it is sent unchanged, as pi sends it. Target a user, assistant, toolResult or custom_message entry.',
		]);
	});

	it.each([
		["missing", undefined],
		["a number", 5],
		["an object without content", {}],
		["content that is a number", { content: 7 }],
	])(
		"should leave out the target of an edit whose replacement is %s, and report it (pi fails on it)",
		(_name, replacement) => {
			const text = jsonl(HEADER, user("u", null, "secret"), edit("e", "u", "u", replacement));
			const context = readSession(text);
			expect(context.messages).toEqual([]);
			expect(context.contextEdits).toEqual([
				{ editId: "e", targetId: "u", effect: "hidden", index: 0, roles: ["user"] },
			]);
			expect(context.problems[0]?.message).toMatch(
				/^entry "e" \(line 3\) is a context_edit whose "replacement" is neither null/,
			);
			expect(() => readSession(text, { strict: true })).toThrow(InvalidSessionError);
		},
	);
});

describe("pi 1.x: compaction and system messages", () => {
	it("should put the compaction's systemMessage (the same object) before its summary (example C)", () => {
		const text = jsonl(
			HEADER,
			system("p", null, "You are pi."),
			user("u1", "p", "first"),
			compaction("c", "u1", "c", { systemMessage: checkpoint }),
			user("u2", "c", "second"),
		);
		const context = readSession(text, { tree: true });
		expect(texts(text)).toEqual(["system:You are pi.", "compactionSummary:S-c", "user:second"]);
		expect(context.messages[0]).toBe((entriesOf(context)[2] as { systemMessage?: unknown }).systemMessage);
		expect(context.entryIds).toEqual(["c", "c", "u2"]);
	});

	it("should skip system messages in the kept range and keep those after the compaction (example D)", () => {
		const text = jsonl(
			HEADER,
			system("p", null, "You are pi."),
			assistant("a1", "p", "one"),
			system("p2", "a1", ""),
			user("u1", "p2", "second"),
			compaction("c", "u1", "p", { systemMessage: checkpoint }),
			system("p3", "c", "later patch"),
			user("u2", "p3", "third"),
		);
		expect(texts(text)).toEqual([
			"system:You are pi.",
			"compactionSummary:S-c",
			"assistant:one",
			"user:second",
			"system:later patch",
			"user:third",
		]);
	});

	it("should keep nothing before a compaction whose firstKeptEntryId is its own id (appendCompaction(…, null))", () => {
		const text = jsonl(HEADER, user("u1", null, "one"), compaction("c", "u1", "c"), user("u2", "c", "two"));
		expect(texts(text)).toEqual(["compactionSummary:S-c", "user:two"]);
	});

	it("should not repeat an older compaction inside the kept range (pi 0.87.0 on; 0.80.10–0.86.1 did, a bug)", () => {
		const text = jsonl(
			HEADER,
			user("u1", null, "first"),
			user("u2", "u1", "second"),
			compaction("c1", "u2", "u2", { systemMessage: checkpoint }),
			user("u3", "c1", "third"),
			compaction("c2", "u3", "u2"),
			user("u4", "c2", "fourth"),
		);
		expect(texts(text)).toEqual(["compactionSummary:S-c2", "user:second", "user:third", "user:fourth"]);
	});
});

describe("pi 1.x: entries and content", () => {
	it.each([
		["user", undefined, []],
		["assistant", null, []],
		["toolResult", null, []],
		["system", null, ""],
		["system", undefined, ""],
	])("should give a %s message with content %s a copy with content %j", (role, content, expected) => {
		const message: Line = { role, timestamp: 1 };
		if (content !== undefined) message.content = content;
		const context = readSession(jsonl(HEADER, messageEntry("m", null, message)), { tree: true });
		const stored = (entriesOf(context)[0] as unknown as { message: Line }).message;
		expect(context.messages[0]).toStrictEqual({ ...stored, content: expected });
		expect(context.messages[0]).not.toBe(stored);
		expect(stored).not.toHaveProperty("content", expected);
	});

	it.each(["custom", "bashExecution", "ticket"])(
		"should pass a %s message without content on as the same object",
		(role) => {
			const context = readSession(jsonl(HEADER, messageEntry("m", null, { role, content: null, timestamp: 1 })), {
				tree: true,
			});
			expect(context.messages[0]).toBe((entriesOf(context)[0] as unknown as { message: Line }).message);
		},
	);

	it("should give a custom_message without content content [] (content ?? [])", () => {
		const entry = {
			type: "custom_message",
			id: "c",
			parentId: null,
			timestamp: T,
			customType: "ext",
			display: false,
		};
		expect(readSession(jsonl(HEADER, entry)).messages).toStrictEqual([
			{ role: "custom", customType: "ext", content: [], display: false, details: undefined, timestamp: MS },
		]);
	});

	it("should take nothing from a usage entry and report nothing", () => {
		const usage = {
			type: "usage",
			id: "g",
			parentId: "u",
			timestamp: T,
			kind: "cache_warm",
			provider: "p",
			model: "m",
			usage: {},
		};
		const context = readSession(jsonl(HEADER, user("u", null, "one"), usage));
		expect(context.messages).toHaveLength(1);
		expect(context.problems).toEqual([]);
		expect(context.pathLength).toBe(2);
	});
});
