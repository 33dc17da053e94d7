import type { Message } from "@earendil-works/pi-ai";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { lint } from "../../src/hooks/index.js";
import { check, type Finding, isRepairable, repaired } from "../../src/hooks/lint-check.js";
import { createDefaultRegistry } from "../../src/preset.js";
import { assistant, collectErrors, T0, user } from "../support/fixtures.js";

const call = (id: unknown, name = "bash") => ({ type: "toolCall", id, name, arguments: {} }) as never;
const calls = (ids: readonly unknown[]): Message => assistant(ids.map((id) => call(id)));
const result = (toolCallId: unknown): Message =>
	({
		role: "toolResult",
		toolCallId,
		toolName: "bash",
		content: [{ type: "text", text: "ok" }],
		isError: false,
		timestamp: T0,
	}) as Message;

/**
 * The tool-call window as a plain list: a result answers the first pending call with its id (`===`),
 * removed with `splice`; a user or assistant message (or a skipped assistant) leaves the rest orphaned.
 */
function orphansByScan(messages: readonly Message[]): Finding[] {
	const findings: Finding[] = [];
	let pending: { id: unknown; name: unknown; outputIndex: number }[] = [];
	const close = () => {
		for (const c of pending)
			findings.push({ rule: "orphan-tool-call", outputIndex: c.outputIndex, subject: c.id, name: c.name });
		pending = [];
	};
	messages.forEach((message, i) => {
		const m = message as unknown as Record<string, unknown>;
		if (m.role === "assistant") {
			close();
			if (m.stopReason === "error" || m.stopReason === "aborted") return;
			for (const block of m.content as Record<string, unknown>[])
				if (block.type === "toolCall") pending.push({ id: block.id, name: block.name, outputIndex: i });
		} else if (m.role === "user") close();
		else if (m.role === "toolResult") {
			const at = pending.findIndex((c) => c.id === m.toolCallId);
			if (at === -1) findings.push({ rule: "orphan-tool-result", outputIndex: i, subject: m.toolCallId });
			else pending.splice(at, 1);
		}
	});
	close();
	return findings.sort((a, b) => a.outputIndex - b.outputIndex);
}

const orphansOf = (messages: readonly Message[]): Finding[] =>
	check(messages, false).filter((f) => f.rule === "orphan-tool-call" || f.rule === "orphan-tool-result");

/** Ids that `===` and a `Map` tell apart differently (`NaN`, `0`/`-0`), repeated ones, and non-strings. */
const SHARED_ID = { id: "object" };
const arbId = fc.constantFrom<unknown>("a", "b", "c", 0, -0, Number.NaN, undefined, null, SHARED_ID, 1);
const arbMessage: fc.Arbitrary<Message> = fc.oneof(
	fc.array(arbId, { maxLength: 20 }).map(calls),
	{ arbitrary: arbId.map(result), weight: 3 },
	fc.constant(user("next")),
	fc.constant(assistant([call("a")], { stopReason: "error" })),
	fc.constant({ role: "system", content: "rules", timestamp: T0 } as unknown as Message),
);

describe("check (tool-call pairing)", () => {
	it("should find the orphans a scan of the pending calls finds, in the same order", () => {
		fc.assert(
			fc.property(fc.array(arbMessage, { maxLength: 40 }), (messages) => {
				expect(orphansOf(messages)).toEqual(orphansByScan(messages));
			}),
			{ numRuns: 500 },
		);
	});

	it("should answer duplicate ids first to last in a window large enough to be indexed", () => {
		const ids = ["x", "y", "x", "z", "x", "y", "w", "v", "u", "t"];
		const messages = [calls(ids), result("x"), result("x"), result("y"), result("q"), result("x"), result("x")];
		expect(orphansOf(messages)).toEqual(orphansByScan(messages));
		expect(orphansOf(messages).map((f) => f.subject)).toEqual(["z", "y", "w", "v", "u", "t", "q", "x"]);
	});

	it("should answer no NaN id, as === does, in small and indexed windows", () => {
		for (const size of [1, 20]) {
			const ids = Array.from({ length: size }, (_, k) => (k === 0 ? Number.NaN : `id${k}`));
			const answered = ids.slice(1).map(result);
			const findings = orphansOf([calls(ids), ...answered, result(Number.NaN)]);
			expect(findings.map((f) => [f.rule, f.subject])).toEqual([
				["orphan-tool-call", Number.NaN],
				["orphan-tool-result", Number.NaN],
			]);
		}
	});

	it("should stay linear: 20,000 calls with 80,000 unmatched results, and 100,000 answered in reverse", () => {
		const ids = Array.from({ length: 20_000 }, (_, k) => `call_${k}`);
		const unmatched = [calls(ids)];
		for (let k = 0; k < 80_000; k++) unmatched.push(result(`other_${k}`));
		const many = Array.from({ length: 100_000 }, (_, k) => `call_${k}`);
		const reversed = [calls(many), ...many.map((_, k) => result(many[many.length - 1 - k]))];

		// A scan per result takes seconds on each (1.6e9 and 5e9 comparisons); one pass, a fraction of one.
		const started = performance.now();
		const first = check(unmatched, false);
		const second = check(reversed, false);
		expect(performance.now() - started).toBeLessThan(5000);

		expect(first).toHaveLength(100_000);
		expect(first.filter((f) => f.rule === "orphan-tool-call")).toHaveLength(20_000);
		expect(second).toEqual([]);
	});
});

describe("lint (tool-call pairing)", () => {
	it("should report each orphan of a large window once, naming its id", () => {
		const registry = createDefaultRegistry().use(lint());
		const errors = collectErrors(registry);
		const ids = Array.from({ length: 12 }, (_, k) => `call_${k}`);
		registry.convert([calls(ids), ...ids.slice(1).map(result), result("stray"), user("next")]);
		expect(errors.map((e) => e.message.match(/tool call "([^"]+)"/)?.[1])).toEqual(["call_0", "stray"]);
	});
});

describe("repaired (repair and check in one pass)", () => {
	const unreadable = {
		get role(): string {
			throw new Error("no role");
		},
	} as unknown as Message;
	const arbEntry: fc.Arbitrary<Message> = fc.oneof(
		arbMessage,
		fc.constant(user("")),
		fc.constant(user("  \n")),
		fc.constant(assistant([])),
		fc.constant({
			role: "user",
			content: [{ type: "image", data: "aGk=", mimeType: "image/png" }],
			timestamp: T0,
		} as Message),
		fc.constant({ role: "user", content: "late", timestamp: Number.NaN } as Message),
		fc.constant(null as unknown as Message),
		fc.constant(unreadable),
	);

	it("should keep what the repair keeps and find in it what check finds, at the repaired output's indices", () => {
		fc.assert(
			fc.property(fc.array(arbEntry, { maxLength: 30 }), fc.boolean(), (messages, blocked) => {
				const kept: Message[] = [];
				const dropped: number[] = [];
				messages.forEach((message, i) => {
					try {
						if (isRepairable(message)) return;
					} catch {
						dropped.push(i);
						return;
					}
					kept.push(message);
				});
				const result = repaired(messages, blocked);
				expect(result.output).toEqual(kept);
				if (kept.length === messages.length) expect(result.output).toBe(messages);
				expect(result.unreadable.map((f) => [f.rule, f.outputIndex, f.dropped])).toEqual(
					dropped.map((i) => ["unreadable-message", i, true]),
				);
				expect(result.findings).toEqual(check(kept, blocked));
			}),
		);
	});

	it("should only repair, finding nothing, when asked not to check", () => {
		const messages = [user("a"), user(""), calls(["x"])];
		const result = repaired(messages, undefined);
		expect(result.output).toEqual([messages[0], messages[2]]);
		expect(result.findings).toEqual([]);
	});
});
