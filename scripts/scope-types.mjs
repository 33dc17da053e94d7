#!/usr/bin/env node
/**
 * Writes the declaration files of the pi 0.73.1 entry points (`convert-to-llm/pi-0.73`, `…/preset`,
 * `…/hooks`, `…/filters`, `…/session`, `…/pi`) into dist/pi-0.73/, after tsup has built dist/.
 *
 * Why a copy: the runtime is one and the same for both pi lines (pi 1.x's conversion and session rules
 * are a superset of 0.73.1's), but TypeScript types are bound to a package name. pi moved from the
 * `@mariozechner` scope to `@earendil-works`, so the 0.73.1 declarations must name `@mariozechner/pi-ai`
 * and `@mariozechner/pi-agent-core`, including the module augmentation that adds the app roles to
 * `CustomAgentMessages`. The sources are written once against `@earendil-works` (pi 1.x, the bare
 * import paths) and type-checked against `@mariozechner` too (tsconfig.pi-0.73.json); this step swaps
 * the two quoted module specifiers in every dist/*.d.ts and *.d.cts, and nothing else. What differs between the lines' types is expressed
 * in the sources themselves (e.g. `BranchSummaryFromId`), so the same text is right in both.
 *
 * It fails when a declaration file names a pi package it does not know how to map, so a new
 * `import type` from another pi package cannot ship unmapped.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const DIST = fileURLToPath(new URL("../dist", import.meta.url));
const FROM_SCOPE = "@earendil-works";
const TO_SCOPE = "@mariozechner";
/** The pi packages whose types the declarations use. */
const MAPPED = new Set(["pi-ai", "pi-agent-core"]);
/** A quoted module specifier of the source scope: `"@earendil-works/pi-ai"` or `'@earendil-works/pi-ai'`. */
const SPECIFIER = /(["'])@earendil-works\/([a-z-]+)(\/[^"']*)?\1/g;

/**
 * Writes dist/pi-0.73/ from the declarations in `dist`; throws when there are none, or when one names
 * a pi package it does not know how to map.
 */
export function scopeTypes(dist = DIST) {
	const out = join(dist, "pi-0.73");
	const files = readdirSync(dist).filter((name) => /\.d\.c?ts$/.test(name));
	if (files.length === 0) throw new Error("scope-types: dist/ has no declaration files; run tsup first.");
	rmSync(out, { recursive: true, force: true });
	mkdirSync(out, { recursive: true });
	const unmapped = new Set();
	for (const name of files) {
		const text = readFileSync(join(dist, name), "utf8");
		const scoped = text.replace(SPECIFIER, (whole, quote, pkg, rest = "") => {
			if (!MAPPED.has(pkg)) {
				unmapped.add(`${FROM_SCOPE}/${pkg} in dist/${name}`);
				return whole;
			}
			return `${quote}${TO_SCOPE}/${pkg}${rest}${quote}`;
		});
		writeFileSync(join(out, name), scoped);
	}
	if (unmapped.size > 0)
		throw new Error(`scope-types: no ${TO_SCOPE} counterpart known for ${[...unmapped].join(", ")}.`);
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
	try {
		scopeTypes();
	} catch (error) {
		console.error(error.message);
		process.exit(1);
	}
}
