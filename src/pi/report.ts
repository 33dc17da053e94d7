/**
 * How the extension tells the user about problems: as pi shows extension warnings, with
 * `ctx.ui.notify(…, "warning" | "error")` where pi has a UI (TUI and RPC modes), and on stderr in
 * print and JSON modes, where stdout belongs to pi's output.
 */
import { EXTENSION_NAME } from "./host.js";
import type { PiContext } from "./pi-api.js";

/** Problems shown per request before "… and N more". */
const MAX_SHOWN = 5;

/** Shows `problems` (one line each), at most {@link MAX_SHOWN} of them; never throws. */
export function report(ctx: PiContext, problems: readonly string[], level: "warning" | "error" = "warning"): void {
	if (problems.length === 0) return;
	const shown = problems.slice(0, MAX_SHOWN).map((line) => `${EXTENSION_NAME}: ${line}`);
	if (problems.length > MAX_SHOWN)
		shown.push(`${EXTENSION_NAME}: … and ${problems.length - MAX_SHOWN} more (see /llm-context)`);
	const text = shown.join("\n");
	try {
		if (ctx.hasUI) ctx.ui.notify(text, level);
		else process.stderr.write(`${text}\n`);
	} catch {
		// Nowhere left to report to; the request itself has already been decided.
	}
}
