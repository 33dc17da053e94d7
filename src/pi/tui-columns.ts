/**
 * Terminal columns inside pi: pi-tui's own `visibleWidth`, the function pi's TUI measures every
 * rendered line with (and throws on a line wider than the terminal), cut between graphemes as
 * pi-tui's `truncateToWidth` cuts (which is not used: it writes SGR resets into the text, and the
 * same lines go to RPC notifications and stderr as plain text).
 *
 * pi-tui is not a dependency of this package, and pi's extension loader aliases only static
 * imports (a dynamic `import()` resolves from this package, where pi-tui usually is not). So the
 * pi-tui that pi runs is found from pi's own entry script (`process.argv[1]`) and imported by its
 * file URL: Node then hands over the module pi already loaded, and the extension still loads
 * where no pi-tui can be found.
 */
import { realpathSync } from "node:fs";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { type Columns, graphemeColumns } from "../view/columns.js";

/** pi 1.x's pi-tui, then 0.73.1's; the other way round when the running pi is 0.73.1's. */
const PI_TUI = ["@earendil-works/pi-tui", "@mariozechner/pi-tui"] as const;

/**
 * Where the pi-tui of the pi running `main` (pi's CLI script) is, as file URLs, the running pi's
 * line first; empty when `main` is not a file or no pi-tui resolves from it.
 *
 * @example
 * piTuiUrls("/usr/lib/node_modules/@earendil-works/pi-coding-agent/dist/cli.js");
 * // ["file:///usr/lib/node_modules/@earendil-works/pi-tui/dist/index.js"]
 */
export function piTuiUrls(main: string | undefined): string[] {
	if (main === undefined || main === "") return [];
	let script: string;
	try {
		script = realpathSync(main);
	} catch {
		return [];
	}
	const legacy = script.replaceAll("\\", "/").includes("/@mariozechner/pi-coding-agent/");
	const names = legacy ? [PI_TUI[1], PI_TUI[0]] : PI_TUI;
	const require = createRequire(script);
	const urls: string[] = [];
	for (const name of names) {
		try {
			urls.push(pathToFileURL(require.resolve(name)).href);
		} catch {
			// Not this pi's line.
		}
	}
	return urls;
}

/**
 * The columns pi's TUI counts: the running pi's pi-tui `visibleWidth` (found from `main`, pi's CLI
 * script); else a pi-tui this package resolves; else string-width's measure (a dependency of this
 * package, and what pi-tui's measure grew from).
 *
 * @throws when none loads: the caller then shows its failure instead of a panel pi would reject.
 */
export async function loadTuiColumns(main: string | undefined = process.argv[1]): Promise<Columns> {
	for (const specifier of [...piTuiUrls(main), ...PI_TUI]) {
		const visibleWidth = (await importOrUndefined(specifier))?.visibleWidth;
		if (typeof visibleWidth === "function") return graphemeColumns((text) => visibleWidth(text) as number);
	}
	const stringWidth = (await importOrUndefined("string-width"))?.default;
	if (typeof stringWidth !== "function")
		throw new Error("neither pi-tui nor string-width can be loaded to measure text");
	return graphemeColumns((text) => stringWidth(text) as number);
}

async function importOrUndefined(specifier: string): Promise<Record<string, unknown> | undefined> {
	try {
		// A specifier in a variable: the build leaves it to Node.
		return (await import(specifier)) as Record<string, unknown>;
	} catch {
		return undefined;
	}
}
