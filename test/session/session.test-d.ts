/**
 * The session reader's types: the pi 1.x entry types discriminate by `type`, a `context_edit`'s
 * replacement is `null` or `{ content }`, and the context says what each edit did.
 */
import { describe, expectTypeOf, it } from "vitest";
import type {
	ContextEditEffect,
	ContextEditEntry,
	ReadSessionResult,
	readSessionStream,
	SessionContext,
	SessionEntry,
	SessionProblem,
	SessionProblemCount,
	SessionProblemKind,
	SessionSystemMessage,
	SessionTree,
	UsageEntry,
} from "../../src/session/index.js";

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

	it("should give problems as data, counted per kind, and read any stream of text or bytes", () => {
		expectTypeOf<SessionContext["problems"]>().toEqualTypeOf<SessionProblem[]>();
		expectTypeOf<SessionProblem["kind"]>().toEqualTypeOf<SessionProblemKind>();
		expectTypeOf<SessionProblemCount>().toHaveProperty("omitted").toEqualTypeOf<number>();
		expectTypeOf<"not-json">().toExtend<SessionProblemKind>();
		// @ts-expect-error: a kind the reader never reports
		expectTypeOf<"oops">().toExtend<SessionProblemKind>();
		expectTypeOf<typeof readSessionStream>().returns.toEqualTypeOf<Promise<ReadSessionResult>>();
		expectTypeOf<AsyncIterable<Uint8Array>>().toExtend<Parameters<typeof readSessionStream>[0]>();
		expectTypeOf<AsyncIterable<string>>().toExtend<Parameters<typeof readSessionStream>[0]>();
	});

	it("should give the file's facts, and its tree only when asked for it", () => {
		expectTypeOf<ReadSessionResult["tree"]>().toEqualTypeOf<SessionTree | undefined>();
		expectTypeOf<ReadSessionResult["entryCount"]>().toEqualTypeOf<number>();
		expectTypeOf<ReadSessionResult>().not.toHaveProperty("session");
		expectTypeOf<"edge-whitespace">().toExtend<SessionProblemKind>();
	});
});
