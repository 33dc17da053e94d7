/**
 * The page's script, built from the page modules of this folder: each module is one function, checked
 * by the type checker and the linter as the rest of the source, and the script is the text of those
 * functions as the build compiled them (`Function.prototype.toString`), `main` called with the others
 * by name. Its SHA-256 goes into the page's Content-Security-Policy (html-page.ts).
 *
 * The rules a page module keeps, since only its function's own text reaches the page:
 * - one exported function per module, everything it needs inside it or passed in (`main` gets the
 *   modules, the others their data and helpers): nothing of the module's scope, no imported value
 *   (`import type` only);
 * - no syntax a build lowers into calls of its own helpers: no `?.`, no `??`, no class fields (the
 *   CommonJS build rewrites those); {@link pageScript} refuses a script that calls such a helper;
 * - text from the data only as text nodes (`Markup`), links only inside the page.
 */
import { chart } from "./chart.js";
import { conversation } from "./conversation.js";
import { readData } from "./data.js";
import { ledgerChart } from "./ledger-chart.js";
import { main, type PageModules } from "./main.js";
import { markup } from "./markup.js";
import { search } from "./search.js";
import { sections } from "./sections.js";

/** The page modules `main` is given, by name. */
const MODULES: PageModules = { readData, markup, conversation, chart, ledgerChart, sections, search };

/**
 * What a build puts in a function's text when it lowers syntax or renames an import (esbuild,
 * sucrase, Vite's module runner): a page function holding one would fail in the page.
 */
const FOREIGN = [
	"_optionalChain",
	"_nullishCoalesce",
	"__name(",
	"__publicField",
	"__privateGet",
	"__async(",
	"__spreadValues",
	"__vi_import",
	"__vite_ssr",
	"import_",
	"require(",
];

/**
 * The page's script: one strict function scope that calls `main` with the modules. Throws when a
 * module's compiled text calls a helper of the build (see the module rules above).
 */
export function pageScript(modules: PageModules = MODULES): string {
	const parts: string[] = [];
	for (const [name, fn] of Object.entries(modules)) parts.push(`${name}: ${String(fn)}`);
	const script = `(function () {\n"use strict";\n(${String(main)})({\n${parts.join(",\n")}\n});\n})();\n`;
	for (const foreign of FOREIGN) {
		if (script.includes(foreign)) {
			throw new Error(
				`the report page's script holds "${foreign}", which the build added: a page module uses syntax the build lowers, or a value from outside its function (see src/report/page/script.ts).`,
			);
		}
	}
	return script;
}
