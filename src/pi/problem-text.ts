/**
 * A conversion's problems told to a pi user. The registry's messages address library developers
 * ("register one with registry.register(…)"); inside pi the reader runs pi, and can only install an
 * extension or change a switch. So each problem says what happened to the request and which switch
 * changes it.
 */
import { CLEAR_TOOL_RESULTS_PLUGIN } from "../filters/clear-tool-results.js";
import { PRUNE_MESSAGES_PLUGIN } from "../filters/prune-messages.js";
import { REDACT_SECRETS_PLUGIN } from "../filters/redact-secrets.js";
import { TRIM_TO_TOKENS_PLUGIN } from "../filters/trim-to-tokens.js";
import { BLOCK_IMAGES_PLUGIN } from "../hooks/block-images.js";
import { ESCAPE_SUMMARIES_PLUGIN } from "../hooks/escape-summaries.js";
import { LINT_PLUGIN } from "../hooks/lint.js";
import { SAFE_FENCES_PLUGIN } from "../hooks/safe-fences.js";
import { type ConvertToLlmError, ErrorCode } from "../index.js";
import { errorText } from "../values.js";
import { FLAG, SETTINGS_KEY } from "./settings.js";

/** How a user turns a boolean switch on, in the flag and in settings.json. */
export const switchHint = (name: string): string =>
	`--${FLAG} ${name}, or "${name}": true under "${SETTINGS_KEY}" in settings.json`;

/** Where a setting lives: `"name" under "convertToLlm" in settings.json`. */
const setting = (name: string): string => `"${name}" under "${SETTINGS_KEY}" in settings.json`;

/**
 * The plugins the user's own switches turn on, by name, and the switch that changes each: a problem
 * one of them reports is the user's to act on (its message says what happened and what to do), not a
 * plugin crash to report to another extension.
 */
const SWITCH_PLUGINS: ReadonlyMap<string, string> = new Map([
	[TRIM_TO_TOKENS_PLUGIN, `the maxTokens switch (--${FLAG} maxTokens=<n>, or ${setting("maxTokens")})`],
	[REDACT_SECRETS_PLUGIN, `the redactSecrets switch (${switchHint("redactSecrets")})`],
	[PRUNE_MESSAGES_PLUGIN, `the prune switch (${setting("prune")})`],
	[
		CLEAR_TOOL_RESULTS_PLUGIN,
		`the clearToolResults switch (--${FLAG} clearToolResults[=<trigger>], or ${setting("clearToolResults")})`,
	],
	[
		BLOCK_IMAGES_PLUGIN,
		`the blockImages and strictImages switches (--${FLAG} blockImages or strictImages, or ${setting("blockImages")} or ${setting("strictImages")})`,
	],
	[LINT_PLUGIN, `the lint switch (--${FLAG} lint=report|repair|off, or ${setting("lint")})`],
	[ESCAPE_SUMMARIES_PLUGIN, `the escapeSummaries switch (${switchHint("escapeSummaries")})`],
	[SAFE_FENCES_PLUGIN, `the safeFences switch (${switchHint("safeFences")})`],
]);

/** The message a problem is about: `message 3 (role "ticket")`. */
function where(error: ConvertToLlmError): string {
	const at = error.index === undefined ? "a message" : `message ${error.index}`;
	if (error.role === undefined) return at;
	const type = error.customType === undefined ? "" : `, customType ${JSON.stringify(error.customType)}`;
	return `${at} (role ${JSON.stringify(error.role)}${type})`;
}

/**
 * What becomes of the request a problem is told for: `"sent"` (lenient: it goes out without what the
 * problem left out), `"strict"` (the strict switch withholds it), or `"withheld"` (it is withheld for
 * another reason, which the notice's first line says).
 */
export type RequestOutcome = "sent" | "strict" | "withheld";

/**
 * One problem as a pi user reads it: what it means for the request, and the switch that changes it.
 *
 * Contract: never throws; every text names the message or plugin the registry's error names (they are
 * quoted with `JSON.stringify`, and the reporter makes the line printable). A problem of a kind not
 * known here keeps the registry's message. `outcome` (or `true` for `"strict"`) says what became of
 * the request: a sent one says how to withhold such requests instead; a withheld one says nothing of
 * strict.
 *
 * @example
 * reporter.warn(ctx, conversion.problems.map((problem) => problemText(problem)));
 */
export function problemText(error: ConvertToLlmError, outcome: RequestOutcome | boolean = "sent"): string {
	const told = outcome === true ? "strict" : outcome === false ? "sent" : outcome;
	const STRICT =
		told === "strict"
			? "; strict is on, so the request is withheld"
			: told === "withheld"
				? ""
				: `; to withhold such a request instead, turn on strict (${switchHint("strict")})`;
	try {
		switch (error.code) {
			case ErrorCode.UNKNOWN_ROLE:
				return error.message.startsWith("No converter accepted")
					? `${where(error)} was left out of the request: the plugins for its role passed it on and none converted it${STRICT}.`
					: `${where(error)} was left out of the request: no extension converts this role (pi leaves roles it does not know out too). An extension that writes these messages can offer convert-to-llm a converter for them${STRICT}.`;
			case ErrorCode.CONVERSION_FAILED: {
				const own = error.plugin === undefined ? undefined : SWITCH_PLUGINS.get(error.plugin);
				// The plugin's own message says what it did and what to change (raise maxTokens, fix the counter).
				if (own !== undefined) return `${error.message} It is set with ${own}${STRICT}.`;
				if (error.plugin !== undefined) {
					return `plugin ${JSON.stringify(error.plugin)} failed on ${where(error)}${causeText(error)}; pi's own conversion was used for it, or it was left out of the request where there is none. Report it to the extension that offered the plugin${STRICT}.`;
				}
				return `${where(error)} could not be converted${causeText(error)} and was left out of the request${STRICT}.`;
			}
			case ErrorCode.INVALID_MESSAGE:
				return `${where(error)} of pi's history is not a message; it was left out of the request${STRICT}.`;
			case ErrorCode.INVALID_PLUGIN:
			case ErrorCode.DUPLICATE_CONVERTER: {
				const plugin = error.plugin === undefined ? "an offered plugin" : `plugin ${JSON.stringify(error.plugin)}`;
				return error.cause !== undefined
					? `${plugin} failed to set up${causeText(error)}. Report it to the extension that offered it; the other plugins still apply.`
					: `${plugin} cannot be used beside the others: its name, or a converter it registers, is taken. Report it to the extension that offered it; the other plugins still apply.`;
			}
			case ErrorCode.LINT:
				return `${error.message} (lint=repair drops empty messages and lint=off stops the checks: --${FLAG}, or "lint" under "${SETTINGS_KEY}" in settings.json)`;
			default:
				return error.message;
		}
	} catch {
		return "a conversion problem that could not be described; see /llm-context.";
	}
}

/** `: <what the cause said>`, or nothing. */
function causeText(error: ConvertToLlmError): string {
	return error.cause === undefined ? "" : `: ${errorText(error.cause)}`;
}
