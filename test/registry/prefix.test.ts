/**
 * The prompt prefix of `run(history, { previous })`: `kept` is the count of leading messages of the
 * earlier output repeated byte for byte, `breakAt` where that stops, `cause` who changed that message,
 * judged on the final output (async taps included), for any history and any plugin.
 */
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { Message } from "@earendil-works/pi-ai";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { pruneMessages, trimToTokens } from "../../src/filters/index.js";
import { blockImages, escapeSummaries, lint, safeFences } from "../../src/hooks/index.js";
import {
	type Conversion,
	ConvertToLlmError,
	ErrorCode,
	type Plugin,
	PrefixBreakNotice,
	type Registry,
	Stage,
} from "../../src/index.js";
import { createDefaultRegistry } from "../../src/preset.js";
import { arbHistory, arbHistory16 } from "../support/arbitraries.js";
import { assistant, MODES, T0, user } from "../support/fixtures.js";

const RUNS = { numRuns: 200 } as const;

/** The brute-force answer: leading messages of `before` that `after` repeats as JSON text. */
function keptByHand(before: readonly Message[], after: readonly Message[]): number {
	let kept = 0;
	while (kept < before.length && kept < after.length && JSON.stringify(before[kept]) === JSON.stringify(after[kept]))
		kept++;
	return kept;
}

/** A tool-heavy turn: the user asks, the assistant calls a tool, the tool answers, the assistant replies. */
function turn(n: number, size = 400): AgentMessage[] {
	return [
		user(`question ${n}`, T0 + n),
		assistant([{ type: "toolCall", id: `call-${n}`, name: "read", arguments: { path: `f${n}.ts` } }], {
			timestamp: T0 + n,
		}),
		{
			role: "toolResult",
			toolCallId: `call-${n}`,
			toolName: "read",
			content: [{ type: "text", text: "x".repeat(size) }],
			isError: false,
			timestamp: T0 + n,
		},
		assistant([{ type: "text", text: `answer ${n}` }], { stopReason: "stop", timestamp: T0 + n }),
	];
}

const turns = (count: number): AgentMessage[] => Array.from({ length: count }, (_, n) => turn(n)).flat();

describe("registry.run with previous", () => {
	it("should leave prefix undefined without a previous conversion", () => {
		const conversion = createDefaultRegistry().run(turns(2));
		expect(conversion.prefix).toBeUndefined();
	});

	it("should keep the whole earlier output when the history only grew", () => {
		const registry = createDefaultRegistry();
		const first = registry.run(turns(2));
		const second = registry.run(turns(3), { previous: first });
		expect(second.prefix).toEqual({ kept: 8, breakAt: null, cause: null });
		expect(second.problems).toEqual([]);
	});

	it("should name the history when a message the earlier output sent was changed", () => {
		const registry = createDefaultRegistry();
		const history = turns(3);
		const first = registry.run(history);
		const edited = history.slice();
		edited[5] = user("changed", T0);
		const second = registry.run(edited, { previous: first });
		expect(second.prefix).toEqual({ kept: 5, breakAt: 5, cause: "history" });
	});

	it("should name the filter whose moving window broke the prefix", () => {
		const registry = createDefaultRegistry().use(trimToTokens({ maxTokens: 500 }));
		const first = registry.run(turns(6));
		const second = registry.run(turns(7), { previous: first });
		expect(second.prefix?.breakAt).toBe(0);
		expect(second.prefix?.cause).toBe("convert-to-llm:trim-to-tokens");
	});

	it("should name the filter that removed a message the earlier output sent, where a new message moved up into its place", () => {
		const registry = createDefaultRegistry().use(pruneMessages({ toolCalls: "before-last-2-messages" }));
		const history = turns(1);
		const first = registry.run(history.slice(0, 3));
		// The call and its result leave the window: the answer after them, new since, takes their place.
		const second = registry.run([...history, user("next", T0 + 9)], { previous: first });
		expect(second.prefix).toEqual({ kept: 1, breakAt: 1, cause: "convert-to-llm:prune-messages" });
	});

	it("should name the converter that converts an unchanged message differently", () => {
		let calls = 0;
		const stamp: Plugin = {
			name: "test:stamp",
			apply(registry) {
				registry.register(
					"custom",
					(m) => ({ role: "user", content: `${String(m.content)} #${calls++}`, timestamp: m.timestamp }),
					{ name: "test:stamp", override: true },
				);
			},
		};
		const registry = createDefaultRegistry().use(stamp);
		const history: AgentMessage[] = [
			user("a"),
			{ role: "custom", customType: "note", content: "note", display: true, timestamp: T0 },
		];
		const first = registry.run(history);
		const second = registry.run([...history, user("b")], { previous: first });
		expect(second.prefix).toEqual({ kept: 1, breakAt: 1, cause: "test:stamp" });
	});

	it("should judge the final output, after an async tap that rewrites an earlier message", async () => {
		let turn = 0;
		const registry = createDefaultRegistry();
		registry.hooks.afterConvertAsync.tapPromise("test:renumber", async (messages) =>
			messages.map((m, i) => (i === 0 ? { ...m, timestamp: turn } : m)),
		);
		const first = await registry.runAsync(turns(1));
		turn++;
		const second = await registry.runAsync(turns(2), { previous: first });
		expect(second.prefix).toEqual({ kept: 0, breakAt: 0, cause: "test:renumber" });
	});

	it.each(MODES)("should report a break as a notice that never fails the conversion ($mode)", ({ strict }) => {
		const registry = createDefaultRegistry({ strict }).use(trimToTokens({ maxTokens: 500 }));
		const first = registry.run(turns(6));
		const second = registry.run(turns(7), { previous: first });
		expect(second.failed).toBe(false);
		const notices = second.problems.filter((p) => p instanceof PrefixBreakNotice);
		expect(notices).toHaveLength(1);
		const notice = notices[0] as PrefixBreakNotice;
		expect(notice).toBeInstanceOf(ConvertToLlmError);
		expect(notice.code).toBe(ErrorCode.PREFIX_BREAK);
		expect(notice.prefix).toBe(second.prefix);
		expect(notice.plugin).toBe("convert-to-llm:trim-to-tokens");
		expect(notice.message).toMatch(/breaks at message 0 of \d+ sent before/);
	});

	it("should compare with a conversion of another registry, or with an explanation", () => {
		const plain = createDefaultRegistry().run(turns(2));
		const registry = createDefaultRegistry().use(blockImages({ enabled: true }));
		expect(registry.run(turns(3), { previous: plain }).prefix?.breakAt).toBeNull();
		const explained = registry.explain(turns(3), { previous: plain });
		expect(explained.prefix).toEqual({ kept: 8, breakAt: null, cause: null });
		expect(registry.run(turns(4), { previous: explained }).prefix).toEqual({ kept: 12, breakAt: null, cause: null });
	});

	it("should show the break in explain, with the notice among its errors", () => {
		const registry = createDefaultRegistry().use(trimToTokens({ maxTokens: 500 }));
		const first = registry.explain(turns(6));
		const second = registry.explain(turns(7), { previous: first });
		expect(second.prefix?.cause).toBe("convert-to-llm:trim-to-tokens");
		expect(second.errors.some((e) => e.code === ErrorCode.PREFIX_BREAK)).toBe(true);
	});

	it("should ignore a previous that is not a conversion's result", () => {
		const registry = createDefaultRegistry();
		const fake = { output: [], problems: [], failed: false, prefix: undefined } as Conversion;
		expect(registry.run(turns(1), { previous: fake }).prefix).toBeUndefined();
	});

	it("should not take the recording into JSON or a spread", () => {
		const conversion = createDefaultRegistry().run(turns(1));
		expect(Object.keys(conversion).sort()).toEqual(["failed", "output", "prefix", "problems"]);
		expect(JSON.parse(JSON.stringify({ ...conversion, prefix: null })).output).toHaveLength(4);
	});
});

/** Every plugin a host might add, each making its own changes to the output. */
const PLUGINS: Record<string, () => Plugin> = {
	blockImages: () => blockImages({ enabled: true }),
	escapeSummaries: () => escapeSummaries(),
	safeFences: () => safeFences(),
	lint: () => lint({ mode: "repair" }),
	prune: () => pruneMessages({ reasoning: "before-last-message", toolCalls: "before-last-2-messages" }),
	trim: () => trimToTokens({ maxTokens: 200 }),
	drop: () => ({
		name: "test:drop-first",
		apply(registry: Registry) {
			registry.hooks.afterConvert.tap({ name: "test:drop-first", stage: Stage.EARLY }, (messages) =>
				messages.slice(1),
			);
		},
	}),
};

describe("the prefix over generated histories", () => {
	it("should count exactly the leading messages repeated as JSON, with a cause whenever it breaks", () => {
		fc.assert(
			fc.property(
				fc.oneof(arbHistory, arbHistory16),
				fc.oneof(arbHistory, arbHistory16),
				fc.nat(),
				fc.subarray(Object.keys(PLUGINS)),
				(base, more, cut, names) => {
					const make = () => {
						const registry = createDefaultRegistry();
						registry.hooks.error.tap("quiet", () => {});
						for (const name of names) registry.use((PLUGINS[name] as () => Plugin)());
						return registry;
					};
					const registry = make();
					const earlier = base as AgentMessage[];
					// The next request: the history grown, or cut and grown (an edit, a compaction).
					const later = [...earlier.slice(0, cut % (earlier.length + 1)), ...(more as AgentMessage[])];
					const first = registry.run(earlier);
					const second = registry.run(later, { previous: first });
					expect(second.output).toStrictEqual(make().convert(later));
					const kept = keptByHand(first.output, second.output);
					expect(second.prefix?.kept).toBe(kept);
					if (kept < first.output.length) {
						expect(second.prefix?.breakAt).toBe(kept);
						expect(typeof second.prefix?.cause).toBe("string");
						expect(second.problems.filter((p) => p.code === ErrorCode.PREFIX_BREAK)).toHaveLength(1);
					} else {
						expect(second.prefix).toEqual({ kept, breakAt: null, cause: null });
						expect(second.problems.filter((p) => p.code === ErrorCode.PREFIX_BREAK)).toHaveLength(0);
					}
				},
			),
			RUNS,
		);
	});

	it("should never blame the history for a break when the history only grew", () => {
		fc.assert(
			fc.property(
				fc.oneof(arbHistory, arbHistory16),
				fc.nat(),
				fc.subarray(Object.keys(PLUGINS)),
				(history, at, names) => {
					const registry = createDefaultRegistry();
					registry.hooks.error.tap("quiet", () => {});
					for (const name of names) registry.use((PLUGINS[name] as () => Plugin)());
					const cut = at % (history.length + 1);
					const first = registry.run(history.slice(0, cut) as AgentMessage[]);
					const second = registry.run(history as AgentMessage[], { previous: first });
					expect(second.prefix?.cause).not.toBe("history");
				},
			),
			RUNS,
		);
	});

	it("should never break the prefix of a history that only grows, with the default preset", () => {
		fc.assert(
			fc.property(fc.oneof(arbHistory, arbHistory16), fc.nat(), (history, at) => {
				const registry = createDefaultRegistry();
				registry.hooks.error.tap("quiet", () => {});
				const cut = at % (history.length + 1);
				const first = registry.run(history.slice(0, cut) as AgentMessage[]);
				const second = registry.run(history as AgentMessage[], { previous: first });
				expect(second.prefix).toEqual({ kept: first.output.length, breakAt: null, cause: null });
			}),
			RUNS,
		);
	});
});
