/**
 * The filter flags of the command line (`--prune`, `--clear-tool-results`, `--max-tokens`, `--redact-*`, …):
 * their help lines, their parsing, and the filter plugins they make; its own file so the main parser stays short.
 */
import { readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { type ClearToolResultsOptions, type ClearTrigger, clearToolResults } from "../filters/clear-tool-results.js";
import { parseTrigger } from "../filters/clear-tool-results-options.js";
import { envFileNames } from "../filters/known-secrets.js";
import type { PruneMessagesOptions, PruneToolCallsRule, PruneToolCallsScope } from "../filters/prune-messages.js";
import { pruneMessages } from "../filters/prune-messages.js";
import { redactSecrets } from "../filters/redact-secrets.js";
import { trimToTokens } from "../filters/trim-to-tokens.js";
import type { Plugin } from "../registry/types.js";
import { errorText } from "../values.js";
import { CliError } from "./cli-error.js";

/**
 * The filter options of the command line: `--prune`, `--prune-step`, `--clear-tool-results`,
 * `--max-tokens`, `--trim-step`, `--redact-secrets`, `--redact-env`, `--redact-env-file`.
 */
export interface CliFilterOptions {
	/** `--prune <spec>`, as given. */
	prune: string | undefined;
	/** `--prune-step <n>`, as given: the `step` of `pruneMessages`, in messages. */
	pruneStep?: string | undefined;
	/** `--clear-tool-results[=<spec>]`, as given: `""` alone (the defaults), `undefined` without it. */
	clearToolResults?: string | undefined;
	/** `--max-tokens <n>`, as given. */
	maxTokens: string | undefined;
	/** `--trim-step <n>`, as given: the `step` of `trimToTokens`, in tokens. */
	trimStep?: string | undefined;
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
  --prune-step <n>    with --prune: move its toolCalls windows in steps of n messages, so
                      the prompt cache keeps the request's prefix in between
  --clear-tool-results
                      clear old tool results as LangChain's ClearToolUsesEdit, in cache-
                      stable steps (from 100000 tokens on, all but the last 3, in steps of
                      at least 10000 tokens); --clear-tool-results=<spec> sets the options:
                      a JSON object of them, or comma-separated trigger=<tokens>|tokens:<n>|
                      messages:<n>|fraction:<f> (+ joins; repeatable: any), keep=<n>|
                      tokens:<n>, excludeTools=<a+b>, clearAtLeast=<n>, when=<always|
                      cache-cold>, cacheLifetimeMs=<n>, contextWindow=<n>, placeholder=<text>,
                      clearToolInputs, keepImages
  --max-tokens <n>    keep the latest messages that fit n tokens as pi estimates them
                      (every system message kept; LangChain's trimMessages); n as
                      120000, 120_000, 120k, 1.5M or 1e5
  --trim-step <n>     with --max-tokens: move the start of the kept messages in steps
                      of n tokens (a quarter of --max-tokens, say), so the prompt cache
                      keeps the request's prefix in between
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

const CLEAR_FLAG = "--clear-tool-results";

/**
 * Takes `--clear-tool-results` and `--clear-tool-results=<spec>` out of `argv` (its value is
 * optional, which `parseArgs` cannot say); everything from `--` on is left as it is.
 */
export function takeClearToolResults(argv: readonly string[]): {
	rest: string[];
	clearToolResults: string | undefined;
} {
	const rest: string[] = [];
	let clear: string | undefined;
	for (let i = 0; i < argv.length; i++) {
		const arg = argv[i] as string;
		if (arg === "--") {
			for (let j = i; j < argv.length; j++) rest.push(argv[j] as string);
			break;
		}
		if (arg === CLEAR_FLAG || arg.startsWith(`${CLEAR_FLAG}=`)) {
			if (clear !== undefined) throw new CliError(`${CLEAR_FLAG} is given twice; give it once.`);
			clear = arg.slice(CLEAR_FLAG.length + 1);
		} else rest.push(arg);
	}
	return { rest, clearToolResults: clear };
}

const NUMBER = /^\d{1,15}(\.\d{1,15})?$/;

function clearNumber(spec: string, key: string, text: string): number {
	if (!NUMBER.test(text)) throw clearError(spec, `${key} takes a number, not ${JSON.stringify(text)}`);
	return Number(text);
}

/** One trigger condition ({@link parseTrigger}), or the spec refused with what is wrong with it. */
function clearTrigger(spec: string, value: string): ClearTrigger {
	const parsed = parseTrigger(value);
	if ("problem" in parsed) throw clearError(spec, parsed.problem);
	return parsed.condition;
}

/**
 * Reads a `--clear-tool-results` spec into {@link ClearToolResultsOptions}: a JSON object (the
 * options as a settings file holds them), or comma-separated `key=value` pairs named as the options.
 *
 * @example
 * parseClearSpec("trigger=80000,trigger=messages:200,keep=5,excludeTools=todo+plan,clearToolInputs");
 * // { trigger: [{ tokens: 80000 }, { messages: 200 }], keep: { messages: 5 }, excludeTools: ["todo", "plan"], clearToolInputs: true }
 */
export function parseClearSpec(spec: string): ClearToolResultsOptions {
	if (spec.trim() === "") return {};
	if (spec.trimStart().startsWith("{")) {
		try {
			return JSON.parse(spec) as ClearToolResultsOptions;
		} catch (error) {
			throw clearError(spec, `it is not valid JSON (${errorText(error)})`);
		}
	}
	const options: Record<string, unknown> = {};
	const triggers: ClearTrigger[] = [];
	for (const part of spec.split(",")) {
		const at = part.indexOf("=");
		const key = (at < 0 ? part : part.slice(0, at)).trim();
		const value = at < 0 ? undefined : part.slice(at + 1).trim();
		if (key === "clearToolInputs" || key === "keepImages") {
			if (value !== undefined && value !== "true" && value !== "false")
				throw clearError(spec, `${key} is true or false (or alone), not ${JSON.stringify(value)}`);
			options[key] = value !== "false";
			continue;
		}
		if (value === undefined || value === "") throw clearError(spec, `"${key}" has no value`);
		if (key !== "trigger" && options[key] !== undefined) throw clearError(spec, `"${key}" is given twice`);
		if (key === "trigger") triggers.push(clearTrigger(spec, value));
		else if (key === "keep") {
			const tokens = value.startsWith("tokens:");
			const count = value.startsWith("messages:") ? value.slice("messages:".length) : value;
			options.keep = tokens
				? { tokens: clearNumber(spec, "keep", value.slice("tokens:".length)) }
				: { messages: clearNumber(spec, "keep", count) };
		} else if (key === "excludeTools") options.excludeTools = value.split("+");
		else if (key === "placeholder" || key === "when") options[key] = value;
		else if (key === "clearAtLeast" || key === "cacheLifetimeMs" || key === "contextWindow")
			options[key] = clearNumber(spec, key, value);
		else
			throw clearError(
				spec,
				`unknown key "${key}" (trigger, keep, excludeTools, clearToolInputs, placeholder, keepImages, clearAtLeast, when, cacheLifetimeMs, contextWindow)`,
			);
	}
	if (triggers.length > 0) options.trigger = triggers.length === 1 ? triggers[0] : triggers;
	return options as ClearToolResultsOptions;
}

function clearError(spec: string, what: string): CliError {
	return new CliError(`${CLEAR_FLAG}=${JSON.stringify(spec)}: ${what}. Run convert-to-llm --help for the syntax.`);
}

/** Where the CLI runs: its directory and its environment (`--redact-env` reads both). */
export interface CliPlace {
	readonly cwd: string;
	readonly env: Readonly<Record<string, string | undefined>>;
}

/** The filter plugins the options ask for, in the order they run; bad values are a {@link CliError}. */
export function filterPlugins(options: CliFilterOptions, place?: CliPlace): Plugin[] {
	const plugins: Plugin[] = [];
	if (options.pruneStep !== undefined && options.prune === undefined)
		throw new CliError("--prune-step sets the step of --prune: give --prune too.");
	if (options.trimStep !== undefined && options.maxTokens === undefined)
		throw new CliError("--trim-step sets the step of --max-tokens: give --max-tokens too.");
	if (options.prune !== undefined) {
		const step =
			options.pruneStep === undefined ? undefined : parseCount(options.pruneStep, "--prune-step", "messages");
		if (step === 0) throw new CliError("--prune-step takes 1 message or more, not 0.");
		try {
			plugins.push(pruneMessages({ ...parsePruneSpec(options.prune), ...(step === undefined ? {} : { step }) }));
		} catch (error) {
			if (error instanceof CliError) throw error;
			throw pruneError(options.prune, errorText(error));
		}
	}
	if (options.clearToolResults !== undefined) {
		try {
			plugins.push(clearToolResults(parseClearSpec(options.clearToolResults)));
		} catch (error) {
			if (error instanceof CliError) throw error;
			throw clearError(options.clearToolResults, errorText(error));
		}
	}
	if (options.maxTokens !== undefined) {
		const maxTokens = parseCount(options.maxTokens, "--max-tokens", "tokens");
		const step = options.trimStep === undefined ? undefined : parseCount(options.trimStep, "--trim-step", "tokens");
		if (step !== undefined && !(step >= 1 && step <= maxTokens))
			throw new CliError(
				`--trim-step takes from 1 token to --max-tokens (${maxTokens}), not ${JSON.stringify(options.trimStep)}; a quarter of --max-tokens keeps most of the prompt cache.`,
			);
		plugins.push(trimToTokens({ maxTokens, ...(step === undefined ? {} : { step }) }));
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

/** The largest count a flag takes (beyond it, a double no longer holds every whole number). */
const MAX_COUNT = Number.MAX_SAFE_INTEGER;
const SUFFIX_EXPONENT: ReadonlyMap<string, number> = new Map([
	["k", 3],
	["m", 6],
]);

/**
 * A whole number of tokens or messages as a person types it: `120000`, `120_000`, `120,000`, `120k`,
 * `1.5M`, `1e5` (`k` and `M` in either case). Anything else, a fraction of one, a negative number or
 * more than 2^53 - 1 is a {@link CliError} naming the flag and the forms it takes.
 *
 * @example
 * parseCount("1.5M", "--max-tokens", "tokens"); // 1500000
 */
export function parseCount(text: string, flag: string, unit: string): number {
	const refuse = (why: string) =>
		new CliError(
			`${flag} takes a whole number of ${unit} (120000, 120_000, 120,000, 120k, 1.5M or 1e5), not ${JSON.stringify(text)}${why}.`,
		);
	let rest = text.trim().toLowerCase();
	const shift = SUFFIX_EXPONENT.get(rest.slice(-1)) ?? 0;
	if (shift > 0) rest = rest.slice(0, -1);
	// Digit groups: "_" anywhere between digits (as in code), "," in groups of three (as in prose).
	if (/^\d+(?:_\d+)+(?:\.\d+)?$/.test(rest)) rest = rest.replaceAll("_", "");
	else if (/^\d{1,3}(?:,\d{3})+(?:\.\d+)?$/.test(rest)) rest = rest.replaceAll(",", "");
	const match = /^(\d+(?:\.\d*)?|\.\d+)(?:e([+-]?\d{1,3}))?$/.exec(rest);
	if (match === null || (shift > 0 && match[2] !== undefined)) throw refuse("");
	const value = Number(`${match[1]}e${Number(match[2] ?? 0) + shift}`);
	if (!Number.isInteger(value)) throw refuse(Number.isFinite(value) ? ", which is not a whole number" : "");
	if (value > MAX_COUNT) throw refuse(`, which is more than ${MAX_COUNT}`);
	return value;
}

/** The names the header lists for the filters in use. */
export function filterNames(options: CliFilterOptions): string[] {
	const names: string[] = [];
	const step = (given: string | undefined) => (given === undefined ? "" : `, step ${given}`);
	if (options.prune !== undefined) names.push(`prune-messages (${options.prune}${step(options.pruneStep)})`);
	if (options.clearToolResults !== undefined)
		names.push(
			options.clearToolResults === "" ? "clear-tool-results" : `clear-tool-results (${options.clearToolResults})`,
		);
	if (options.maxTokens !== undefined) names.push(`trim-to-tokens (${options.maxTokens}${step(options.trimStep)})`);
	const envFiles = options.redactEnvFiles ?? [];
	if (options.redactEnv === true) names.push("redact-secrets (env, .env*)");
	else if (envFiles.length > 0) names.push(`redact-secrets (${envFiles.join(", ")})`);
	else if (options.redactSecrets) names.push("redact-secrets");
	return names;
}
