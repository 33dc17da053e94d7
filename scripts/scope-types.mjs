#!/usr/bin/env node
/**
 * Writes the declaration files of the pi 1.x entry points (`convert-to-llm/earendil`, `…/preset`,
 * `…/hooks`, `…/session`) into dist/earendil/, after tsup has built dist/.
 *
 * Why a copy: the runtime is one and the same for both pi lines (pi 1.x's conversion and session rules
 * are a superset of 0.73.1's), but TypeScript types are bound to a package name. pi moved from the
 * `@mariozechner` scope to `@earendil-works`, so the declarations must name `@earendil-works/pi-ai` and
 * `@earendil-works/pi-agent-core`, including the module augmentation that adds the app roles to
 * `CustomAgentMessages`. The sources are written once against `@mariozechner` (and type-checked against
 * `@earendil-works` too: tsconfig.earendil.json); this step swaps the two quoted module specifiers in
 * every dist/*.d.ts and *.d.cts, and nothing else. What differs between the lines' types is expressed
 * in the sources themselves (e.g. `BranchSummaryFromId`), so the same text is right in both.
 *
 * It fails when a declaration file names a pi package it does not know how to map, so a new
 * `import type` from another pi package cannot ship unmapped.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const DIST = fileURLToPath(new URL("../dist", import.meta.url));
const OUT = join(DIST, "earendil");
const FROM_SCOPE = "@mariozechner";
const TO_SCOPE = "@earendil-works";
/** The pi packages whose types the declarations use. */
const MAPPED = new Set(["pi-ai", "pi-agent-core"]);
/** A quoted module specifier of the old scope: `"@mariozechner/pi-ai"` or `'@mariozechner/pi-ai'`. */
const SPECIFIER = /(["'])@mariozechner\/([a-z-]+)(\/[^"']*)?\1/g;

const files = readdirSync(DIST).filter((name) => /\.d\.c?ts$/.test(name));
if (files.length === 0) {
	console.error("scope-types: dist/ has no declaration files; run tsup first.");
	process.exit(1);
}
rmSync(OUT, { recursive: true, force: true });
mkdirSync(OUT, { recursive: true });
const unmapped = new Set();
for (const name of files) {
	const text = readFileSync(join(DIST, name), "utf8");
	const scoped = text.replace(SPECIFIER, (whole, quote, pkg, rest = "") => {
		if (!MAPPED.has(pkg)) {
			unmapped.add(`${FROM_SCOPE}/${pkg} in dist/${name}`);
			return whole;
		}
		return `${quote}${TO_SCOPE}/${pkg}${rest}${quote}`;
	});
	writeFileSync(join(OUT, name), scoped);
}
if (unmapped.size > 0) {
	console.error(`scope-types: no ${TO_SCOPE} counterpart known for ${[...unmapped].join(", ")}.`);
	process.exit(1);
}
