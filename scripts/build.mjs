#!/usr/bin/env node
/**
 * The build, in one step: tsup builds every entry of scripts/entries.mjs (ESM, CJS and the pi 1.x
 * declarations, from tsup.config.ts), then the pi 0.73.1 declarations are written beside them
 * (scripts/scope-types.mjs). tsup's own `onSuccess` cannot do the second part: tsup 8.5 runs it when
 * the JavaScript is written, while its declaration build still runs in a worker beside it.
 *
 * Usage: npm run build, or node scripts/build.mjs [--quiet] (one line instead of tsup's report).
 */
import { build } from "tsup";
import { scopeTypes } from "./scope-types.mjs";

const quiet = process.argv.includes("--quiet");
const started = Date.now();
try {
	await build({ silent: quiet });
	scopeTypes();
} catch (error) {
	console.error(`build failed: ${error instanceof Error ? error.message : String(error)}`);
	process.exit(1);
}
if (quiet) console.error(`[build] dist/ built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
