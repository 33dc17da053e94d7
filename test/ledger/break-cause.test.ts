/**
 * What broke a request's prefix, as the ledger names it from the session: another branch, a
 * compaction, a context edit, a system message (folded into the system prompt for a model that takes
 * none mid-conversation), or the plugin that changed the message; and what the cache should have done
 * after another model or thinking level.
 */
import { describe, expect, it } from "vitest";
import { type LedgerOptions, requestLedger } from "../../src/ledger/index.js";
import { sessionText, smallSession, T0, usage } from "./small-session.js";

/** The small session, then `after` entries (ids and parents set here), the last an assistant `a5`. */
function withTail(after: Record<string, unknown>[], parent = "a4"): string {
	const entries = smallSession();
	let previous = parent;
	after.forEach((entry, index) => {
		const at = T0 + 50_000 + index * 1000;
		entries.push({ parentId: previous, timestamp: new Date(at).toISOString(), ...entry });
		previous = entry.id as string;
	});
	return sessionText(entries);
}

const user = (id: string, text = "x".repeat(40)) => ({
	type: "message",
	id,
	message: { role: "user", content: text, timestamp: T0 },
});
const assistant = (fields: Record<string, unknown> = {}) => ({
	type: "message",
	id: "a5",
	message: {
		role: "assistant",
		content: [{ type: "text", text: "done" }],
		api: "anthropic-messages",
		provider: "anthropic",
		model: "claude-sonnet-4-5",
		usage: usage(3, 2677, 50),
		stopReason: "stop",
		timestamp: T0 + 60_000,
		...fields,
	},
});

const lastRow = async (text: string, models?: LedgerOptions["models"]) => {
	const ledger = await requestLedger({ text }, models === undefined ? {} : { models });
	return ledger.rows.at(-1);
};

describe("the ledger's break causes", () => {
	it("should name a branch: the previous request's leaf is not on this one's path", async () => {
		const text = withTail([user("u3"), assistant()], "t1");

		expect(await lastRow(text)).toMatchObject({ prefix: { kept: 3, breakAt: 3, cause: "branch" }, cache: "read" });
	});

	it("should name a compaction between the two requests", async () => {
		const compaction = {
			type: "compaction",
			id: "c1",
			summary: "So far.",
			firstKeptEntryId: "t2",
			tokensBefore: 2000,
		};
		const text = withTail([compaction, user("u3"), assistant()]);

		expect(await lastRow(text)).toMatchObject({
			prefix: { kept: 0, breakAt: 0, cause: "compaction" },
			cache: "write",
		});
	});

	it("should name a context edit between the two requests", async () => {
		const edit = { type: "context_edit", id: "e1", targetId: "t1", replacement: { content: "[edited]" } };
		const text = withTail([edit, user("u3"), assistant()]);

		expect(await lastRow(text)).toMatchObject({ prefix: { kept: 2, breakAt: 2, cause: "context_edit" } });
	});

	it("should break at 0 for a system message a model folds into its system prompt, and not for one that takes it in place", async () => {
		const system = {
			type: "message",
			id: "s1",
			message: { role: "system", content: "", sections: { rules: "Be brief." }, timestamp: T0 },
		};
		const text = withTail([system, user("u3"), assistant()]);

		expect(await lastRow(text)).toMatchObject({ prefix: { kept: 0, breakAt: 0, cause: "system" }, cache: "write" });
		expect(await lastRow(text, () => ({ midConversationSystem: true }))).toMatchObject({
			prefix: { kept: 7, breakAt: null, cause: null },
			cache: "read",
		});
	});

	it.each([
		["another model", [user("u3"), assistant({ model: "claude-opus-4-5" })], "model"],
		[
			"another thinking level",
			[{ type: "thinking_level_change", id: "k1", thinkingLevel: "high" }, user("u3"), assistant()],
			"thinking",
		],
	] as const)("should expect a cache write after %s, and explain the miss by it", async (_, tail, reason) => {
		const missed = tail.map((entry) =>
			entry.id === "a5" ? { ...entry, message: { ...entry.message, usage: usage(3, 0, 2727) } } : entry,
		);

		expect(await lastRow(withTail([...missed]))).toMatchObject({
			prefix: { kept: 7, breakAt: null },
			cache: "write",
			miss: { tokens: 2677, explainedBy: reason },
			unexplained: false,
		});
	});
});
