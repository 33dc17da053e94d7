/**
 * How the extension tells the user about problems: as pi shows extension warnings, with
 * `ctx.ui.notify(…, "warning" | "error")` where pi has a UI (TUI and RPC modes), and on stderr in
 * print and JSON modes, where stdout belongs to pi's output. Each problem is made one printable line
 * (`oneLine`: controls shown, not sent; long quoted values cut), as the CLI's warnings are.
 */
import { oneLine } from "../view/style.js";
import type { PiContext } from "./pi-api.js";

/** Problems shown at once before "… and N more". */
const MAX_SHOWN = 5;

/**
 * The extension's reporter, one per pi runtime.
 *
 * Contract: `warn` shows each distinct problem once per runtime (the same unknown role on every
 * request is said once); `error` always shows. Neither throws.
 *
 * @example
 * const reporter = createReporter(); reporter.warn(ctx, ["lint [empty-message]: …"]);
 */
export interface Reporter {
	warn(ctx: PiContext, problems: readonly string[]): void;
	error(ctx: PiContext, problems: readonly string[]): void;
}

export function createReporter(): Reporter {
	const seen = new Set<string>();
	return {
		warn(ctx, problems) {
			const fresh = problems.filter((problem) => !seen.has(problem));
			for (const problem of fresh) seen.add(problem);
			show(ctx, fresh, "warning");
		},
		error: (ctx, problems) => show(ctx, problems, "error"),
	};
}

function show(ctx: PiContext, problems: readonly string[], level: "warning" | "error"): void {
	if (problems.length === 0) return;
	// A problem quotes the history (a role, an id): one sanitized line each, as the CLI prints its warnings.
	const lines = problems.slice(0, MAX_SHOWN).map((line) => `convert-to-llm: ${oneLine(line)}`);
	if (problems.length > MAX_SHOWN)
		lines.push(`convert-to-llm: … and ${problems.length - MAX_SHOWN} more (see /llm-context)`);
	const text = lines.join("\n");
	try {
		if (ctx.hasUI) ctx.ui.notify(text, level);
		else process.stderr.write(`${text}\n`);
	} catch {
		// Nowhere left to report to; the request itself has already been decided.
	}
}
