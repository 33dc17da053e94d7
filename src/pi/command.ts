/**
 * `/llm-context [--json | --html]`: what the next request sends, as convert-to-llm makes it of pi's session
 * context. In the TUI a scrollable panel; in RPC mode the plain text as a notification; in print and
 * JSON modes on stderr (pi keeps stdout for its own output there, and sends extensions' stdout writes
 * to stderr anyway).
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { writeSessionReport } from "../report/html-report.js";
import { errorText } from "../values.js";
import { escapeJsonForTerminal } from "../view/style.js";
import { EXTENSION_NAME, type Host } from "./host.js";
import { showPanel } from "./panel.js";
import type { PiContext, PiSessionManager } from "./pi-api.js";
import type { Reporter } from "./report.js";
import { hardeningText } from "./settings.js";
import { viewJson, viewLines } from "./view.js";

/** The command's name: pi has no built-in `/llm-context`. */
export const COMMAND = "llm-context";

/** The session's history as pi builds it for the next request, and each message's entry where pi says. */
export function sessionHistory(sessionManager: PiSessionManager): { messages: AgentMessage[]; entryIds?: string[] } {
	// pi's AgentMessage of either line; the registry checks each message it is given.
	if (typeof sessionManager.buildSessionContext !== "function") {
		throw new Error("this pi's session manager cannot build the session context");
	}
	const messages = sessionManager.buildSessionContext().messages as AgentMessage[];
	if (typeof sessionManager.buildSessionProjection !== "function") return { messages };
	const entryIds: string[] = [];
	for (const entry of sessionManager.buildSessionProjection().entries) {
		for (let i = 0; i < entry.messages.length; i++) entryIds.push(entry.sourceEntry.id);
	}
	return entryIds.length === messages.length ? { messages, entryIds } : { messages };
}

/** Runs the command: never throws (a failure is shown as an error). */
export async function runCommand(host: Host, reporter: Reporter, args: string, ctx: PiContext): Promise<void> {
	try {
		const json = args.trim() === "--json";
		const { messages, entryIds } = sessionHistory(ctx.sessionManager);
		const { registry, plugins, problems } = host.build();
		const explanation = await registry.explainAsync(messages);
		const named = plugins.map(({ plugin, from }) => `${plugin.name} (${from})`);
		const hardening = hardeningText(host.hardening());
		const lines = (width: number): string[] =>
			viewLines({
				messages,
				explanation,
				entryIds,
				sessionFile: ctx.sessionManager.getSessionFile(),
				leafId: ctx.sessionManager.getLeafId?.(),
				plugins: named,
				hardening,
				width,
			});
		if (args.trim() === "--html") {
			const facts = lines(PLAIN_WIDTH).slice(0, 2);
			const where = writeSessionReport({
				facts,
				messages,
				explanation,
				entryIds,
				sessionFile: ctx.sessionManager.getSessionFile(),
				leafId: ctx.sessionManager.getLeafId?.(),
				cwd: ctx.cwd,
			});
			write(
				ctx,
				`/${COMMAND}: wrote the HTML report to ${where.path} (${(where.bytes / 1024).toFixed(1)} KB); open it in a browser.`,
			);
		} else if (json)
			write(ctx, forTerminal(ctx) ? escapeJsonForTerminal(viewJson(explanation)) : viewJson(explanation));
		else if (!(isTui(ctx) && (await showPanel(ctx, `${EXTENSION_NAME} · /${COMMAND}`, lines)))) {
			write(ctx, lines(PLAIN_WIDTH).join("\n"));
		}
		reporter.warn(ctx, problems);
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
