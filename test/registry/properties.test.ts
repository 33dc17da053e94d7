/**
 * The invariants of the opt-in hardening, property-tested over generated histories and any
 * combination of the hardening plugins (`escapeSummaries`, `safeFences`, `blockImages` in both
 * modes, `lint` in both modes, `isolate`), with arbitrary post-conversion taps where the invariant
 * says "whatever is tapped".
 */
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { Message } from "@earendil-works/pi-ai";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
	blockImages,
	codeSpan,
	escapeSummaries,
	escapeSummaryText,
	excludeCustomMessages,
	LINT_PLUGIN,
	LintError,
	lint,
	safeBashExecutionToText,
	safeFences,
} from "../../src/hooks/index.js";
import {
	type BashExecutionMessage,
	BRANCH_SUMMARY_PREFIX,
	BRANCH_SUMMARY_SUFFIX,
	bashExecutionToText,
	COMPACTION_SUMMARY_PREFIX,
	COMPACTION_SUMMARY_SUFFIX,
	type ConvertToLlmError,
	type CustomMessage,
	type HookContext,
	type Registry,
	Stage,
} from "../../src/index.js";
import { createDefaultRegistry } from "../../src/preset.js";
import {
	arbAgentMessage,
	arbBashExecution,
	arbBlocks,
	arbBranchSummary,
	arbCompactionSummary,
	arbCustomMessage,
	arbHistory,
	arbImageHistory,
	arbText,
	deepFreeze,
} from "../support/arbitraries.js";
import { plainBashStatus } from "../support/fixtures.js";

const RUNS = { numRuns: 300 } as const;
const MODEL_ROLES = new Set(["user", "assistant", "toolResult"]);

/** Which hardening plugins are on, and how. */
interface Hardening {
	escape: boolean;
	fences: boolean;
	images: "off" | "pi" | "keepUserText" | "strict";
	lint: "off" | "report" | "repair";
	isolate: boolean;
}

const arbHardening: fc.Arbitrary<Hardening> = fc.record({
	escape: fc.boolean(),
	fences: fc.boolean(),
	images: fc.constantFrom("off", "pi", "keepUserText", "strict"),
	lint: fc.constantFrom("off", "report", "repair"),
	isolate: fc.boolean(),
});

function hardened(h: Hardening): Registry {
	// Custom messages with excludeFromContext are excluded by the opt-in plugin (no pi version has the field).
	const registry = createDefaultRegistry({ isolate: h.isolate }).use(excludeCustomMessages());
	if (h.escape) registry.use(escapeSummaries());
	if (h.fences) registry.use(safeFences());
	if (h.images !== "off")
		registry.use(blockImages({ keepUserText: h.images === "keepUserText", strictImages: h.images === "strict" }));
	if (h.lint !== "off") registry.use(lint({ mode: h.lint, imagesBlocked: h.images !== "off" }));
	return registry;
}

function collectErrors(registry: Registry): ConvertToLlmError[] {
	const errors: ConvertToLlmError[] = [];
	registry.hooks.error.tap("test:collect", (error) => {
		errors.push(error);
	});
	return errors;
}

/** Post-conversion taps a host or an extension might add; some are faulty on purpose. */
type TapKind =
	| "identity"
	| "reverse"
	| "duplicate"
	| "drop-first"
	| "json-clone"
	| "throws"
	| "not-an-array"
	| "push-input"
	| "overwrite-first";

const TAPS: Record<TapKind, (messages: Message[], ctx: HookContext) => unknown> = {
	identity: (messages) => messages,
	reverse: (messages) => [...messages].reverse(),
	duplicate: (messages) => messages.flatMap((m) => [m, m]),
	"drop-first": (messages) => messages.slice(1),
	"json-clone": (messages) => JSON.parse(JSON.stringify(messages)),
	throws: () => {
		throw new Error("faulty tap");
	},
	"not-an-array": () => ({ oops: true }),
	// In place, past the guard: the final check of the output must catch what they put there.
	"push-input": (messages, ctx) => {
		for (const entry of ctx.input) messages.push(entry as Message);
		return messages;
	},
	"overwrite-first": (messages, ctx) => {
		if (messages.length > 0) messages[0] = ctx.input[0] as Message;
		return messages;
	},
};

const arbTaps = fc.array(
	fc.record({
		kind: fc.constantFrom(...(Object.keys(TAPS) as TapKind[])),
		stage: fc.constantFrom(Stage.EARLY, Stage.DEFAULT, Stage.SANITIZE + 1, Stage.VERIFY + 1),
	}),
	{ maxLength: 4 },
);

function addTaps(registry: Registry, taps: readonly { kind: TapKind; stage: number }[]): Registry {
	taps.forEach(({ kind, stage }, i) => {
		registry.hooks.afterConvert.tap(
			{ name: `test:${kind}-${i}`, stage },
			TAPS[kind] as (messages: Message[], ctx: HookContext) => Message[],
		);
	});
	return registry;
}

/** Every object and array reachable from `value`. */
function objectsIn(value: unknown, into = new Set<object>()): Set<object> {
	if (value === null || typeof value !== "object" || into.has(value)) return into;
	into.add(value);
	for (const key of Object.keys(value)) objectsIn((value as Record<string, unknown>)[key], into);
	return into;
}

/** A bash run or custom message marked excluded, carrying `marker` in every text it has. */
const arbExcluded = (marker: string): fc.Arbitrary<AgentMessage> =>
	fc.oneof(
		arbBashExecution.map(
			(m): BashExecutionMessage => ({
				...m,
				command: `${marker} ${m.command}`,
				output: marker,
				excludeFromContext: true,
			}),
		),
		fc.tuple(arbCustomMessage, fc.constantFrom<unknown>(true, 1, "yes"), fc.boolean()).map(
			([m, excluded, asBlocks]) =>
				({
					...m,
					content: asBlocks ? [{ type: "text", text: marker }] : marker,
					excludeFromContext: excluded,
				}) as CustomMessage,
		),
	);

describe("invariant: excluded messages never reach the model", () => {
	it("should keep excluded bash and custom messages out of the output, whatever is tapped after conversion", () => {
		fc.assert(
			fc.property(
				fc.uuid().chain((id) => {
					const marker = `EXCLUDED-${id}`;
					const history = fc.array(fc.oneof(arbAgentMessage, arbExcluded(marker)), {
						minLength: 1,
						maxLength: 12,
					});
					return fc.tuple(fc.constant(marker), history);
				}),
				arbHardening,
				arbTaps,
				([marker, history], h, taps) => {
					const output = addTaps(hardened(h), taps).convert(history);
					expect(JSON.stringify(output) ?? "").not.toContain(marker);
				},
			),
			RUNS,
		);
	});
});

describe("invariant: the output is model messages, in input order", () => {
	it("should hold only user, assistant and toolResult messages, one per kept input, in input order", () => {
		fc.assert(
			fc.property(arbHistory, arbHardening, (generated, h) => {
				// Timestamps made the input index, so the output tells where each message came from.
				const history = generated.map((m, i) => ({ ...m, timestamp: i }) as AgentMessage);
				const output = hardened(h).convert(history);
				for (const message of output) expect(MODEL_ROLES.has(message.role)).toBe(true);
				const order = output.map((m) => m.timestamp);
				const kept = history
					.filter((m) => !("excludeFromContext" in m && m.excludeFromContext))
					.map((m) => m.timestamp);
				if (h.lint === "repair") {
					// Repair only removes (empty messages): what is left is a subsequence, in order.
					let at = 0;
					for (const t of order) {
						at = kept.indexOf(t, at) + 1;
						expect(at).toBeGreaterThan(0);
					}
				} else {
					expect(order).toEqual(kept);
				}
			}),
			RUNS,
		);
	});
});

describe("invariant: the input is never mutated", () => {
	it("should convert a deep-frozen history without writing to it or reporting anything but lint findings", () => {
		fc.assert(
			fc.property(arbHistory, arbHardening, (history, h) => {
				const snapshot = structuredClone(history);
				const registry = hardened(h);
				const errors = collectErrors(registry);
				registry.convert(deepFreeze(history));
				expect(history).toStrictEqual(snapshot);
				for (const error of errors) expect(error).toBeInstanceOf(LintError);
			}),
			RUNS,
		);
	});

	it("should share no object or array with the input when isolate is on", () => {
		fc.assert(
			fc.property(
				fc.oneof(arbHistory, arbImageHistory),
				arbHardening.map((h) => ({ ...h, isolate: true })),
				(history, h) => {
					const output = hardened(h).convert(history);
					const shared = objectsIn(history);
					expect(shared.has(output)).toBe(false);
					for (const object of objectsIn(output)) expect(shared.has(object)).toBe(false);
				},
			),
			RUNS,
		);
	});

	it("should leave the output's objects the caller's own when isolate is off (as upstream)", () => {
		const history = [{ role: "user" as const, content: [{ type: "text" as const, text: "hi" }], timestamp: 1 }];
		const [out] = createDefaultRegistry().convert(history);
		expect(out).toBe(history[0]);
		const [copy] = createDefaultRegistry({ isolate: true }).convert(history);
		expect(copy).toStrictEqual(history[0]);
		expect(copy).not.toBe(history[0]);
	});
});

/** Entries of a history as bad as they come: any JSON-ish value, messages of known roles with junk fields, real messages. */
const arbJunkEntry: fc.Arbitrary<unknown> = fc.oneof(
	fc.anything(),
	fc.record({
		role: fc.constantFrom(
			"user",
			"assistant",
			"toolResult",
			"bashExecution",
			"custom",
			"branchSummary",
			"compactionSummary",
			"constructor",
			"__proto__",
			"nobody",
		),
		content: fc.oneof(fc.anything(), arbBlocks, fc.array(fc.anything(), { maxLength: 3 })),
		summary: fc.anything(),
		command: fc.anything(),
		output: fc.anything(),
		excludeFromContext: fc.anything(),
		timestamp: fc.anything(),
	}),
	arbAgentMessage,
);

function isExcluded(entry: unknown): boolean {
	if (entry === null || typeof entry !== "object") return false;
	const { role, excludeFromContext } = entry as { role?: unknown; excludeFromContext?: unknown };
	return (role === "bashExecution" || role === "custom") && Boolean(excludeFromContext);
}

describe("invariant: lenient convert never throws", () => {
	it("should not throw for any value given as the history", () => {
		fc.assert(
			fc.property(fc.anything(), arbHardening, (input, h) => {
				const registry = hardened(h);
				const errors = collectErrors(registry);
				const output = registry.convert(input as AgentMessage[]);
				expect(Array.isArray(output)).toBe(true);
				if (!Array.isArray(input)) expect(errors).toHaveLength(1);
			}),
			RUNS,
		);
	});

	it("should report every entry it drops exactly once, and no entry twice", async () => {
		await fc.assert(
			fc.asyncProperty(
				fc.array(arbJunkEntry, { maxLength: 12 }),
				arbHardening.map((h) => ({ ...h, lint: "off" as const })),
				fc.boolean(),
				async (entries, h, useAsync) => {
					const registry = hardened(h).trackSources();
					const errors = collectErrors(registry);
					const produced = new Set<number>();
					registry.hooks.afterConvert.tap({ name: "test:sources", stage: Stage.EARLY - 1 }, (messages, ctx) => {
						for (const message of messages) {
							const source = ctx.sourceOf(message);
							if (source !== undefined) produced.add(source.index);
						}
						return messages;
					});
					const output = useAsync
						? await registry.convertAsync(entries as AgentMessage[])
						: registry.convert(entries as AgentMessage[]);
					expect(Array.isArray(output)).toBe(true);
					for (let i = 0; i < entries.length; i++) {
						const reports = errors.filter((e) => e.index === i).length;
						expect(reports).toBeLessThanOrEqual(1);
						if (!produced.has(i) && !isExcluded(entries[i])) expect(reports).toBe(1);
						if (isExcluded(entries[i])) expect(produced.has(i)).toBe(false);
					}
				},
			),
			RUNS,
		);
	});

	it("should not throw with lint on, whatever the entries", () => {
		fc.assert(
			fc.property(
				fc.array(arbJunkEntry, { maxLength: 12 }),
				arbHardening.map((h) => ({ ...h, lint: "report" as const })),
				(entries, h) => {
					const registry = hardened(h);
					const errors = collectErrors(registry);
					expect(Array.isArray(registry.convert(entries as AgentMessage[]))).toBe(true);
					// The lint itself never fails: a failing tap would be reported with its name.
					for (const error of errors)
						if (!(error instanceof LintError)) expect(error.plugin).not.toBe(LINT_PLUGIN);
				},
			),
			RUNS,
		);
	});
});

/** The summary text between pi's wrapper, or `undefined` when the text is not wrapped as pi wraps it. */
function unwrap(text: string, prefix: string, suffix: string): string | undefined {
	if (!text.startsWith(prefix) || !text.endsWith(suffix)) return undefined;
	return text.slice(prefix.length, text.length - suffix.length);
}

const SUMMARY_TAG = /<\s*\/?\s*summary(?![\w-])/i;

describe("invariant: escapeSummaries", () => {
	const arbSummaryText = fc.oneof(
		arbText,
		fc
			.array(fc.constantFrom("<", ">", "/", " ", "\n", "summary", "SUMMARY", "summary_x", "&lt;", "x", "!", "?"), {
				maxLength: 12,
			})
			.map((parts) => parts.join("")),
	);

	it.each([
		{ tags: [] as readonly string[] | "all" },
		{ tags: ["system", "user"] as const },
		{ tags: "all" as const },
	])("should be idempotent with tags $tags: escaping twice equals escaping once", ({ tags }) => {
		fc.assert(
			fc.property(arbSummaryText, (text) => {
				const once = escapeSummaryText(text, tags);
				expect(escapeSummaryText(once, tags)).toBe(once);
				expect(SUMMARY_TAG.test(once)).toBe(false);
			}),
			RUNS,
		);
	});

	it("should keep the whole summary inside the wrapper, and convert an escaped summary to the same output", () => {
		const registry = createDefaultRegistry().use(escapeSummaries());
		fc.assert(
			fc.property(fc.oneof(arbBranchSummary, arbCompactionSummary), arbSummaryText, (message, summary) => {
				const original = { ...message, summary };
				const [out] = registry.convert([original]);
				const text = out?.role === "user" && Array.isArray(out.content) ? out.content[0] : undefined;
				expect(text?.type).toBe("text");
				const inner =
					original.role === "branchSummary"
						? unwrap((text as { text: string }).text, BRANCH_SUMMARY_PREFIX, BRANCH_SUMMARY_SUFFIX)
						: unwrap((text as { text: string }).text, COMPACTION_SUMMARY_PREFIX, COMPACTION_SUMMARY_SUFFIX);
				expect(inner).toBeDefined();
				expect(SUMMARY_TAG.test(inner as string)).toBe(false);
				expect(registry.convert([{ ...original, summary: escapeSummaryText(summary) }])).toStrictEqual([out]);
			}),
			RUNS,
		);
	});
});

/** Reads the command back from `Ran …` as CommonMark does: a code span, or a fenced block after `Ran`. */
function readCommand(text: string): { command: string; rest: string } | undefined {
	if (text.startsWith("Ran\n")) {
		const block = readFence(text.slice(4));
		return block === undefined ? undefined : { command: block.body, rest: block.rest };
	}
	const newline = text.indexOf("\n");
	const line = text.slice(4, newline);
	const open = /^`+/.exec(line)?.[0].length ?? 0;
	if (open === 0 || !line.endsWith("`".repeat(open))) return undefined;
	const inner = line.slice(open, line.length - open);
	// No run of exactly `open` backticks may close the span early.
	for (const run of inner.match(/`+/g) ?? []) if (run.length === open) return undefined;
	if (inner.startsWith("`") || inner.endsWith("`")) return undefined;
	const stripped = inner.startsWith(" ") && inner.endsWith(" ") && /[^ ]/.test(inner) ? inner.slice(1, -1) : inner;
	return { command: stripped, rest: text.slice(newline + 1) };
}

/** A backtick-fenced block at the start of `text`: its body (up to the first closing fence line) and what follows. */
function readFence(text: string): { body: string; rest: string } | undefined {
	const lines = text.split("\n");
	const n = /^`{3,}$/.exec(lines[0] ?? "")?.[0].length;
	if (n === undefined) return undefined;
	const end = lines.findIndex((line, i) => i > 0 && new RegExp(`^ {0,3}\`{${n},}[ \\t]*$`).test(line));
	if (end < 0) return undefined;
	return { body: lines.slice(1, end).join("\n"), rest: lines.slice(end + 1).join("\n") };
}

describe("invariant: safeFences", () => {
	const arbBacktickText = fc.oneof(
		arbText,
		fc
			.array(fc.constantFrom("`", "``", "```", "````", "\n", " ", "x", "~~~", "\r\n"), { maxLength: 10 })
			.map((parts) => parts.join("")),
	);

	it("should let CommonMark read back exactly the command and the output", () => {
		fc.assert(
			fc.property(arbBashExecution, arbBacktickText, arbBacktickText, (message, command, output) => {
				fc.pre(command !== "" && !command.includes("\r") && !output.includes("\r"));
				const text = safeBashExecutionToText({ ...message, command, output });
				const read = readCommand(text);
				expect(read?.command).toBe(command);
				if (output !== "") expect(readFence(read?.rest ?? "")?.body).toBe(output);
				else expect(read?.rest.startsWith("(no output)")).toBe(true);
			}),
			RUNS,
		);
	});

	it("should change nothing when nothing needs a longer delimiter", () => {
		fc.assert(
			fc.property(arbBashExecution, (message) => {
				const plainCommand =
					!/[`\r\n]/.test(message.command) && !(message.command.startsWith(" ") && message.command.endsWith(" "));
				fc.pre(
					plainCommand && message.command !== "" && !message.output.includes("```") && plainBashStatus(message),
				);
				expect(safeBashExecutionToText(message)).toBe(bashExecutionToText(message));
				expect(codeSpan(message.command)).toBe(`\`${message.command}\``);
			}),
			RUNS,
		);
	});
});

describe("invariant: idempotent plugins", () => {
	it.each([{ keepUserText: false }, { keepUserText: true }])(
		"should give the same output with blockImages(%o) applied twice as once",
		({ keepUserText }) => {
			fc.assert(
				fc.property(arbImageHistory, (history) => {
					// One plugin object per registry (a second one of the same name is refused): filter the output again.
					const registry = createDefaultRegistry().use(blockImages({ keepUserText }));
					const once = registry.convert(history);
					expect(registry.convert(once)).toStrictEqual(once);
				}),
				RUNS,
			);
		},
	);

	it("should never let blockImages({ keepUserText: true }) drop a text block the user wrote", () => {
		fc.assert(
			fc.property(arbImageHistory, (history) => {
				const output = createDefaultRegistry()
					.use(blockImages({ keepUserText: true }))
					.convert(history);
				const texts = (messages: readonly unknown[]) =>
					messages.flatMap((m) => {
						const content = (m as { content?: unknown }).content;
						return Array.isArray(content) ? content.filter((b) => b.type === "text").map((b) => b.text) : [];
					});
				const written = texts(createDefaultRegistry().convert(history));
				// Every text block of the unblocked output is still there, in order, between placeholders.
				const kept = texts(output);
				let at = 0;
				for (const text of written) {
					at = kept.indexOf(text, at) + 1;
					expect(at).toBeGreaterThan(0);
				}
			}),
			RUNS,
		);
	});

	it("should give the same output with lint({ mode: 'repair' }) applied twice as once", () => {
		fc.assert(
			fc.property(arbHistory, (history) => {
				// One plugin object per registry (a second one of the same name is refused): repair the output again.
				const registry = createDefaultRegistry().use(lint({ mode: "repair" }));
				const once = registry.convert(history);
				expect(registry.convert(once)).toStrictEqual(once);
			}),
			RUNS,
		);
	});

	it("should leave the output of lint({ mode: 'report' }) untouched", () => {
		fc.assert(
			fc.property(arbHistory, (history) => {
				expect(createDefaultRegistry().use(lint()).convert(history)).toStrictEqual(
					createDefaultRegistry().convert(history),
				);
			}),
			RUNS,
		);
	});
});
