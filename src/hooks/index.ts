/**
 * The `convert-to-llm/hooks` entry point: re-exports the hardening plugins (blockImages, escapeSummaries,
 * excludeCustomMessages, lint, safeFences) and the few helpers and types they share.
 */
export { LintError, type LintErrorDetails } from "../errors.js";
export { isImageBlock, isNonTextBlock, type LiveSetting } from "../values.js";
export { BLOCK_IMAGES_PLUGIN, type BlockImagesOptions, blockImages, IMAGE_PLACEHOLDER } from "./block-images.js";
export {
	ESCAPE_SUMMARIES_PLUGIN,
	type EscapedTags,
	type EscapeSummariesOptions,
	escapeSummaries,
	escapeSummaryText,
} from "./escape-summaries.js";
export { EXCLUDE_CUSTOM_MESSAGES_PLUGIN, excludeCustomMessages } from "./exclude-custom-messages.js";
export {
	LINT_PLUGIN,
	type LintMode,
	type LintOptions,
	type LintRule,
	lint,
} from "./lint.js";
export {
	codeFence,
	codeSpan,
	longestBacktickRun,
	SAFE_FENCES_PLUGIN,
	safeBashExecutionToText,
	safeFences,
} from "./safe-fences.js";
