/**
 * `--requests` and `--diff`: the CLI's front end of the ledger. Reads the options, calls one entrance
 * (`requestLedger`, `requestDiff`) with the session as it arrives, and turns the answer into text,
 * warnings and an exit status; how the session is read is the ledger's.
 */
import { resolve } from "node:path";
import { InvalidSessionError } from "../errors.js";
import type { LedgerSource, RequestLedger } from "../ledger/index.js";
import { piModelTable, requestDiff, requestLedger, UnknownLeafError } from "../ledger/index.js";
import { createDefaultRegistry } from "../preset.js";
import { isInstance } from "../values.js";
import { createStyle, escapeJsonForTerminal, wantsColor } from "../view/style.js";
import type { CliOptions } from "./args.js";
import { CliError, ExitCode } from "./cli-error.js";
import { diffView } from "./diff-view.js";
import { filterNames } from "./filter-options.js";
import { type LoadedPlugins, loadPlugins } from "./plugins.js";
import { changesConversion, createRegistryFor } from "./registry-for.js";
import { requestsTable } from "./requests-table.js";
import { terminalColumns } from "./terminal-columns.js";

/** What the command needs of the CLI's outside world. */
export interface LedgerIo {
	cwd: string;
	env: Readonly<Record<string, string | undefined>>;
	stdout: { isTTY?: boolean; columns?: number };
	readStdin(maxBytes: number): Promise<string>;
	stdin?: AsyncIterable<unknown>;
	pending?(message: string): void;
}

/** The command's answer: the text for stdout, warnings for stderr, and the exit status. */
export interface LedgerOutput {
	text: string;
	warnings: string[];
}

/** Runs `--requests` or `--diff`; bad input and usage are a {@link CliError}. */
export async function ledgerCommand(io: LedgerIo, options: CliOptions): Promise<LedgerOutput> {
	const loaded = await loadPlugins(options.plugins, io.cwd, undefined, options.timeout);
	const source = await sourceOf(io, options);
	io.pending?.(
		"the ledger never finished: a plugin's async hook (an afterConvertAsync tap) returned a promise that never settles. Fix that plugin, or leave out its --plugin.",
	);
	try {
		return options.requests ? await requests(io, options, loaded, source) : await diff(io, options, loaded, source);
	} catch (error) {
		if (isInstance(error, InvalidSessionError)) {
			// A file that cannot be read at all is said as the session reader says it.
			if (error.line === undefined && error.message.startsWith("cannot read ")) throw new CliError(error.message);
			throw new CliError(
				`${options.requests ? "--requests" : "--diff"} reads a pi session file (.jsonl), and this is not one: ${error.message}`,
			);
		}
		if (error instanceof UnknownLeafError) {
			const last = error.lastEntryId === null ? "" : ` (the last one is ${JSON.stringify(error.lastEntryId)})`;
			throw new CliError(
				`${quote(source.file ?? "stdin")} has no entry with id ${JSON.stringify(error.leafId)}. Pick the "id" of one of its lines${last}.`,
			);
		}
		throw error;
	}
}

async function requests(
	io: LedgerIo,
	options: CliOptions,
	loaded: readonly LoadedPlugins[],
	source: LedgerSource,
): Promise<LedgerOutput> {
	const configuration = changesConversion(options)
		? { name: configurationName(options, loaded), registry: createRegistryFor(options, loaded, io).registry }
		: undefined;
	const ledger = await requestLedger(source, { configuration, models: piModelTable() });
	const warnings = ledger.problems.map((problem) =>
		problem.count > 1
			? `${problem.message} (${problem.count} requests, e.g. ${problem.entryIds.join(", ")})`
			: problem.message,
	);
	if (ledger.totals.failed > 0) {
		const first = ledger.problems.find((problem) => problem.kind === "conversion")?.message ?? "";
		throw new CliError(
			`${plural(ledger.totals.failed)} could not be converted, so the ledger would be wrong and is not printed: ${first}. Fix the plugin, leave out its --plugin, or raise --timeout.`,
		);
	}
	if (options.strict && warnings.length > 0) throw new CliError(`${warnings[0]} (--strict)`, ExitCode.PROBLEM);
	if (options.json) return { text: jsonText(io, ledger), warnings };
	const style = createStyle(wantsColor(io.stdout.isTTY, io.env));
	const width = io.stdout.isTTY === true ? Math.max(40, io.stdout.columns ?? 100) : undefined;
	const name = source.file ?? "stdin";
	const lines = requestsTable(ledger, { name, style, columns: terminalColumns(), width });
	return { text: `${lines.join("\n")}\n`, warnings };
}

async function diff(
	io: LedgerIo,
	options: CliOptions,
	loaded: readonly LoadedPlugins[],
	source: LedgerSource,
): Promise<LedgerOutput> {
	const leaves = options.diffLeaves;
	let sides: Parameters<typeof requestDiff>[1];
	if (leaves !== undefined) {
		const name = changesConversion(options) ? configurationName(options, loaded) : "as sent";
		sides = [
			{ leafId: leaves[0], registry: createRegistryFor(options, loaded, io).registry, label: name },
			{ leafId: leaves[1], registry: createRegistryFor(options, loaded, io).registry, label: name },
		];
	} else {
		if (!changesConversion(options)) {
			throw new CliError(
				"--diff with one session compares the request as sent with the one your options make: give --max-tokens, --prune, --redact-secrets, --block-images or --plugin; or give two entry ids before the file (--diff <leaf-a> <leaf-b> <file>).",
			);
		}
		sides = [
			{ leafId: options.leaf, registry: createDefaultRegistry(), label: "as sent" },
			{
				leafId: options.leaf,
				registry: createRegistryFor(options, loaded, io).registry,
				label: configurationName(options, loaded),
			},
		];
	}
	const result = await requestDiff(source, sides);
	const warnings = [...result.problems];
	if (options.strict && warnings.length > 0) throw new CliError(`${warnings[0]} (--strict)`, ExitCode.PROBLEM);
	if (options.json) return { text: jsonText(io, result), warnings };
	const style = createStyle(wantsColor(io.stdout.isTTY, io.env));
	const width = io.stdout.isTTY === true ? Math.max(40, io.stdout.columns ?? 100) : undefined;
	const lines = diffView(result, { name: source.file ?? "stdin", style, columns: terminalColumns(), width });
	return { text: `${lines.join("\n")}\n`, warnings };
}

/** The session as it arrives: a regular file read in chunks (bounded), or standard input. */
async function sourceOf(io: LedgerIo, options: CliOptions): Promise<LedgerSource> {
	const spec = options.input as string;
	if (spec !== "-") return { path: resolve(io.cwd, spec), file: spec, maxBytes: options.maxInput };
	if (io.stdin !== undefined) return { chunks: io.stdin, file: "stdin", maxBytes: options.maxInput };
	return { text: await io.readStdin(options.maxInput), file: "stdin" };
}

/** The configuration as the header names it: the plugins, in the order they apply. */
export function configurationName(options: CliOptions, loaded: readonly LoadedPlugins[]): string {
	const parts: string[] = [];
	for (const { plugins } of loaded) for (const plugin of plugins) parts.push(plugin.name);
	if (options.blockImages) parts.push("block-images");
	for (const name of filterNames(options)) parts.push(name);
	return parts.join(" + ");
}

/** JSON of a result, escaped for a terminal as `--json` is. */
function jsonText(io: LedgerIo, value: RequestLedger | object): string {
	const text = JSON.stringify(value, null, 2);
	return `${io.stdout.isTTY === true ? escapeJsonForTerminal(text) : text}\n`;
}

const plural = (count: number): string => `${count} request${count === 1 ? "" : "s"}`;
const quote = (name: string): string => (name === "stdin" ? "stdin" : `"${name}"`);
