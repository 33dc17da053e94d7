/** The built-in `branchSummary` and `compactionSummary` plugins: summaries wrapped as pi wraps them. */
import type { UserMessage } from "@earendil-works/pi-ai";
import {
	BRANCH_SUMMARY_PREFIX,
	BRANCH_SUMMARY_SUFFIX,
	type BranchSummaryMessage,
	COMPACTION_SUMMARY_PREFIX,
	COMPACTION_SUMMARY_SUFFIX,
	type CompactionSummaryMessage,
} from "../messages.js";
import type { Plugin } from "../registry/index.js";
import { userText } from "./text-message.js";

/** Name of the built-in `branchSummary` plugin. */
export const BRANCH_SUMMARY_PLUGIN = "convert-to-llm:branch-summary";
/** Name of the built-in `compactionSummary` plugin. */
export const COMPACTION_SUMMARY_PLUGIN = "convert-to-llm:compaction-summary";

/**
 * pi's conversion of a branch summary: `BRANCH_SUMMARY_PREFIX + summary + BRANCH_SUMMARY_SUFFIX` as one `user` text block.
 *
 * Contract: byte-identical to pi 0.73.1; the summary is inserted as it is (a `</summary>` in it
 * closes the wrapper early: see `escapeSummaries()`); a new message on every call; never `undefined`.
 *
 * @example
 * convertBranchSummary(createBranchSummaryMessage("Tried X", "a1", 0));
 * // { role: "user", content: [{ type: "text", text: "The following is a summary of a branch that this
 * //   conversation came back from:\n\n<summary>\nTried X</summary>" }], timestamp: 0 }
 */
export function convertBranchSummary(message: BranchSummaryMessage): UserMessage {
	return userText(BRANCH_SUMMARY_PREFIX + message.summary + BRANCH_SUMMARY_SUFFIX, message.timestamp);
}

/**
 * pi's conversion of a compaction summary: `COMPACTION_SUMMARY_PREFIX + summary + COMPACTION_SUMMARY_SUFFIX` as one `user` text block.
 *
 * Contract: as {@link convertBranchSummary}, with the compaction prefix and suffix (which, unlike the
 * branch suffix, starts with a newline).
 *
 * @example
 * convertCompactionSummary(createCompactionSummaryMessage("Refactored the parser", 48_000, 0));
 * // { role: "user", content: [{ type: "text", text: "The conversation history before this point was
 * //   compacted into the following summary:\n\n<summary>\nRefactored the parser\n</summary>" }], timestamp: 0 }
 */
export function convertCompactionSummary(message: CompactionSummaryMessage): UserMessage {
	return userText(COMPACTION_SUMMARY_PREFIX + message.summary + COMPACTION_SUMMARY_SUFFIX, message.timestamp);
}

/**
 * Built-in plugin for role `branchSummary`: registers {@link convertBranchSummary} as
 * `convert-to-llm:branch-summary`.
 *
 * Contract: part of `defaultPreset`; one shared object, so using it twice on a registry does nothing;
 * on a registry that already converts the role, `use()` throws `DuplicateConverterError`.
 * `escapeSummaries()` overrides it and keeps it as the fallback.
 *
 * @example
 * const registry = createRegistry().use(modelRoles).use(branchSummary).use(compactionSummary);
 */
export const branchSummary: Plugin = Object.freeze<Plugin>({
	name: BRANCH_SUMMARY_PLUGIN,
	apply(registry) {
		registry.register("branchSummary", convertBranchSummary, { name: BRANCH_SUMMARY_PLUGIN });
	},
});

/**
 * Built-in plugin for role `compactionSummary`: registers {@link convertCompactionSummary} as
 * `convert-to-llm:compaction-summary`.
 *
 * Contract: as {@link branchSummary}, for role `compactionSummary`.
 *
 * @example
 * const registry = createRegistry().use(modelRoles).use(compactionSummary);
 */
export const compactionSummary: Plugin = Object.freeze<Plugin>({
	name: COMPACTION_SUMMARY_PLUGIN,
	apply(registry) {
		registry.register("compactionSummary", convertCompactionSummary, { name: COMPACTION_SUMMARY_PLUGIN });
	},
});
