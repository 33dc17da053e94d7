import { parseArgs } from "node:util";
import { CliError } from "./cli-error.js";
import { type CliFilterOptions, FILTER_HELP } from "./filter-options.js";
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
	/** The most bytes of input read (`--max-input`, 512 MiB by default). */
	maxInput: number;
	help: boolean;
	version: boolean;
}

export const USAGE = "convert-to-llm [options] <file | ->";

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
  --strict            treat every problem (a skipped line, an unknown role, a failing
                      converter) as an error
  --max-input <size>  read at most this much input (default 512M; bytes, or with K, M or
                      G); the input is a regular file or - (never a device or a FIFO)
  -h, --help          show this help
  --version           print the version

Exit status: 0 converted; 1 a problem under --strict; 2 bad input or usage, a plugin
that never settles, or output that cannot be written. Text from the history is shown
with control characters replaced (␛, �) and invisible or bidi characters marked (⟨U+202E⟩).
Colour: on a terminal only; NO_COLOR turns it off, FORCE_COLOR on.

Examples:
  convert-to-llm ~/.pi/agent/sessions/--home-me-app--/2025-01-31T12-00-00-000Z_0193….jsonl
  convert-to-llm --plugin ./my-extension.mjs --explain session.jsonl
  convert-to-llm --json --block-images session.jsonl | jq '.[-1]'
`;

/** Parses `argv` (without `node` and the script). Bad usage throws a {@link CliError} (exit 2). */
export function parseCliArgs(argv: readonly string[]): CliOptions {
	let parsed: ReturnType<typeof parse>;
	try {
		parsed = parse(argv);
	} catch (error) {
		const code = (error as { code?: unknown } | null)?.code;
		const text = error instanceof Error ? (error.message.split("\n")[0] ?? "") : String(error);
		// Node's own text for an unknown option goes on about positionals; say it plainly.
		const unknown = code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" ? /'([^']+)'/.exec(text)?.[1] : undefined;
		const what = unknown === undefined ? text.replace(/\.?$/, ".") : `unknown option ${unknown}.`;
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
		maxInput: DEFAULT_MAX_INPUT,
		prune: values.prune,
		maxTokens: values["max-tokens"],
		redactSecrets: values["redact-secrets"] === true,
		help: values.help === true,
		version: values.version === true,
	};
	if (options.help || options.version) return options;
	if (positionals.length === 0) {
		throw new CliError(`no input given. Usage: ${USAGE} (run convert-to-llm --help for more).`);
	}
	if (positionals.length > 1) {
		throw new CliError(
			`one input at a time, got ${positionals.length}: ${positionals.map((p) => JSON.stringify(p)).join(", ")}. Usage: ${USAGE}`,
		);
	}
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
	return options;
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
			strict: { type: "boolean" },
			"max-input": { type: "string" },
			prune: { type: "string" },
			"max-tokens": { type: "string" },
			"redact-secrets": { type: "boolean" },
			help: { type: "boolean", short: "h" },
			version: { type: "boolean" },
		},
	});
