/**
 * The property suite for the hardening plugins failing closed (strict images, non-string fields, one
 * drop per unreadable message, hostile thrown values, live settings), over the generators of
 * `test/support/hostile.ts`: non-string fields, image blocks not typed "image", throwing getters and
 * hostile thrown values. Each property fails on the code before its fix.
 */
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { Message } from "@earendil-works/pi-ai";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
	BLOCK_IMAGES_PLUGIN,
	blockImages,
	ESCAPE_SUMMARIES_PLUGIN,
	escapeSummaries,
	lint,
	SAFE_FENCES_PLUGIN,
	safeBashExecutionToText,
	safeFences,
} from "../../src/hooks/index.js";
import {
	type BashExecutionMessage,
	BRANCH_SUMMARY_PREFIX,
	bashExecutionToText,
	COMPACTION_SUMMARY_PREFIX,
} from "../../src/index.js";
import { createDefaultRegistry } from "../../src/preset.js";
import { arbBashExecution, arbImageHistory } from "../support/arbitraries.js";
import { collectErrors, plainBashStatus, T0 } from "../support/fixtures.js";
import {
	arbHostileText,
	arbMixedContent,
	arbNonStringField,
	arbOddImageBlock,
	arbThrowingUser,
	arbThrown,
} from "../support/hostile.js";

const RUNS = { numRuns: 300 } as const;

/** The content of every user and toolResult message of `output`, flattened. */
function blocksOf(output: readonly Message[]): unknown[] {
	const blocks: unknown[] = [];
	for (const message of output)
		if ((message.role === "user" || message.role === "toolResult") && Array.isArray(message.content))
			blocks.push(...message.content);
	return blocks;
}

const isText = (block: unknown): boolean =>
	block !== null && typeof block === "object" && (block as { type?: unknown }).type === "text";

describe("property: strict images", () => {
	it("should leave only text blocks in user and toolResult content under blockImages({ strictImages: true })", () => {
		fc.assert(
			fc.property(fc.array(arbMixedContent, { maxLength: 5 }), fc.boolean(), (contents, keepUserText) => {
				const history = contents.map((content) => ({ role: "user", content, timestamp: T0 }) as AgentMessage);
				const registry = createDefaultRegistry().use(blockImages({ strictImages: true, keepUserText }));
				expect(blocksOf(registry.convert(history)).every(isText)).toBe(true);
			}),
			RUNS,
		);
	});

	it("should make lint({ imagesBlocked: true }) find every odd image pi's rule lets through", () => {
		fc.assert(
			fc.property(fc.array(arbOddImageBlock, { minLength: 1, maxLength: 4 }), (odd) => {
				const registry = createDefaultRegistry()
					.use(blockImages())
					.use(lint({ imagesBlocked: true }));
				const errors = collectErrors(registry);
				registry.convert(odd.map((block) => ({ role: "user", content: [block], timestamp: T0 }) as AgentMessage));
				expect(errors.filter((e) => e.message.includes("image-while-blocked"))).toHaveLength(odd.length);
			}),
			RUNS,
		);
	});
});

describe("property: non-string fields", () => {
	it("should keep every non-string summary inside its wrapper: the only </summary> is the wrapper's", () => {
		fc.assert(
			fc.property(arbNonStringField(arbHostileText), fc.boolean(), (summary, compaction) => {
				const message = (
					compaction
						? { role: "compactionSummary", summary, tokensBefore: 1, timestamp: T0 }
						: { role: "branchSummary", summary, fromId: "a1", timestamp: T0 }
				) as AgentMessage;
				const registry = createDefaultRegistry().use(escapeSummaries());
				const errors = collectErrors(registry);
				const [out, ...rest] = registry.convert([message]);
				expect(rest).toEqual([]);
				expect(errors).toEqual([]);
				const text = JSON.stringify(out);
				expect(text.split("</summary>").length - 1).toBe(1);
				expect(text).toContain(
					JSON.stringify(compaction ? COMPACTION_SUMMARY_PREFIX : BRANCH_SUMMARY_PREFIX).slice(1, -1),
				);
				expect(registry.explain([message]).messages[0]?.plugin).toBe(ESCAPE_SUMMARIES_PLUGIN);
			}),
			RUNS,
		);
	});

	it("should fence a non-string command or output as its stringification, never through the built-in", () => {
		fc.assert(
			fc.property(
				arbBashExecution.map((m) => ({ ...m, excludeFromContext: undefined })),
				arbNonStringField(arbHostileText),
				arbNonStringField(arbHostileText),
				fc.constantFrom("command", "output", "both"),
				(base, command, output, which) => {
					const message = {
						...base,
						...(which !== "output" ? { command } : {}),
						...(which !== "command" ? { output } : {}),
					} as unknown as BashExecutionMessage;
					const registry = createDefaultRegistry().use(safeFences());
					const [out] = registry.convert([message]);
					const text = safeBashExecutionToText(message);
					expect(out?.content).toEqual([{ type: "text", text }]);
					// Stringified as pi does: where nothing needs a longer delimiter or padding, the text is pi's own.
					const shownCommand = `${message.command}`;
					const shownOutput = message.output ? `${message.output}` : "";
					if (
						/^[^`\s]([^`\r\n]*[^`\s])?$/.test(shownCommand) &&
						!shownOutput.includes("```") &&
						plainBashStatus(message)
					)
						expect(text).toBe(bashExecutionToText(message));
					expect(registry.explain([message]).messages[0]?.plugin).toBe(SAFE_FENCES_PLUGIN);
				},
			),
			RUNS,
		);
	});
});

describe("property: fail closed per message", () => {
	it("should never send an image from a history with throwing getters, and report each unreadable message once", () => {
		fc.assert(
			fc.property(
				arbImageHistory,
				fc.array(fc.tuple(arbThrowingUser, fc.nat()), { minLength: 1, maxLength: 3 }),
				fc.boolean(),
				(history, hostile, strictImages) => {
					const mixed: AgentMessage[] = [...history];
					for (const [{ message }, at] of hostile) mixed.splice(at % (mixed.length + 1), 0, message);
					const registry = createDefaultRegistry().use(blockImages({ strictImages }));
					const errors = collectErrors(registry);
					const output = registry.convert(mixed);
					for (const block of blocksOf(output)) expect((block as { type?: unknown }).type).not.toBe("image");
					expect(errors.filter((e) => e.plugin === BLOCK_IMAGES_PLUGIN)).toHaveLength(hostile.length);
				},
			),
			RUNS,
		);
	});

	it("should drop and report once a summary or bash run whose fields throw any hostile value, never send it raw", () => {
		fc.assert(
			fc.property(arbThrown, fc.constantFrom("summary", "command", "output"), (thrown, field) => {
				const hostile = {
					toString: () => {
						throw thrown();
					},
					valueOf: () => {
						throw thrown();
					},
				};
				const message = (field === "summary"
					? { role: "branchSummary", summary: hostile, fromId: "a1", timestamp: T0 }
					: {
							role: "bashExecution",
							command: "ls",
							output: "x",
							exitCode: 0,
							cancelled: false,
							truncated: false,
							timestamp: T0,
							[field]: hostile,
						}) as unknown as AgentMessage;
				const registry = createDefaultRegistry().use(escapeSummaries()).use(safeFences());
				const errors = collectErrors(registry);
				expect(registry.convert([message])).toEqual([]);
				expect(errors).toHaveLength(1);
				expect(errors[0]?.plugin).toBe(field === "summary" ? ESCAPE_SUMMARIES_PLUGIN : SAFE_FENCES_PLUGIN);
			}),
			RUNS,
		);
	});
});

describe("property: live settings", () => {
	it("should read any setting value, or any hostile throw, the same way in blockImages and lint", () => {
		fc.assert(
			fc.property(
				fc.oneof(
					fc.anything().map((v) => ({ value: v })),
					arbThrown.map((t) => ({ throws: t })),
				),
				(s) => {
					const setting = (): boolean => {
						if ("throws" in s) throw s.throws();
						return s.value as boolean;
					};
					const on = "throws" in s || Boolean(s.value);
					const png = { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" };
					const history = [{ role: "user", content: [png], timestamp: T0 } as AgentMessage];
					const blocked = createDefaultRegistry().use(blockImages({ enabled: setting }));
					collectErrors(blocked);
					expect(JSON.stringify(blocked.convert(history)).includes("iVBORw0KGgo=")).toBe(!on);
					const linted = createDefaultRegistry().use(lint({ imagesBlocked: setting }));
					const errors = collectErrors(linted);
					linted.convert(history);
					expect(errors.some((e) => e.message.includes("image-while-blocked"))).toBe(on);
				},
			),
			RUNS,
		);
	});
});
