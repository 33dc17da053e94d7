/**
 * The `convert-to-llm/filters` entry point: re-exports the filter plugins (prune, trim, clear, redact), their list
 * functions, and the token counters (pi's estimate, the calibrated counter, the bill).
 */
export { BILLED_LABEL, type BilledUsage, billedUsage } from "./billed-usage.js";
export {
	type CalibratedCounter,
	type CalibrationOptions,
	type CalibrationState,
	calibratedCounter,
	type Observation,
	PI_ESTIMATE_LABEL,
	type TokenCount,
	type TokenCountKind,
} from "./calibrated-counter.js";
export {
	CLEAR_STAGE,
	CLEAR_TOOL_RESULTS_PLUGIN,
	type ClearKeep,
	type ClearToolResultsOptions,
	type ClearTrigger,
	type ClearWhen,
	clearToolResults,
	DEFAULT_CACHE_LIFETIME_MS,
	DEFAULT_CLEAR_AT_LEAST_SHARE,
	DEFAULT_CLEAR_KEEP,
	DEFAULT_CLEAR_TRIGGER_TOKENS,
} from "./clear-tool-results.js";
export { estimateTokens, IMAGE_CHARS } from "./estimate-tokens.js";
export { isSecretName, type KnownSecretSources } from "./known-secrets.js";
export type { ListProblemOptions } from "./problem-sink.js";
export { isSentToProvider } from "./provider-facts.js";
export { type PruneMessageListArgs, pruneMessageList } from "./prune-message-list.js";
export {
	PRUNE_MESSAGES_PLUGIN,
	PRUNE_STAGE,
	type PruneMessagesOptions,
	type PruneReasoning,
	type PruneToolCallsRule,
	type PruneToolCallsScope,
	pruneMessages,
} from "./prune-messages.js";
export { redactMessages } from "./redact-messages.js";
export {
	REDACT_SECRETS_PLUGIN,
	REDACT_STAGE,
	type RedactSecretsOptions,
	redactSecrets,
	type SecretPattern,
} from "./redact-secrets.js";
export { loadSecretlint, type SecretFinding, type SecretScanner } from "./secret-detector.js";
export { encodingsOf, MIN_EXACT_LENGTH } from "./secret-encodings.js";
export { type TrimMessageListOptions, trimMessageList } from "./trim-message-list.js";
export {
	TRIM_STAGE,
	TRIM_TO_TOKENS_PLUGIN,
	type TrimEndRole,
	type TrimStartRole,
	type TrimToTokensOptions,
	trimToTokens,
} from "./trim-to-tokens.js";
