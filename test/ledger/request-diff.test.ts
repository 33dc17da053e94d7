/**
 * `requestDiff`: where two requests part, with the first differing message's session entry and
 * plugin on both sides and a line diff inside it; two leaves of one session, or one leaf two ways.
 */
import { describe, expect, it } from "vitest";
import { trimToTokens } from "../../src/filters/index.js";
import { requestDiff, UnknownLeafError } from "../../src/ledger/index.js";
import { createDefaultRegistry } from "../../src/preset.js";
import { sessionText, smallSession, T0 } from "./small-session.js";

const registry = () => createDefaultRegistry();

describe("requestDiff", () => {
	it("should say that a later request on the same path repeats the earlier one", async () => {
		const diff = await requestDiff({ text: sessionText(smallSession()) }, [
			{ leafId: "t1", registry: registry(), label: "a" },
			{ leafId: "u2", registry: registry(), label: "b" },
		]);

		expect(diff).toMatchObject({ kept: 3, breakAt: null, cause: null, lines: [] });
		expect(diff.sides.map((side) => [side.leafId, side.messages, side.message])).toEqual([
			["t1", 3, null],
			["u2", 7, null],
		]);
	});

	it("should show where two branches part: each side's message, its entry and plugin, and a line diff", async () => {
		const entries = smallSession();
		entries.push({
			type: "message",
			id: "u3",
			parentId: "t1",
			timestamp: new Date(T0 + 60_000).toISOString(),
			message: { role: "user", content: "line one\nanother way\nline three", timestamp: T0 + 60_000 },
		});
		const diff = await requestDiff({ text: sessionText(entries) }, [
			{ leafId: "u2", registry: registry(), label: "a" },
			{ leafId: "u3", registry: registry(), label: "b" },
		]);

		expect(diff).toMatchObject({ kept: 3, breakAt: 3, cause: "branch" });
		expect(diff.sides.map((side) => side.message)).toEqual([
			{ index: 3, role: "assistant", entryId: "a2", plugin: "convert-to-llm:model-roles" },
			{ index: 3, role: "user", entryId: "u3", plugin: "convert-to-llm:model-roles" },
		]);
		expect(diff.lines).toEqual([
			{ op: "-", text: "b".repeat(400) },
			{ op: "+", text: "line one" },
			{ op: "+", text: "another way" },
			{ op: "+", text: "line three" },
		]);
	});

	it("should show where a configuration parts from what was sent, naming its plugin", async () => {
		const diff = await requestDiff({ text: sessionText(smallSession()) }, [
			{ leafId: undefined, registry: registry(), label: "as sent" },
			{ leafId: undefined, registry: registry().use(trimToTokens({ maxTokens: 800 })), label: "trim 800" },
		]);

		expect(diff.sides.map((side) => [side.label, side.leafId])).toEqual([
			["as sent", "a4"],
			["trim 800", "a4"],
		]);
		expect(diff).toMatchObject({ kept: 0, breakAt: 0, cause: "convert-to-llm:trim-to-tokens" });
		expect(diff.sides[0].message).toMatchObject({ entryId: "u1", role: "user" });
		expect(diff.lines.length).toBeGreaterThan(0);
	});

	it("should diff the messages' JSON when their text is the same", async () => {
		const entries = smallSession();
		// The same text as t1, from another tool call.
		entries.push({
			type: "message",
			id: "t9",
			parentId: "a1",
			timestamp: new Date(T0 + 60_000).toISOString(),
			message: {
				role: "toolResult",
				toolCallId: "c9",
				toolName: "read",
				content: [{ type: "text", text: "r".repeat(2000) }],
				isError: false,
				timestamp: T0 + 11_000,
			},
		});
		const diff = await requestDiff({ text: sessionText(entries) }, [
			{ leafId: "t1", registry: registry(), label: "a" },
			{ leafId: "t9", registry: registry(), label: "b" },
		]);

		expect(diff.breakAt).toBe(2);
		expect(diff.lines.filter((line) => line.op !== "=" && line.op !== "…")).toEqual([
			{ op: "-", text: '  "toolCallId": "c1",' },
			{ op: "+", text: '  "toolCallId": "c9",' },
		]);
	});

	it("should refuse a leaf the session does not have, naming the last entry", async () => {
		const diff = requestDiff({ text: sessionText(smallSession()) }, [
			{ leafId: "u1", registry: registry(), label: "a" },
			{ leafId: "nope", registry: registry(), label: "b" },
		]);

		await expect(diff).rejects.toBeInstanceOf(UnknownLeafError);
		await expect(diff).rejects.toMatchObject({ leafId: "nope", lastEntryId: "a4" });
	});
});
