/**
 * The command line parsed: `CliOptions`, `parseCliArgs`, the usage and `--help` text and the defaults of
 * `--timeout`; the filter flags are parsed in filter-options.ts.
 */
import { parseArgs } from "node:util";
import { CliError } from "./cli-error.js";
import { type CliFilterOptions, FILTER_HELP, takeClearToolResults } from "./filter-options.js";
import { DEFAULT_MAX_INPUT, parseSize } from "./read-input.js";

/** The parsed command line. */
export interface CliOptions extends CliFilterOptions {
	/** The input file, or `-` for standard input; `undefined` with `--help` / `--version`. */
	input: string | undefined;
	json: boolean;
	blockImages: boolean;
	plugins: string[];
	leaf: string | undefined;
	explain: boolean;
	strict: boolean;
	/** `--requests`: the request ledger of a session instead of the view. */
	requests: boolean;
	/** `--diff`: where two requests part, instead of the view. */
	diff: boolean;
	/** `--diff LEAF_A LEAF_B FILE`: the two leaves; `undefined` for `--diff FILE` (one leaf, two configurations). */
	diffLeaves: [string, string] | undefined;
	/** `--html [file]`: the report's file (`""`: the default name, `-`: stdout); `undefined` without it. */
	html: string | undefined;
	/** The most bytes of input read (`--max-input`, 512 MiB by default). */
	maxInput: number;
	/** How long a plugin's async work may take, in ms (`--timeout`): loading its module, an async tap. */
	timeout: number;
	help: boolean;
	version: boolean;
}

export const USAGE = "convert-to-llm [options] <file | ->";
const DIFF_USAGE = "convert-to-llm --diff [options] [<leaf-a> <leaf-b>] <file | ->";

/** `--timeout` by default: 30 s. */
export const DEFAULT_TIMEOUT_MS = 30_000;
/** The longest bound a timer takes (Node's `setTimeout` makes anything longer 1 ms). */
const MAX_TIMEOUT_MS = 2_147_483_647;

/** The text of `--help`. */
export const HELP = `convert-to-llm: see exactly what the model sees of a pi agent history.

Usage: ${USAGE}

The input is detected: a pi session file (.jsonl, format version 1, 2 or 3; read, never
written), a JSON array of AgentMessages, or JSONL of AgentMessages. "-" reads standard input.
It is converted with pi's default conversion plus your plugins, and the Message[] the model
receives is shown.

Options:
  --json              print exactly the Message[] as JSON, nothing else (with --explain:
                      the explanation as JSON)
  --block-images      replace images as pi's blockImages setting does
${FILTER_HELP}  --plugin <module>   use the plugins a module exports (default export, or a named "plugin"
                      or "plugins" export: a plugin or a list of plugins); repeatable;
                      relative paths start from the current directory
  --leaf <entryId>    the context as it was at another entry of the session tree
  --explain           for each history message, the plugin that converted it or why it was
                      dropped, and what it became; what each post-conversion hook changed
  --requests          the request ledger of a session: one row per request it recorded, with
                      the prefix it kept of the one before, what the prompt cache should have
                      done, its billed tokens and cost, and what the configuration (filters,
                      --plugin) would have cost; with --json, the rows and totals as JSON
  --diff [<a> <b>]    where two requests part: the first differing message on both sides
                      (its session entry and plugin) and a line diff inside it; with two
                      entry ids, the requests at leaves a and b; without, the request at
                      --leaf (default: the last entry) as sent and with the filters/--plugin
  --html [file]       write a self-contained HTML report instead (the history beside the
                      model input, dropped messages, hook diffs, a token chart); file:
                      a name ending in .html, or --html=<file> (--html=- for stdout);
                      default: the input's name with .html, in the current directory
  --strict            treat every problem (a skipped line, an unknown role, a failing
                      converter) as an error
  --max-input <size>  read at most this much input (default 512M; bytes, or with K, M or
                      G); the input is a regular file or - (never a device or a FIFO)
  --timeout <ms>      how long a plugin module may take to load, and an async hook to
                      settle (default 30000); past it the run fails with exit status 2
  -h, --help          show this help
  --version           print the version

Exit status: 0 converted; 1 a problem under --strict; 2 bad input or usage, a plugin
that does not settle within --timeout, or output that cannot be written. Text from the
history is shown with control characters replaced (␛, �) and invisible or bidi
characters marked (⟨U+202E⟩, a run as ⟨U+FE0F ×12⟩); lines are cut to the terminal's
width in columns.
Colour: on a terminal only; NO_COLOR turns it off, FORCE_COLOR on.

Examples:
  convert-to-llm ~/.pi/agent/sessions/--home-me-app--/2025-01-31T12-00-00-000Z_0193….jsonl
  convert-to-llm --plugin ./my-extension.mjs --explain session.jsonl
  convert-to-llm --json --block-images session.jsonl | jq '.[-1]'
  convert-to-llm --requests --max-tokens 40k --trim-step 10k session.jsonl
  convert-to-llm --diff a1b2c3d4 e5f6a7b8 session.jsonl
`;

/** Parses `argv` (without `node` and the script). Bad usage throws a {@link CliError} (exit 2). */
export function parseCliArgs(argv: readonly string[]): CliOptions {
	const { rest, html } = takeHtml(argv);
	const { rest: args, clearToolResults } = takeClearToolResults(rest);
	let parsed: ReturnType<typeof parse>;
	try {
		parsed = parse(args);
	} catch (error) {
		const code = (error as { code?: unknown } | null)?.code;
		const text = error instanceof Error ? (error.message.split("\n")[0] ?? "") : String(error);
		// Node's own text for an unknown option goes on about positionals; say it plainly.
		const option = /'([^']+)'/.exec(text)?.[1];
		const unknown = code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" ? option : undefined;
		// …and for a value that starts with "-" (`--max-tokens -1`), which it takes for another option.
		const dashed = code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE" && text.includes("ambiguous") ? option : undefined;
		const what =
			dashed !== undefined
				? `${dashed} is followed by a value that starts with "-", which reads like another option; to give that value, write it as ${dashed}=<value>.`
				: unknown === undefined
					? text.replace(/\.?$/, ".")
					: `unknown option ${unknown}.`;
		throw new CliError(`${what} Run convert-to-llm --help for the options.`);
	}
	const { values, positionals } = parsed;
	const options: CliOptions = {
		input: positionals[0],
		json: values.json === true,
		blockImages: values["block-images"] === true,
		plugins: values.plugin ?? [],
		leaf: values.leaf,
		explain: values.explain === true,
		strict: values.strict === true,
		requests: values.requests === true,
		diff: values.diff === true,
		diffLeaves: undefined,
		html,
		maxInput: DEFAULT_MAX_INPUT,
		timeout: DEFAULT_TIMEOUT_MS,
		prune: values.prune,
		pruneStep: values["prune-step"],
		clearToolResults,
		maxTokens: values["max-tokens"],
		trimStep: values["trim-step"],
		redactSecrets: values["redact-secrets"] === true,
		redactEnv: values["redact-env"] === true,
		redactEnvFiles: values["redact-env-file"] ?? [],
		help: values.help === true,
		version: values.version === true,
	};
	if (options.help || options.version) return options;
	if (positionals.length === 0) {
		throw new CliError(`no input given. Usage: ${USAGE} (run convert-to-llm --help for more).`);
	}
	if (options.diff) takeDiffLeaves(options, positionals);
	else if (positionals.length > 1) {
		throw new CliError(
			`one input at a time, got ${positionals.length}: ${positionals.map((p) => JSON.stringify(p)).join(", ")}. Usage: ${USAGE}`,
		);
	}
	if (html !== undefined && options.json) throw new CliError("--html and --json each choose the output: give one.");
	checkLedgerOptions(options);
	if (options.leaf === "") throw new CliError('--leaf needs an entry id (the "id" of a session line).');
	if (values["max-input"] !== undefined) {
		const size = parseSize(values["max-input"]);
		if (size === undefined) {
			throw new CliError(
				`--max-input takes a size in bytes, or with K, M or G (64M, 1G), not ${JSON.stringify(values["max-input"])}.`,
			);
		}
		options.maxInput = size;
	}
	if (values.timeout !== undefined) options.timeout = parseTimeout(values.timeout);
	return options;
}

/** `--diff`'s positionals: `<file>`, or `<leaf-a> <leaf-b> <file>`. */
function takeDiffLeaves(options: CliOptions, positionals: readonly string[]): void {
	if (positionals.length === 3) {
		const [a, b, input] = positionals as [string, string, string];
		if (a === "" || b === "") throw new CliError('--diff takes entry ids (the "id" of session lines), not "".');
		options.diffLeaves = [a, b];
		options.input = input;
		return;
	}
	if (positionals.length !== 1) {
		throw new CliError(
			`--diff takes a session file, or two entry ids and a session file; got ${positionals.length} arguments (${positionals.map((p) => JSON.stringify(p)).join(", ")}). Usage: ${DIFF_USAGE}`,
		);
	}
}

/** `--requests` and `--diff` each choose the output; some options do not apply to them. */
function checkLedgerOptions(options: CliOptions): void {
	const mode = options.requests ? "--requests" : options.diff ? "--diff" : undefined;
	if (mode === undefined) return;
	if (options.requests && options.diff) throw new CliError("--requests and --diff each choose the output: give one.");
	if (options.html !== undefined) throw new CliError(`${mode} and --html each choose the output: give one.`);
	if (options.explain) throw new CliError(`--explain does not apply to ${mode}.`);
	if (options.requests && options.leaf !== undefined)
		throw new CliError("--leaf does not apply to --requests: the ledger lists every request of the session.");
	if (options.diffLeaves !== undefined && options.leaf !== undefined)
		throw new CliError("--diff with two entry ids takes no --leaf: the ids are the two leaves.");
}

/** `--timeout`'s value: whole milliseconds, 1 to 2,147,483,647. */
function parseTimeout(text: string): number {
	const ms = /^[0-9]{1,10}$/.test(text) ? Number(text) : Number.NaN;
	if (ms >= 1 && ms <= MAX_TIMEOUT_MS) return ms;
	throw new CliError(
		`--timeout takes a whole number of milliseconds from 1 to ${MAX_TIMEOUT_MS} (30000 is 30 s), not ${JSON.stringify(text)}.`,
	);
}

/**
 * `--html` takes an optional file, which `parseArgs` cannot say: `--html=<file>`, or `--html` and a
 * next argument that ends in `.html` / `.htm`; otherwise the default name (`""`).
 */
function takeHtml(argv: readonly string[]): { rest: string[]; html: string | undefined } {
	const rest: string[] = [];
	let html: string | undefined;
	for (let i = 0; i < argv.length; i++) {
		const arg = argv[i] as string;
		if (arg === "--") {
			for (let j = i; j < argv.length; j++) rest.push(argv[j] as string);
			break;
		}
		if (arg.startsWith("--html=")) {
			html = arg.slice("--html=".length);
			if (html === "")
				throw new CliError("--html= needs a file name (or - for stdout); --html alone uses the default name.");
		} else if (arg === "--html") {
			const next = argv[i + 1]?.toLowerCase();
			const named = next !== undefined && !next.startsWith("-") && (next.endsWith(".html") || next.endsWith(".htm"));
			html = named ? (argv[++i] as string) : "";
		} else rest.push(arg);
	}
	return { rest, html };
}

const parse = (argv: readonly string[]) =>
	parseArgs({
		args: [...argv],
		allowPositionals: true,
		strict: true,
		options: {
			json: { type: "boolean" },
			"block-images": { type: "boolean" },
			plugin: { type: "string", multiple: true },
			leaf: { type: "string" },
			explain: { type: "boolean" },
			requests: { type: "boolean" },
			diff: { type: "boolean" },
			strict: { type: "boolean" },
			"max-input": { type: "string" },
			timeout: { type: "string" },
			prune: { type: "string" },
			"prune-step": { type: "string" },
			"max-tokens": { type: "string" },
			"trim-step": { type: "string" },
			"redact-secrets": { type: "boolean" },
			"redact-env": { type: "boolean" },
			"redact-env-file": { type: "string", multiple: true },
			help: { type: "boolean", short: "h" },
			version: { type: "boolean" },
		},
	});
