/**
 * `/llm-context [--json | --html]`: what the next request sends, as convert-to-llm makes it of pi's session
 * context. In the TUI a scrollable panel; in RPC mode the plain text as a notification; in print and
 * JSON modes on stderr (pi keeps stdout for its own output there, and sends extensions' stdout writes
 * to stderr anyway).
 */
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { errorText } from "../values.js";
import { escapeJsonForTerminal, oneLine } from "../view/style.js";
import { EXTENSION_NAME, type Host } from "./host.js";
import { writeLlmContextReport } from "./llm-context-report.js";
import { type NextSystem, pendingSystemMessage } from "./next-system.js";
import { showPanel } from "./panel.js";
import type { PiContext } from "./pi-api.js";
import { type Outlook, outlookLines } from "./prompt-cache.js";
import { type Reporter, showAll } from "./report.js";
import { sessionHistory } from "./session-history.js";
import { currentContextWindow, modelOf, type SessionRequests } from "./session-requests.js";
import { hardeningText } from "./settings.js";
import { loadTuiColumns } from "./tui-columns.js";
import { type BesideSystem, viewJson, viewLines } from "./view.js";

/** The command's name: pi has no built-in `/llm-context`. */
export const COMMAND = "llm-context";

/**
 * Where the next request's system prompt and tools come from: pi 1.x keeps them in the transcript
 * (`transcript: true`), pi 0.73.1 sends them beside the messages; `read` asks pi for them, and
 * `preview` passes a 0.73.1 prompt as the extension's `before_agent_start` handler will (redacted
 * while `redactSecrets` is on).
 */
export interface SystemSource {
	transcript: boolean;
	read(ctx: PiContext): NextSystem | undefined;
	preview(prompt: string): Promise<string>;
}

/** The session entry shown for the system message pi 1.x adds at the next prompt (it has none yet). */
export const NEXT_PROMPT_ENTRY = "(at the next prompt)";

/**
 * Runs the command: never throws (a failure is shown as an error). With a `system` source, the view
 * holds the system prompt and tools of the next request even before pi sends them: on pi 1.x the
 * system message pi adds before the next prompt (a new or resumed session, AGENTS.md changed), on pi
 * 0.73.1 the prompt and tools it sends beside the messages (`--json` prints the messages alone, as
 * pi's request event carries them). With the session's `requests`, the view (and the HTML report's
 * facts) end with what the next request reuses of the last one sent and its tokens by each counter
 * (see {@link outlookLines}).
 */
export async function runCommand(
	host: Host,
	reporter: Reporter,
	args: string,
	ctx: PiContext,
	system?: SystemSource,
	requests?: SessionRequests,
): Promise<void> {
	try {
		const json = args.trim() === "--json";
		const history = sessionHistory(ctx.sessionManager);
		const { contextEdits, tree, model } = history;
		let { messages, entryIds } = history;
		const next = system?.read(ctx);
		let beside: BesideSystem | undefined;
		if (system !== undefined && next !== undefined) {
			if (system.transcript) {
				const pending = pendingSystemMessage(messages, next, Date.now());
				if (pending !== undefined) {
					messages = [...messages, pending as unknown as AgentMessage];
					entryIds = entryIds === undefined ? undefined : [...entryIds, NEXT_PROMPT_ENTRY];
				}
			} else beside = { prompt: await system.preview(next.prompt), tools: next.tools };
		}
		const { registry, plugins, problems, redaction } = host.build("view", currentContextWindow(ctx));
		const explanation = await registry.explainAsync(messages);
		const named = plugins.map(({ plugin, from }) => `${plugin.name} (${from})`);
		const hardening = hardeningText(host.hardening());
		// Every current configuration problem, however many the notices cut: the notices send the user here.
		const warnings = [...new Set([...reporter.notes(), ...problems])];
		const columns = await loadTuiColumns();
		const cache =
			requests === undefined || json
				? undefined
				: outlookLines(await outlookOf(host, requests, messages, ctx, beside !== undefined));
		const lines = (width: number): string[] =>
			viewLines({
				messages,
				explanation,
				entryIds,
				contextEdits,
				columns,
				sessionFile: ctx.sessionManager.getSessionFile(),
				leafId: ctx.sessionManager.getLeafId?.(),
				plugins: named,
				hardening,
				warnings,
				beside,
				cache,
				width,
			});
		if (args.trim() === "--html") {
			const facts = [...lines(PLAIN_WIDTH).slice(0, 2), ...warnings.map((warning) => `warning: ${warning}`)];
			if (beside !== undefined) facts.push(besideFact(beside));
			for (const line of cache?.slice(1) ?? []) facts.push(line);
			// With redaction on, the report redacts its own text with the conversion's redaction, or is not written.
			const redacts = redaction !== undefined || host.hardening().redactSecrets === true;
			const where = await writeLlmContextReport(ctx, {
				facts,
				messages,
				explanation,
				entryIds,
				contextEdits,
				redaction: redacts ? { plugin: redaction } : undefined,
				tree,
				model,
			});
			write(
				ctx,
				`/${COMMAND}: wrote the HTML report to ${where.path} (${(where.bytes / 1024).toFixed(1)} KB); open it in a browser.`,
			);
		} else if (json) {
			write(ctx, forTerminal(ctx) ? escapeJsonForTerminal(viewJson(explanation)) : viewJson(explanation));
			// The Message[] alone is the output; the problems follow it as warnings (stderr in print mode).
			showAll(ctx, warnings, "warning");
		} else if (!(isTui(ctx) && (await showPanel(ctx, `${EXTENSION_NAME} · /${COMMAND}`, lines, columns)))) {
			write(ctx, lines(PLAIN_WIDTH).join("\n"));
		}
		// --json listed them all already.
		if (!json) reporter.warn(ctx, problems);
	} catch (error) {
		reporter.error(ctx, [`/${COMMAND} failed: ${errorText(error)}`]);
	}
}

/**
 * What the next request keeps of the last one sent and what it costs: the history converted as a
 * request is (the request's registry, not the view's: pi's own image rule applies after it) against
 * the conversion sent last to the same model. A dry run: nothing is remembered of it.
 */
async function outlookOf(
	host: Host,
	requests: SessionRequests,
	messages: readonly AgentMessage[],
	ctx: PiContext,
	beside: boolean,
): Promise<Outlook> {
	const model = modelOf(ctx);
	const previous = requests.previous(model);
	const { plugins } = host.build("view", currentContextWindow(ctx));
	const context = {
		hardening: host.hardening(),
		offeredBy: new Map(plugins.map((item) => [item.plugin.name, item.from])),
	};
	const common = { counter: requests.counter(), model, lastBill: requests.lastBill(), context, beside };
	let next: Outlook["next"];
	try {
		const conversion = await host
			.build("request", currentContextWindow(ctx))
			.registry.runAsync(messages, { previous });
		next = conversion.failed
			? { failed: conversion.problems.at(-1)?.message ?? "it failed" }
			: { output: conversion.output, prefix: conversion.prefix };
	} catch (error) {
		next = { failed: errorText(error) };
	}
	return { ...common, next, previousLength: previous?.output.length };
}

/** The report's fact for what pi 0.73.1 sends beside the messages: the prompt's size and the tools. */
function besideFact(beside: BesideSystem): string {
	const tools = beside.tools.map((tool) => tool.name).join(", ");
	return oneLine(
		`beside the messages (pi 0.73.1): a system prompt of ${beside.prompt.length.toLocaleString("en-US")} characters${tools === "" ? "" : ` and the tools ${tools}`}`,
	);
}

/** Columns of the plain-text view (RPC notifications, stderr), as the CLI's when not on a terminal. */
const PLAIN_WIDTH = 120;

/** Whether pi shows a TUI. pi 0.73.1 has no ctx.mode: there the panel is tried wherever there is a UI, and RPC mode declines it. */
const isTui = (ctx: PiContext): boolean => ctx.mode === "tui" || (ctx.mode === undefined && ctx.hasUI);

/**
 * Whether the text goes to a person's terminal (pi's TUI, or stderr on a TTY in print mode): there
 * `--json` escapes C1 and bidi characters as `convert-to-llm --json` does on a TTY. An RPC
 * notification and piped stderr get the JSON byte for byte.
 */
const forTerminal = (ctx: PiContext): boolean => (ctx.hasUI ? isTui(ctx) : process.stderr.isTTY === true);

/** Plain text: a notification where pi has a UI, else stderr. */
function write(ctx: PiContext, text: string): void {
	if (ctx.hasUI) ctx.ui.notify(text, "info");
	else process.stderr.write(`${text}\n`);
}
