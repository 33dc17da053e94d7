/**
 * Properties of the session reader on generated files: lenient reading never throws whatever JSON a
 * line holds (strict throws only `InvalidSessionError`), and a `context_edit` keeps its promise: a
 * hidden entry sends nothing, a replaced one sends exactly the edit's content, and `contextEdits`
 * says so at the right index.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { InvalidSessionError, readSession } from "../../src/session/index.js";
import { HEADER, jsonl, type Line, T } from "../support/session-lines.js";

const TYPES = [
	"message",
	"custom_message",
	"branch_summary",
	"compaction",
	"context_edit",
	"usage",
	"label",
	"custom",
	"model_change",
	"thinking_level_change",
	"session_info",
	"future",
];
const ids = ["a", "b", "c", "d", "e", "f"];

/** Lines whose fields are any JSON (a timestamp `{"valueOf":0,"toString":0}`, a message `7`, …). */
const hostileLine = fc.record(
	{
		type: fc.oneof(fc.constantFrom(...TYPES), fc.jsonValue()),
		id: fc.oneof(fc.constantFrom(...ids), fc.jsonValue()),
		parentId: fc.oneof(fc.constantFrom(null, ...ids), fc.jsonValue()),
		timestamp: fc.oneof(fc.constant(T), fc.constant({ valueOf: 0, toString: 0 }), fc.jsonValue()),
		message: fc.jsonValue(),
		content: fc.jsonValue(),
		summary: fc.jsonValue(),
		firstKeptEntryId: fc.oneof(fc.constantFrom(...ids), fc.jsonValue()),
		systemMessage: fc.jsonValue(),
		targetId: fc.oneof(fc.constantFrom(...ids), fc.jsonValue()),
		replacement: fc.jsonValue(),
	},
	{ requiredKeys: ["type", "id", "parentId"] },
);

describe("readSession on any JSON lines", () => {
	it("should never throw when lenient, and throw only InvalidSessionError when strict", () => {
		fc.assert(
			fc.property(fc.array(hostileLine, { maxLength: 12 }), fc.constantFrom(undefined, ...ids), (lines, leafId) => {
				const text = jsonl(HEADER, ...(lines as Line[]));
				const known = lines.some((line) => line.id === leafId);
				const options = { leafId: known ? leafId : undefined };
				const context = readSession(text, options);
				expect(context.messages).toHaveLength(context.entryIds.length);
				try {
					readSession(text, { ...options, strict: true });
				} catch (error) {
					expect(error).toBeInstanceOf(InvalidSessionError);
				}
			}),
			{ numRuns: 500 },
		);
	});
});

/** A linear session of user and assistant messages, then edits of some of them. */
const edited = fc
	.record({
		roles: fc.array(fc.constantFrom("user", "assistant", "toolResult", "custom"), { minLength: 1, maxLength: 8 }),
		edits: fc.array(
			fc.record({
				target: fc.nat(7),
				replacement: fc.oneof(
					fc.constant(null),
					fc.record({ content: fc.string() }),
					fc.record({
						content: fc.array(fc.record({ type: fc.constant("text"), text: fc.string() }), { maxLength: 2 }),
					}),
				),
			}),
			{ maxLength: 6 },
		),
	})
	.map(({ roles, edits }) => {
		const lines: Line[] = roles.map((role, i) => ({
			type: "message",
			id: `m${i}`,
			parentId: i === 0 ? null : `m${i - 1}`,
			timestamp: T,
			message: { role, content: `secret ${i}`, timestamp: i },
		}));
		const applied = new Map<string, unknown>();
		edits.forEach(({ target, replacement }, k) => {
			const targetId = `m${target % roles.length}`;
			applied.set(targetId, replacement);
			lines.push({
				type: "context_edit",
				id: `e${k}`,
				parentId: lines.at(-1)?.id,
				timestamp: T,
				targetId,
				replacement,
			});
		});
		return { lines, applied };
	});

describe("readSession with context_edit entries", () => {
	it("should send nothing of a hidden entry and exactly the edit's content of a replaced one, and say which", () => {
		fc.assert(
			fc.property(edited, ({ lines, applied }) => {
				const context = readSession(jsonl(HEADER, ...lines));
				expect(context.problems).toEqual([]);
				for (const [targetId, replacement] of applied) {
					const effect = context.contextEdits.find((edit) => edit.targetId === targetId);
					const at = context.entryIds.indexOf(targetId);
					if (replacement === null) {
						expect(at).toBe(-1);
						expect(effect).toMatchObject({ effect: "hidden" });
						continue;
					}
					const message = context.messages[at] as { role: string; content: unknown };
					const content = (replacement as { content: unknown }).content;
					const blocks =
						typeof content === "string" && (message.role === "assistant" || message.role === "toolResult");
					expect(message.content).toEqual(blocks ? [{ type: "text", text: content }] : content);
					expect(effect).toMatchObject({ effect: "replaced", index: at });
				}
				expect(context.contextEdits).toHaveLength(applied.size);
				const sent = JSON.stringify(context.messages);
				for (let i = 0; i < lines.length; i++) {
					if (applied.has(`m${i}`)) expect(sent).not.toContain(`"secret ${i}"`);
				}
			}),
			{ numRuns: 300 },
		);
	});
});
