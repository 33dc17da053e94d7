#!/usr/bin/env node
/**
 * The `convert-to-llm` executable. It turns on Node's compile cache, then imports the run
 * (process-run.ts), so that the run's modules are compiled once and read from the cache on later
 * runs. Node 22.1 and later keep the cache in `node-compile-cache` under the system's temporary
 * directory; `NODE_DISABLE_COMPILE_CACHE=1` turns it off. Node 20 has no compile cache, and this
 * step does nothing there. TypeScript's `tsc` does the same. On Node 22 it takes about 15 ms off
 * each run after the first, of about 30 ms spent loading modules.
 */
import module from "node:module";

/** `module.enableCompileCache` (Node ≥ 22.1; not in Node 20's types). */
const enableCompileCache = (module as { enableCompileCache?: () => unknown }).enableCompileCache;
try {
	enableCompileCache?.();
} catch {
	// A cache that cannot be set up (a read-only temporary directory) only costs the time it saves.
}
import("./process-run.js").catch((error: unknown) => {
	// The package's own files failed to load (a broken install): one line, as every failure is said,
	// controls replaced and invisible characters marked (a path may hold any), as the view does
	// (src/view/invisible.ts, which may be among the files that failed to load).
	const text = (error instanceof Error ? error.message : String(error)).split("\n")[0] ?? "";
	const shown = text
		.replace(/\p{Cc}/gu, "\ufffd")
		.replace(/[\p{Cf}\p{Default_Ignorable_Code_Point}]/gu, (c) => {
			const hex = (c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0");
			return `⟨U+${hex}⟩`;
		})
		.replace(/\.$/, "");
	process.stderr.write(
		`convert-to-llm: cannot start: ${shown}. Reinstall convert-to-llm, or report it with the command you ran.\n`,
	);
	process.exit(2);
});
