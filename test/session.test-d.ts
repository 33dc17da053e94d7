/**
 * The session reader's types: the pi 1.x entry types discriminate by `type`, a `context_edit`'s
 * replacement is `null` or `{ content }`, and the context says what each edit did.
 */
import { describe, expectTypeOf, it } from "vitest";
import type {
	ContextEditEffect,
	ContextEditEntry,
	SessionContext,
	SessionEntry,
	SessionSystemMessage,
	UsageEntry,
} from "../src/session/index.js";

describe("session types", () => {
	it("should narrow the pi 1.x entries by type", () => {
		const take = (entry: SessionEntry) => {
			if (entry.type === "context_edit") expectTypeOf(entry).toEqualTypeOf<ContextEditEntry>();
			if (entry.type === "usage") expectTypeOf(entry.kind).toEqualTypeOf<string>();
			if (entry.type === "compaction")
				expectTypeOf(entry.systemMessage).toEqualTypeOf<SessionSystemMessage | undefined>();
			if (entry.type === "message") expectTypeOf(entry.message).toExtend<{ role: string }>();
		};
		expectTypeOf(take).toBeFunction();
		expectTypeOf<UsageEntry["type"]>().toEqualTypeOf<"usage">();
	});

	it("should accept null or { content } as a replacement, and nothing else", () => {
		expectTypeOf<null>().toExtend<ContextEditEntry["replacement"]>();
		expectTypeOf<{ content: "[redacted]" }>().toExtend<ContextEditEntry["replacement"]>();
		expectTypeOf<{ content: [{ type: "text"; text: "x" }] }>().toExtend<ContextEditEntry["replacement"]>();
		// @ts-expect-error a replacement has content
		const bad: ContextEditEntry["replacement"] = { text: "x" };
		expectTypeOf(bad).not.toBeAny();
	});

	it("should say in the context what each edit did", () => {
		expectTypeOf<SessionContext["contextEdits"]>().toEqualTypeOf<ContextEditEffect[]>();
		expectTypeOf<ContextEditEffect["effect"]>().toEqualTypeOf<"hidden" | "replaced">();
	});
});
