import type { PruneMessagesOptions, PruneToolCallsRule, PruneToolCallsScope } from "../filters/prune-messages.js";
import { pruneMessages } from "../filters/prune-messages.js";
import { redactSecrets } from "../filters/redact-secrets.js";
import { trimToTokens } from "../filters/trim-to-tokens.js";
import type { Plugin } from "../registry/types.js";
import { errorText } from "../values.js";
import { CliError } from "./cli-error.js";

/** The filter options of the command line: `--prune`, `--max-tokens`, `--redact-secrets`. */
export interface CliFilterOptions {
	/** `--prune <spec>`, as given. */
	prune: string | undefined;
	/** `--max-tokens <n>`, as given. */
	maxTokens: string | undefined;
	redactSecrets: boolean;
}

/** The `--help` lines of the filter options. */
export const FILTER_HELP = `  --prune <spec>      drop thinking and tool calls as the AI SDK's pruneMessages: comma-
                      separated reasoning=<all|before-last-message|none>,
                      toolCalls=<all|before-last-message|before-last-N-messages|none>[:tool+tool]
                      (repeatable: one rule each), emptyMessages=<keep|remove>
  --max-tokens <n>    keep the latest messages that fit n tokens as pi estimates them
                      (every system message kept; LangChain's trimMessages)
  --redact-secrets    replace every secret secretlint's recommended rules find by
                      [REDACTED:<rule>] in everything the model receives
`;

/**
 * Reads a `--prune` spec into {@link PruneMessagesOptions}.
 *
 * @example
 * parsePruneSpec("reasoning=before-last-message,toolCalls=before-last-2-messages:read+bash");
 * // { reasoning: "before-last-message", toolCalls: [{ type: "before-last-2-messages", tools: ["read", "bash"] }] }
 */
export function parsePruneSpec(spec: string): PruneMessagesOptions {
	const options: { reasoning?: string; emptyMessages?: string; toolCalls?: PruneToolCallsRule[] | "none" } = {};
	for (const part of spec.split(",")) {
		const at = part.indexOf("=");
		const key = (at < 0 ? part : part.slice(0, at)).trim();
		const value = at < 0 ? "" : part.slice(at + 1).trim();
		if (value === "") throw pruneError(spec, `"${key}" has no value`);
		if (key === "reasoning" || key === "emptyMessages") {
			// One value each: a second would silently win over the first.
			if (options[key] !== undefined) throw pruneError(spec, `"${key}" is given twice`);
			options[key] = value;
		} else if (key === "toolCalls") {
			if (value === "none") {
				options.toolCalls = "none";
				continue;
			}
			const [type, tools, extra] = value.split(":") as [string, string | undefined, string | undefined];
			if (extra !== undefined)
				throw pruneError(spec, `"${value}" has more than one ":" (toolCalls=<scope>:tool+tool)`);
			const names = tools?.split("+");
			// A rule naming no tool would prune nothing, silently.
			if (names?.some((name) => name.trim() === ""))
				throw pruneError(spec, `"${value}" names an empty tool (toolCalls=<scope>:tool+tool)`);
			const rule: PruneToolCallsRule =
				names === undefined
					? { type: type as PruneToolCallsScope }
					: { type: type as PruneToolCallsScope, tools: names };
			options.toolCalls =
				options.toolCalls === "none" || options.toolCalls === undefined ? [rule] : [...options.toolCalls, rule];
		} else throw pruneError(spec, `unknown key "${key}" (reasoning, toolCalls, emptyMessages)`);
	}
	return options as PruneMessagesOptions;
}

function pruneError(spec: string, what: string): CliError {
	return new CliError(`--prune ${JSON.stringify(spec)}: ${what}. Run convert-to-llm --help for the syntax.`);
}

/** The filter plugins the options ask for, in the order they run; bad values are a {@link CliError}. */
export function filterPlugins(options: CliFilterOptions): Plugin[] {
	const plugins: Plugin[] = [];
	if (options.prune !== undefined) {
		try {
			plugins.push(pruneMessages(parsePruneSpec(options.prune)));
		} catch (error) {
			if (error instanceof CliError) throw error;
			throw pruneError(options.prune, errorText(error));
		}
	}
	if (options.maxTokens !== undefined) {
		const text = options.maxTokens.trim();
		const maxTokens = /^\d{1,15}$/.test(text) ? Number(text) : Number.NaN;
		if (Number.isNaN(maxTokens))
			throw new CliError(`--max-tokens takes a whole number of tokens, not ${JSON.stringify(options.maxTokens)}.`);
		plugins.push(trimToTokens({ maxTokens }));
	}
	if (options.redactSecrets) plugins.push(redactSecrets());
	return plugins;
}

/** The names the header lists for the filters in use. */
export function filterNames(options: CliFilterOptions): string[] {
	const names: string[] = [];
	if (options.prune !== undefined) names.push(`prune-messages (${options.prune})`);
	if (options.maxTokens !== undefined) names.push(`trim-to-tokens (${options.maxTokens})`);
	if (options.redactSecrets) names.push("redact-secrets");
	return names;
}
