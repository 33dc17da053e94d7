/** Small hand-made session files for the session reader's unit tests: a header, entries, JSONL. */
import { readSession } from "../../src/session/index.js";

export const HEADER = { type: "session", version: 3, id: "s-1", timestamp: "2025-01-31T12:00:00.000Z", cwd: "/p" };
/** Every entry's timestamp, and the same instant in epoch milliseconds. */
export const T = "2025-01-31T12:00:00.000Z";
export const MS = Date.parse(T);

export type Line = Record<string, unknown>;

/** The lines as a session file's text: objects as JSON, strings as they are. */
export const jsonl = (...lines: (Line | string)[]): string =>
	`${lines.map((line) => (typeof line === "string" ? line : JSON.stringify(line))).join("\n")}\n`;

/** A `message` entry around `message`. */
export const messageEntry = (id: string, parentId: string | null, message: Line): Line => ({
	type: "message",
	id,
	parentId,
	timestamp: T,
	message,
});

/** A `message` entry of a user message with string content. */
export const user = (id: string, parentId: string | null, content: string): Line =>
	messageEntry(id, parentId, { role: "user", content, timestamp: 1 });

/** Each message of the context at the leaf as `role:text` (a summary's text for summaries). */
export const texts = (text: string, options = {}): string[] =>
	readSession(text, options).messages.map((m) => {
		const message = m as { role: string; content?: unknown; summary?: string };
		const content = message.content;
		const shown = Array.isArray(content)
			? content.map((block: { text?: string }) => block.text ?? "").join("+")
			: typeof content === "string"
				? content
				: (message.summary ?? "");
		return `${message.role}:${shown}`;
	});

/** A compaction entry keeping the path from `firstKeptEntryId`. */
export const compaction = (id: string, parentId: string, firstKeptEntryId: string): Line => ({
	type: "compaction",
	id,
	parentId,
	timestamp: T,
	summary: `summary ${id}`,
	firstKeptEntryId,
	tokensBefore: 100,
});
/** An assistant message entry with one text block, from `model`. */
export const assistant = (id: string, parentId: string | null, model: string): Line =>
	messageEntry(id, parentId, {
		role: "assistant",
		content: [{ type: "text", text: `reply ${id}` }],
		provider: "p",
		model,
		api: "a",
		usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: {} },
		stopReason: "stop",
		timestamp: 1,
	});
