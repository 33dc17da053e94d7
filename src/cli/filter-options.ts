import { readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { envFileNames } from "../filters/known-secrets.js";
import type { PruneMessagesOptions, PruneToolCallsRule, PruneToolCallsScope } from "../filters/prune-messages.js";
import { pruneMessages } from "../filters/prune-messages.js";
import { redactSecrets } from "../filters/redact-secrets.js";
import { trimToTokens } from "../filters/trim-to-tokens.js";
import type { Plugin } from "../registry/types.js";
import { errorText } from "../values.js";
import { CliError } from "./cli-error.js";

/**
 * The filter options of the command line: `--prune`, `--max-tokens`, `--redact-secrets`,
 * `--redact-env`, `--redact-env-file`.
 */
export interface CliFilterOptions {
	/** `--prune <spec>`, as given. */
	prune: string | undefined;
	/** `--max-tokens <n>`, as given. */
	maxTokens: string | undefined;
	redactSecrets: boolean;
	/** `--redact-env`: the environment's secret-like variables and the current directory's `.env*` files, as known secrets. */
	redactEnv?: boolean;
	/** `--redact-env-file <path>` (repeatable): `.env`-format files whose secret-like values are known secrets. */
	redactEnvFiles?: readonly string[];
}

/** The `--help` lines of the filter options. */
export const FILTER_HELP = `  --prune <spec>      drop thinking and tool calls as the AI SDK's pruneMessages: comma-
                      separated reasoning=<all|before-last-message|none>,
                      toolCalls=<all|before-last-message|before-last-N-messages|none>[:tool+tool]
                      (repeatable: one rule each), emptyMessages=<keep|remove>
  --max-tokens <n>    keep the latest messages that fit n tokens as pi estimates them
                      (every system message kept; LangChain's trimMessages)
  --redact-secrets    replace every secret secretlint's recommended rules find by
                      [REDACTED:<kind>#<n>] in everything the model receives
  --redact-env        --redact-secrets, and also replace wherever they occur the values
                      of this environment's secret-like variables (*_KEY, *_TOKEN,
                      *_SECRET, *PASSWORD…) and of the .env* files of the current directory
  --redact-env-file <path>  --redact-secrets, and also replace the secret-like values of
                      this .env-format file (repeatable)
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

/** Where the CLI runs: its directory and its environment (`--redact-env` reads both). */
export interface CliPlace {
	readonly cwd: string;
	readonly env: Readonly<Record<string, string | undefined>>;
}

/** The filter plugins the options ask for, in the order they run; bad values are a {@link CliError}. */
export function filterPlugins(options: CliFilterOptions, place?: CliPlace): Plugin[] {
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
	const envFiles = options.redactEnvFiles ?? [];
	if (options.redactEnv === true && envFiles.length > 0)
		throw new CliError(
			"--redact-env reads every .env* file of the current directory already: leave out --redact-env-file.",
		);
	const cwd = place?.cwd ?? process.cwd();
	if (options.redactEnv === true) {
		let names: string[];
		try {
			names = envFileNames(
				readdirSync(cwd, { withFileTypes: true })
					.filter((e) => e.isFile())
					.map((e) => e.name),
			);
		} catch (error) {
			throw new CliError(`--redact-env could not list the current directory: ${errorText(error)}.`);
		}
		const env = place?.env ?? process.env;
		plugins.push(redactSecrets({ env: { ...env }, envFiles: names.map((name) => join(cwd, name)) }));
	} else if (envFiles.length > 0)
		plugins.push(redactSecrets({ envFiles: envFiles.map((path) => resolve(cwd, path)) }));
	else if (options.redactSecrets) plugins.push(redactSecrets());
	return plugins;
}

/** The names the header lists for the filters in use. */
export function filterNames(options: CliFilterOptions): string[] {
	const names: string[] = [];
	if (options.prune !== undefined) names.push(`prune-messages (${options.prune})`);
	if (options.maxTokens !== undefined) names.push(`trim-to-tokens (${options.maxTokens})`);
	const envFiles = options.redactEnvFiles ?? [];
	if (options.redactEnv === true) names.push("redact-secrets (env, .env*)");
	else if (envFiles.length > 0) names.push(`redact-secrets (${envFiles.join(", ")})`);
	else if (options.redactSecrets) names.push("redact-secrets");
	return names;
}
