export { estimateTokens, IMAGE_CHARS } from "./estimate-tokens.js";
export { isSecretName, type KnownSecretSources } from "./known-secrets.js";
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
export {
	TRIM_STAGE,
	TRIM_TO_TOKENS_PLUGIN,
	type TrimStartRole,
	type TrimToTokensOptions,
	trimToTokens,
} from "./trim-to-tokens.js";
