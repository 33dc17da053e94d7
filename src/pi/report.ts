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
 * request is said once), at most five in one notice and "… and N more (see /llm-context)" for the
 * rest, which `notes` then keeps; `configuration` shows the configuration's problems (settings.json
 * and the flag, read at session start) as `warn` does and keeps them, replacing the last ones, so
 * that `/llm-context` lists every one however many there are; `error` always shows. None throws.
 *
 * @example
 * const reporter = createReporter(); reporter.warn(ctx, ["lint [empty-message]: …"]);
 * reporter.configuration(ctx, readHardening(pi).problems); reporter.notes(); // for /llm-context
 */
export interface Reporter {
	warn(ctx: PiContext, problems: readonly string[]): void;
	error(ctx: PiContext, problems: readonly string[]): void;
	/** The configuration's current problems: shown as `warn` shows them, and kept for `notes`. */
	configuration(ctx: PiContext, problems: readonly string[]): void;
	/**
	 * What `/llm-context` lists besides the registry's own problems: the configuration's current
	 * problems, then each problem a notice left out past the fifth, each once, in the order they came.
	 */
	notes(): string[];
}

export function createReporter(): Reporter {
	const seen = new Set<string>();
	// The problems a notice did not show ("… and N more"): the notice sends the user to /llm-context for them.
	const held = new Set<string>();
	let configured: readonly string[] = [];
	const warn = (ctx: PiContext, problems: readonly string[]): void => {
		const fresh = problems.filter((problem) => !seen.has(problem));
		for (const problem of fresh) seen.add(problem);
		for (const problem of fresh.slice(MAX_SHOWN)) held.add(problem);
		show(ctx, fresh, "warning");
	};
	return {
		warn,
		error: (ctx, problems) => {
			// What the notice leaves out is kept for /llm-context, as for warnings.
			for (const problem of problems.slice(MAX_SHOWN)) held.add(problem);
			show(ctx, problems, "error");
		},
		configuration(ctx, problems) {
			configured = [...problems];
			warn(ctx, problems);
		},
		notes: () => [...new Set([...configured, ...held])],
	};
}

function show(ctx: PiContext, problems: readonly string[], level: "warning" | "error"): void {
	const lines = problems.slice(0, MAX_SHOWN);
	if (problems.length > MAX_SHOWN) lines.push(`… and ${problems.length - MAX_SHOWN} more (see /llm-context)`);
	showAll(ctx, lines, level);
}

/**
 * Every one of `problems` in one notice (where pi has a UI, else on stderr), each a printable line
 * after "convert-to-llm: "; nothing when there are none. Never throws.
 */
export function showAll(ctx: PiContext, problems: readonly string[], level: "warning" | "error"): void {
	if (problems.length === 0) return;
	// A problem quotes the history (a role, an id): one sanitized line each, as the CLI prints its warnings.
	const text = problems.map((line) => `convert-to-llm: ${oneLine(line)}`).join("\n");
	try {
		if (ctx.hasUI) ctx.ui.notify(text, level);
		else process.stderr.write(`${text}\n`);
	} catch {
		// Nowhere left to report to; the request itself has already been decided.
	}
}
