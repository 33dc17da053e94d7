/**
 * `convert-to-llm [options] <file | ->`: what the model sees of a pi history, and why.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { version } from "../../package.json";
import { AsyncHookTimeoutError, ConvertToLlmError } from "../errors.js";
import type { Explanation, Plugin, Registry } from "../registry/types.js";
import type { ReadFile } from "../report/report-file.js";
import type { BillsOfRequest } from "../report/session-bills.js";
import type { TapSnapshots } from "../report/tap-snapshots.js";
import { errorText, isInstance } from "../values.js";
import { createStyle, escapeJsonForTerminal, oneLine, shown, wantsColor } from "../view/style.js";
import type { RequestTokenFigures } from "../view/token-figures.js";
import { type CliOptions, HELP, parseCliArgs } from "./args.js";
import { CliError, codeOf, ExitCode, isStackOverflow, thrownText, writeFailed } from "./cli-error.js";
import { header } from "./header.js";
import { type LoadedInput, loadInput } from "./input.js";
import { jsonPieces } from "./json-output.js";
import { type LoadedPlugins, loadPlugins } from "./plugins.js";
import { changesConversion, createRegistryFor } from "./registry-for.js";
import { warningText, writeWarnings } from "./warnings.js";

/** The outside world of one CLI run, so that tests can run it in-process. */
export interface CliIo {
	/** The arguments after `node` and the script. */
	argv: readonly string[];
	cwd: string;
	env: Readonly<Record<string, string | undefined>>;
	stdout: { write(text: string): unknown; isTTY?: boolean; columns?: number };
	stderr: { write(text: string): unknown };
	/** Reads standard input; may refuse (a {@link CliError}) once it passes `maxBytes`. */
	readStdin(maxBytes: number): Promise<string>;
	/** Standard input as a stream; when given, it is read as it arrives (bounded too) instead of `readStdin`. */
	stdin?: AsyncIterable<unknown>;
	/**
	 * Told, as the run goes on, what to say should it stop there: should the process run out of work
	 * with the run unsettled (a plugin's promise that never settles), that line is the error.
	 */
	pending?(message: string): void;
}

/**
 * Runs the CLI and returns its exit status: 0 converted, 1 a problem under `--strict`, 2 bad input
 * or usage. Never throws: every failure is one line on stderr, without a stack trace.
 */
export async function main(io: CliIo): Promise<number> {
	try {
		return await run(io);
	} catch (error) {
		const { message, exitCode } = classify(error);
		io.stderr.write(`convert-to-llm: ${message}\n`);
		return exitCode;
	}
}

/** What to say about anything `run` threw, and the exit status; never throws (see `isInstance`). */
function classify(error: unknown): { message: string; exitCode: number } {
	if (isInstance(error, CliError)) return { message: oneLine(error.message), exitCode: error.exitCode };
	if (isInstance(error, ConvertToLlmError)) {
		// As a warning would say it (warningText), cut and ended as errorText ends a thrown error's text.
		return { message: `${oneLine(errorText(new Error(warningText(error))))} (--strict)`, exitCode: 1 };
	}
	if (isStackOverflow(error)) {
		return {
			message:
				"the history is nested too deeply to convert or show (JavaScript ran out of stack). Flatten the deepest value, or leave that message out.",
			exitCode: ExitCode.BAD_INPUT,
		};
	}
	return {
		message: `unexpected error: ${oneLine(thrownText(error))}. Please report it with the command you ran.`,
		exitCode: ExitCode.PROBLEM,
	};
}

/** The error for a run an async tap did not let finish: nothing is printed, as nothing was converted. */
function notFinished(error: AsyncHookTimeoutError, timeoutMs: number): CliError {
	const plugin = error.plugin === undefined ? "a plugin" : `plugin "${shown(error.plugin)}"`;
	return new CliError(
		`the conversion did not finish: an afterConvertAsync tap of ${plugin} did not settle within ${timeoutMs} ms (--timeout). Nothing was printed, since that tap may be the one that redacts. Fix the plugin, leave out its --plugin, or raise --timeout.`,
	);
}

async function run(io: CliIo): Promise<number> {
	const options = parseCliArgs(io.argv);
	if (options.help) return write(io, HELP);
	if (options.version) return write(io, `${version}\n`);
	if (options.requests || options.diff) {
		const { ledgerCommand } = await import("./ledger-command.js");
		const { text, warnings } = await ledgerCommand(io, options);
		const code = write(io, text);
		writeWarnings(io, warnings, true);
		return code;
	}
	// What only --html needs is loaded here; a report that would overwrite what the run reads is
	// refused before anything is read.
	const report = options.html === undefined ? undefined : await import("../report/html-report.js");
	const reportTo = report === undefined ? undefined : reportPath(io, options, report);
	const input = await loadInput({
		spec: options.input as string,
		cwd: io.cwd,
		readStdin: io.readStdin,
		stdin: io.stdin,
		leaf: options.leaf,
		maxBytes: options.maxInput,
		// The report's history column shows the session's path, and the view's and the report's token
		// figures come from the session's bills (the ledger): both from this one read.
		tree: !options.json || options.explain,
	});
	const loaded = await loadPlugins(
		options.plugins,
		io.cwd,
		(spec) =>
			io.pending?.(
				`plugin module "${spec}" never finished loading (it awaits a promise that never settles). Fix the module, or leave out --plugin ${spec}.`,
			),
		options.timeout,
	);
	const { registry, redaction } = createRegistryFor(options, loaded, io);
	// Raw texts: only the warnings shown are made into lines.
	const warnings: string[] = [...input.problems];
	if (options.strict && warnings.length > 0) {
		throw new CliError(`${warnings[0]} (--strict)`, ExitCode.PROBLEM);
	}
	// A tap that did not settle within --timeout leaves the run unfinished, strict or not.
	let timedOut: AsyncHookTimeoutError | undefined;
	const finished = async <T>(work: Promise<T>, errors: (result: T) => readonly unknown[]): Promise<T> => {
		let result: T;
		try {
			result = await work;
		} catch (error) {
			// A strict registry rejects with it.
			if (isInstance(error, AsyncHookTimeoutError)) throw notFinished(error, options.timeout);
			throw error;
		}
		for (const error of errors(result)) if (isInstance(error, AsyncHookTimeoutError)) timedOut ??= error;
		if (timedOut !== undefined) throw notFinished(timedOut, options.timeout);
		return result;
	};
	if (!options.strict) {
		registry.hooks.error.tap("convert-to-llm:cli", (error) => {
			if (isInstance(error, AsyncHookTimeoutError)) timedOut ??= error;
			warnings.push(warningText(error));
		});
	}

	io.pending?.(
		"the conversion never finished: a plugin's async hook (an afterConvertAsync tap) returned a promise that never settles. Fix that plugin, or leave out its --plugin.",
	);
	const json = (text: string): string => (io.stdout.isTTY === true ? escapeJsonForTerminal(text) : text);
	if (options.json && !options.explain) {
		// The fast path, and exactly `convertAsync`: strict registries throw here.
		const output = await finished(registry.convertAsync(input.messages), () => []);
		// In pieces (json-output.ts), unless a plugin's message might have a toJSON that reads its key,
		// or a terminal shows the text (escaped whole, and short).
		const code =
			options.plugins.length === 0 && io.stdout.isTTY !== true
				? writePieces(
						io,
						jsonPieces(output, (values, at) => stringify(() => JSON.stringify(values, null, 2), at)),
					)
				: writeWhole(io, json(stringify(() => JSON.stringify(output, null, 2))));
		writeWarnings(io, warnings, false);
		return code;
	}
	// A report's registry is this run's own: it may observe each post-conversion tap.
	const snapshots = report?.observeTaps(registry);
	// The view names the source of each output, so it always runs explain (its output is convert's).
	const explanation = await finished(registry.explainAsync(input.messages), (result) => result.errors);
	for (const error of explanation.errors) warnings.push(warningText(error));
	if (options.strict && !options.explain && explanation.errors.length > 0) {
		throw new CliError(`${warnings[0]} (--strict)`, ExitCode.PROBLEM);
	}
	if (report !== undefined) {
		const code = await writeReport(io, options, input, loaded, explanation, snapshots, report, {
			to: reportTo,
			redaction,
		});
		writeWarnings(io, warnings, true);
		return options.strict && explanation.errors.length > 0 ? ExitCode.PROBLEM : code;
	}
	let code: number;
	const tokens = (await billsOf(input, explanation, undefined, "view")).figures;
	if (options.json) {
		const { explanationToJson } = await import("../view/explain-view.js");
		code = write(io, `${json(stringify(() => explanationToJson(explanation, tokens)))}\n`);
	} else code = write(io, `${(await view(io, options, input, loaded, explanation, tokens)).join("\n")}\n`);
	writeWarnings(io, warnings, options.explain);
	if (options.strict && explanation.errors.length > 0) return ExitCode.PROBLEM;
	return code;
}

async function view(
	io: CliIo,
	options: CliOptions,
	input: LoadedInput,
	loaded: readonly LoadedPlugins[],
	explanation: Explanation,
	tokens: RequestTokenFigures,
): Promise<string[]> {
	const [{ renderConversion }, { terminalColumns }, { fitStyled }] = await Promise.all([
		import("../view/view.js"),
		import("./terminal-columns.js"),
		import("../view/columns.js"),
	]);
	const style = createStyle(wantsColor(io.stdout.isTTY, io.env));
	const width = Math.max(40, io.stdout.isTTY ? (io.stdout.columns ?? 100) : 120);
	const columns = terminalColumns();
	const lines = [...header(input, loaded, options, style), ""];
	const body = renderConversion({
		explanation,
		messages: input.messages,
		entryIds: input.session?.entryIds,
		contextEdits: input.session?.contextEdits,
		explain: options.explain,
		style,
		width,
		columns,
		problemText: warningText,
		tokens,
	});
	for (const line of body) lines.push(line);
	// On a terminal every line fits its width: the header and footer too, not only the messages' lines.
	if (!io.stdout.isTTY) return lines;
	// The view is laid out for 40 columns at least; a narrower terminal still gets lines that fit it.
	const terminal = Math.max(1, Math.min(width, io.stdout.columns ?? width));
	return lines.map((line) => fitStyled(line, terminal, columns));
}

/**
 * The token figures of the request shown, from the session's bills (report/session-bills.ts); with
 * `configuration`, the ledger also models what that configuration would have been billed (on
 * sessions of at most `LEDGER_REQUESTS_SHOWN` requests).
 */
async function billsOf(
	input: LoadedInput,
	explanation: Explanation,
	configuration: { name: string; registry: Registry } | undefined,
	reader: "view" | "report",
): Promise<BillsOfRequest> {
	const [{ billsOfRequest }, { totals }] = await Promise.all([
		import("../report/session-bills.js"),
		import("../view/render.js"),
	]);
	const session = input.session?.tree?.session;
	const source =
		session !== undefined
			? { session, file: input.name }
			: {
					why:
						input.kind === "session" ? "the session was read without its tree" : "the input is not a pi session",
				};
	return billsOfRequest(source, explanation.output, totals(explanation.output).tokens, configuration, reader);
}

/**
 * Where `--html` writes (`undefined` for stdout), refused at once when it is a file this run reads:
 * the input (by its path, a symlink or a hard link to it; standard input redirected from it) or a
 * plugin module given as a file; for stdout, when it is redirected onto one of those.
 */
function reportPath(
	io: CliIo,
	options: CliOptions,
	report: typeof import("../report/html-report.js"),
): { path: string; reads: ReadFile[] } | undefined {
	const spec = options.input as string;
	const reads: ReadFile[] = [];
	const input = spec === "-" ? report.readDescriptor(0, "stdin") : report.readFile(resolve(io.cwd, spec), spec);
	if (input !== undefined) reads.push(input);
	for (const plugin of options.plugins) {
		const file = resolve(io.cwd, plugin);
		const read = existsSync(file) ? report.readFile(file, plugin) : undefined;
		if (read !== undefined) reads.push(read);
	}
	const path =
		options.html === "-"
			? undefined
			: options.html === ""
				? report.defaultReportPath(spec, io.cwd)
				: resolve(io.cwd, options.html as string);
	try {
		// Standard output redirected onto the session (`>> s.jsonl`) is refused as a path would be.
		if (path === undefined) report.refuseReadOutput(1, reads);
		else report.refuseRead(path, reads);
	} catch (error) {
		if (isInstance(error, report.ReportPathError)) throw new CliError(error.message);
		throw error;
	}
	return path === undefined ? undefined : { path, reads };
}

/** `--html`: the report, to its file (saying where) or to stdout (`--html=-`). */
async function writeReport(
	io: CliIo,
	options: CliOptions,
	input: LoadedInput,
	loaded: readonly LoadedPlugins[],
	explanation: Explanation,
	snapshots: TapSnapshots | undefined,
	report: typeof import("../report/html-report.js"),
	where: { to: { path: string; reads: ReadFile[] } | undefined; redaction: Plugin | undefined },
): Promise<number> {
	const { to, redaction } = where;
	// The ledger chart models the configuration of this run when it changes the conversion, as --requests does.
	const configuration = changesConversion(options)
		? {
				name: (await import("./ledger-command.js")).configurationName(options, loaded),
				registry: createRegistryFor(options, loaded, io).registry,
			}
		: undefined;
	const bills = await billsOf(input, explanation, configuration, "report");
	const reportInput = {
		title: input.name,
		facts: header(input, loaded, options, createStyle(false)),
		messages: input.messages,
		explanation,
		entryIds: input.session?.entryIds,
		contextEdits: input.session?.contextEdits,
		tree: input.session?.tree,
		snapshots,
		problems: input.problems,
		problemText: warningText,
		window: await report.contextWindowOf(input.session?.model ?? report.lastModel(input.messages)),
		tokens: bills.figures,
		ledger: bills.ledger === undefined ? { why: bills.why ?? "the session has no ledger" } : bills.ledger,
	};
	const redact = redaction === undefined ? undefined : { plugin: redaction };
	let stopped: number | undefined;
	try {
		if (to === undefined) {
			const out = {
				write(text: string) {
					if (stopped !== undefined) return;
					try {
						io.stdout.write(text);
					} catch (error) {
						stopped = outputFailed(error);
					}
				},
			};
			await report.writeHtmlReport(reportInput, { out }, redact);
			return stopped ?? ExitCode.OK;
		}
		const { bytes } = await report.writeHtmlReport(reportInput, to, redact);
		const size = `${(bytes / 1024).toFixed(1)} KB`;
		return write(io, `wrote ${to.path} (${size}); open it in a browser: ${pathToFileURL(to.path).href}\n`);
	} catch (error) {
		if (isInstance(error, CliError)) throw error;
		if (
			isInstance(error, report.ReportPathError) ||
			isInstance(error, report.ReportTooLargeError) ||
			isInstance(error, report.ReportRedactionError)
		) {
			throw new CliError(error.message);
		}
		if (to !== undefined && codeOf(error) !== undefined) {
			throw new CliError(`cannot write the report to "${to.path}": ${thrownText(error)}`);
		}
		throw error;
	}
}

/**
 * `JSON.stringify`, with a history too deep for it said in one line; `written`, when the output is
 * written in pieces (json-output.ts), is how many messages were written before these.
 */
function stringify(serialize: () => string, written = 0): string {
	try {
		return serialize();
	} catch (error) {
		if (!isStackOverflow(error)) throw error;
		if (written === 0) {
			throw new CliError(
				"the converted messages are nested too deeply to write as JSON (JavaScript ran out of stack). Flatten the deepest value, or leave that message out.",
			);
		}
		throw new CliError(
			`a converted message at #${written} or after is nested too deeply to write as JSON (JavaScript ran out of stack). The output stops after the first ${written.toLocaleString("en-US")} messages, and is not valid JSON. Flatten the deepest value, or leave that message out.`,
		);
	}
}

/** The text and its newline, as two writes: one string of both would be copied whole to join them. */
function writeWhole(io: CliIo, text: string): number {
	const code = write(io, text);
	if (code === ExitCode.OK) write(io, "\n");
	return code;
}

/** Each piece in turn, as {@link write} writes it; a reader that went away stops the writing. */
function writePieces(io: CliIo, pieces: Iterable<string>): number {
	for (const piece of pieces) {
		try {
			io.stdout.write(piece);
		} catch (error) {
			return outputFailed(error);
		}
	}
	return ExitCode.OK;
}

/**
 * Writes to stdout and gives the exit status: a reader that went away (`EPIPE`, `| head`) is not an
 * error; any other failure (`ENOSPC`) is one line and exit 2. (The binary also sees failures that a
 * stream reports later, as an `error` event: see process-run.ts.)
 */
function write(io: CliIo, text: string): number {
	try {
		io.stdout.write(text);
		return ExitCode.OK;
	} catch (error) {
		return outputFailed(error);
	}
}

/** A failed write of the output: exit 0 when its reader went away (`EPIPE`), else one line and exit 2. */
function outputFailed(error: unknown): number {
	if (codeOf(error) === "EPIPE") return ExitCode.OK;
	throw writeFailed(error);
}
