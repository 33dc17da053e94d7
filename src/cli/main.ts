/**
 * `convert-to-llm [options] <file | ->`: what the model sees of a pi history, and why.
 */
import { version } from "../../package.json";
import { ConvertToLlmError } from "../errors.js";
import { blockImages } from "../hooks/block-images.js";
import { createDefaultRegistry } from "../preset.js";
import type { Explanation, Registry } from "../registry/types.js";
import { type CliOptions, HELP, parseCliArgs } from "./args.js";
import { CliError, ExitCode } from "./cli-error.js";
import { explanationToJson, renderExplanation } from "./explain-view.js";
import { type LoadedInput, loadInput } from "./input.js";
import { type LoadedPlugins, loadPlugins } from "./plugins.js";
import { format, renderFooter, renderMessages, totals } from "./render.js";
import { createStyle, oneLine, type Style, sanitize, wantsColor } from "./style.js";

/** The outside world of one CLI run, so that tests can run it in-process. */
export interface CliIo {
	/** The arguments after `node` and the script. */
	argv: readonly string[];
	cwd: string;
	env: Readonly<Record<string, string | undefined>>;
	stdout: { write(text: string): unknown; isTTY?: boolean; columns?: number };
	stderr: { write(text: string): unknown };
	readStdin(): Promise<string>;
}

/** Warnings printed before "… and N more". */
const MAX_WARNINGS = 10;

/**
 * Runs the CLI and returns its exit status: 0 converted, 1 a problem under `--strict`, 2 bad input
 * or usage. Never throws: every failure is one line on stderr, without a stack trace.
 */
export async function main(io: CliIo): Promise<number> {
	try {
		return await run(io);
	} catch (error) {
		if (error instanceof CliError) {
			io.stderr.write(`convert-to-llm: ${oneLine(error.message)}\n`);
			return error.exitCode;
		}
		const text = error instanceof Error ? error.message : String(error);
		if (error instanceof ConvertToLlmError) {
			io.stderr.write(`convert-to-llm: ${oneLine(text)} (--strict)\n`);
			return ExitCode.PROBLEM;
		}
		io.stderr.write(
			`convert-to-llm: unexpected error: ${oneLine(text)}. Please report it with the command you ran.\n`,
		);
		return ExitCode.PROBLEM;
	}
}

async function run(io: CliIo): Promise<number> {
	const options = parseCliArgs(io.argv);
	if (options.help) {
		io.stdout.write(HELP);
		return ExitCode.OK;
	}
	if (options.version) {
		io.stdout.write(`${version}\n`);
		return ExitCode.OK;
	}
	const input = await loadInput({
		spec: options.input as string,
		cwd: io.cwd,
		readStdin: io.readStdin,
		leaf: options.leaf,
	});
	const loaded = await loadPlugins(options.plugins, io.cwd);
	const registry = createRegistryFor(options, loaded);
	const warnings = input.problems.map(oneLine);
	if (options.strict && warnings.length > 0) {
		throw new CliError(`${warnings[0]} (--strict)`, ExitCode.PROBLEM);
	}
	if (!options.strict)
		registry.hooks.error.tap("convert-to-llm:cli", (error) => warnings.push(oneLine(error.message)));

	const style = createStyle(!options.json && wantsColor(io.stdout.isTTY, io.env));
	if (options.json && !options.explain) {
		// The fast path, and exactly `convertAsync`: strict registries throw here.
		const output = await registry.convertAsync(input.messages);
		io.stdout.write(`${JSON.stringify(output, null, 2)}\n`);
		writeWarnings(io, warnings, false);
		return ExitCode.OK;
	}
	// The view names the source of each output, so it always runs explain (its output is convert's).
	const explanation = await registry.explainAsync(input.messages);
	for (const error of explanation.errors) warnings.push(oneLine(error.message));
	if (options.strict && !options.explain && explanation.errors.length > 0) {
		throw new CliError(`${warnings[0]} (--strict)`, ExitCode.PROBLEM);
	}
	if (options.json) {
		io.stdout.write(`${explanationToJson(explanation)}\n`);
	} else {
		const width = Math.max(40, io.stdout.isTTY ? (io.stdout.columns ?? 100) : 120);
		const sources = sourcesOf(explanation, input);
		const lines = [...header(input, loaded, options, style), ""];
		const counts = totals(explanation.output);
		for (const line of renderMessages(explanation.output, counts, { style, width, sources })) lines.push(line);
		if (options.explain) {
			lines.push("");
			for (const line of renderExplanation(explanation, input.messages, input.session?.entryIds, style)) {
				lines.push(line);
			}
		}
		lines.push("");
		for (const line of renderFooter(counts, input.messages.length, style)) lines.push(line);
		io.stdout.write(`${lines.join("\n")}\n`);
	}
	writeWarnings(io, warnings, options.explain);
	if (options.strict && explanation.errors.length > 0) return ExitCode.PROBLEM;
	return ExitCode.OK;
}

/** For each output, the role (and session entry) of the history message it came from. */
function sourcesOf(explanation: Explanation, input: LoadedInput): (string | undefined)[] {
	const sources: (string | undefined)[] = [];
	const ids = input.session?.entryIds;
	const matches = ids !== undefined && ids.length === explanation.messages.length;
	for (const item of explanation.messages) {
		const role =
			item.customType === undefined ? sanitize(item.role) : `${sanitize(item.role)}:${sanitize(item.customType)}`;
		const label = matches ? `${role} ${sanitize(ids[item.index])}` : `${role} [${item.index}]`;
		for (const output of item.outputs) sources[output] = label;
	}
	return sources;
}

function createRegistryFor(options: CliOptions, loaded: readonly LoadedPlugins[]): Registry {
	const registry = createDefaultRegistry({ strict: options.strict });
	for (const { spec, plugins } of loaded) {
		for (const plugin of plugins) {
			try {
				registry.use(plugin);
			} catch (error) {
				const text = error instanceof Error ? error.message : String(error);
				throw new CliError(`plugin "${plugin.name}" from "${spec}" failed to apply: ${oneLine(text)}`);
			}
		}
	}
	if (options.blockImages) registry.use(blockImages({ enabled: true }));
	return registry;
}

function header(input: LoadedInput, loaded: readonly LoadedPlugins[], options: CliOptions, style: Style): string[] {
	const parts = [style.bold(sanitize(input.name))];
	const session = input.session;
	if (session !== undefined) {
		parts.push(`pi session v${sanitize(session.version)}`);
		const leaf = session.leafId === null ? "no leaf" : `leaf ${sanitize(session.leafId)}`;
		parts.push(`${leaf} (${format(session.pathLength)} of ${format(session.entries)} entries on its path)`);
		if (session.model !== null) parts.push(`${sanitize(session.model.provider)}/${sanitize(session.model.modelId)}`);
		if (session.thinkingLevel !== "off") parts.push(`thinking ${sanitize(session.thinkingLevel)}`);
	} else {
		parts.push(`${input.kind === "json" ? "JSON" : "JSONL"} of ${format(input.messages.length)} AgentMessages`);
	}
	const plugins = ["pi's default preset"];
	for (const { spec, plugins: list } of loaded) {
		plugins.push(`${list.map((p) => sanitize(p.name)).join(", ")} (${sanitize(spec)})`);
	}
	if (options.blockImages) plugins.push("block-images");
	return [parts.join(style.dim(" · ")), style.dim(`converted with ${plugins.join(" + ")}`)];
}

function writeWarnings(io: CliIo, warnings: readonly string[], explained: boolean): void {
	const shown = warnings.slice(0, MAX_WARNINGS);
	for (const warning of shown) io.stderr.write(`convert-to-llm: warning: ${warning}\n`);
	if (warnings.length > shown.length) {
		const hint = explained ? "" : " (run with --explain to see each message's fate)";
		io.stderr.write(`convert-to-llm: … and ${warnings.length - shown.length} more warnings${hint}\n`);
	}
}
