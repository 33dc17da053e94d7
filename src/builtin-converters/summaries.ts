import type { UserMessage } from "@mariozechner/pi-ai";
import {
	BRANCH_SUMMARY_PREFIX,
	BRANCH_SUMMARY_SUFFIX,
	type BranchSummaryMessage,
	COMPACTION_SUMMARY_PREFIX,
	COMPACTION_SUMMARY_SUFFIX,
	type CompactionSummaryMessage,
} from "../messages.js";
import type { Plugin } from "../registry/types.js";
import { userText } from "./text-message.js";

/** Name of the built-in `branchSummary` plugin. */
export const BRANCH_SUMMARY_PLUGIN = "convert-to-llm:branch-summary";
/** Name of the built-in `compactionSummary` plugin. */
export const COMPACTION_SUMMARY_PLUGIN = "convert-to-llm:compaction-summary";

/** pi's conversion of a branch summary: `BRANCH_SUMMARY_PREFIX + summary + BRANCH_SUMMARY_SUFFIX` as one `user` text block. */
export function convertBranchSummary(message: BranchSummaryMessage): UserMessage {
	return userText(BRANCH_SUMMARY_PREFIX + message.summary + BRANCH_SUMMARY_SUFFIX, message.timestamp);
}

/** pi's conversion of a compaction summary: `COMPACTION_SUMMARY_PREFIX + summary + COMPACTION_SUMMARY_SUFFIX` as one `user` text block. */
export function convertCompactionSummary(message: CompactionSummaryMessage): UserMessage {
	return userText(COMPACTION_SUMMARY_PREFIX + message.summary + COMPACTION_SUMMARY_SUFFIX, message.timestamp);
}

/** Built-in plugin for role `branchSummary`. */
export const branchSummary: Plugin = Object.freeze<Plugin>({
	name: BRANCH_SUMMARY_PLUGIN,
	apply(registry) {
		registry.register("branchSummary", convertBranchSummary, { name: BRANCH_SUMMARY_PLUGIN });
	},
});

/** Built-in plugin for role `compactionSummary`. */
export const compactionSummary: Plugin = Object.freeze<Plugin>({
	name: COMPACTION_SUMMARY_PLUGIN,
	apply(registry) {
		registry.register("compactionSummary", convertCompactionSummary, { name: COMPACTION_SUMMARY_PLUGIN });
	},
});
