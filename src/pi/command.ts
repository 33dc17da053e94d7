/**
 * `/llm-context [--json | --html]`: what the next request sends, as convert-to-llm makes it of pi's session
 * context. In the TUI a scrollable panel; in RPC mode the plain text as a notification; in print and
 * JSON modes on stderr (pi keeps stdout for its own output there, and sends extensions' stdout writes
 * to stderr anyway).
 */
import { writeSessionReport } from "../report/html-report.js";
import { errorText } from "../values.js";
import { escapeJsonForTerminal } from "../view/style.js";
import { EXTENSION_NAME, type Host } from "./host.js";
import { showPanel } from "./panel.js";
import type { PiContext } from "./pi-api.js";
import { type Reporter, showAll } from "./report.js";
import { sessionHistory } from "./session-history.js";
import { hardeningText } from "./settings.js";
import { loadTuiColumns } from "./tui-columns.js";
import { viewJson, viewLines } from "./view.js";

/** The command's name: pi has no built-in `/llm-context`. */
export const COMMAND = "llm-context";

/** Runs the command: never throws (a failure is shown as an error). */
export async function runCommand(host: Host, reporter: Reporter, args: string, ctx: PiContext): Promise<void> {
	try {
		const json = args.trim() === "--json";
		const { messages, entryIds, contextEdits, tree } = sessionHistory(ctx.sessionManager);
		const { registry, plugins, problems } = host.build("view");
		const explanation = await registry.explainAsync(messages);
		const named = plugins.map(({ plugin, from }) => `${plugin.name} (${from})`);
		const hardening = hardeningText(host.hardening());
		// Every current configuration problem, however many the notices cut: the notices send the user here.
		const warnings = [...new Set([...reporter.notes(), ...problems])];
		const columns = await loadTuiColumns();
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
				width,
			});
		if (args.trim() === "--html") {
			const facts = [...lines(PLAIN_WIDTH).slice(0, 2), ...warnings.map((warning) => `warning: ${warning}`)];
			const where = writeSessionReport({
				facts,
				messages,
				explanation,
				entryIds,
				contextEdits,
				tree,
				sessionFile: ctx.sessionManager.getSessionFile(),
				leafId: ctx.sessionManager.getLeafId?.(),
				cwd: ctx.cwd,
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
