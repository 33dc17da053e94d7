/**
 * The page's script: the text of the page modules (checked by the type checker and the linter as
 * they are), each one function that needs nothing from outside it, joined by `main`; and refused when
 * the build put a helper of its own into one.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { chart } from "../../src/report/page/chart.js";
import { conversation } from "../../src/report/page/conversation.js";
import { readData } from "../../src/report/page/data.js";
import { ledgerChart } from "../../src/report/page/ledger-chart.js";
import { markup } from "../../src/report/page/markup.js";
import { pageScript } from "../../src/report/page/script.js";
import { search } from "../../src/report/page/search.js";
import { sections } from "../../src/report/page/sections.js";
import { root } from "../fixtures/sessions/run-cli.js";

const PAGE = join(root, "src/report/page");
/** The page modules: every file of the folder but the builder and the style sheet. */
const modules = readdirSync(PAGE).filter((name) => name.endsWith(".ts") && !["script.ts", "style.ts"].includes(name));

const PAGE_SCRIPT = pageScript();

describe("pageScript", () => {
	it("should be the page modules' own functions, called by main in one strict scope", () => {
		for (const fn of [readData, markup, conversation, chart, ledgerChart, sections, search]) {
			expect(PAGE_SCRIPT).toContain(String(fn));
		}
		expect(PAGE_SCRIPT.startsWith('(function () {\n"use strict";')).toBe(true);
		// It parses as a script.
		expect(() => new Function(PAGE_SCRIPT)).not.toThrow();
	});

	it("should hold no HTML sink and nothing that reaches outside the page", () => {
		for (const sink of [
			"innerHTML",
			"outerHTML",
			"insertAdjacentHTML",
			"document.write",
			"eval(",
			"new Function",
			"fetch(",
			"XMLHttpRequest",
			"import(",
		]) {
			expect(PAGE_SCRIPT).not.toContain(sink);
		}
	});

	it("should refuse a module whose compiled text calls a helper of the build", () => {
		const lowered = {
			readData,
			markup,
			conversation,
			chart,
			ledgerChart,
			sections,
			search: (() => "_optionalChain([])") as unknown as typeof search,
		};
		expect(() => pageScript(lowered)).toThrow(/holds "_optionalChain", which the build added/);
	});
});

describe("the built page modules", () => {
	const dist = join(root, "dist");
	const built = readdirSync(dist).filter((name) => /\.(c?js)$/.test(name));
	it.each(["readData", "markup", "conversation", "chart", "ledgerChart", "sections", "search", "main"])(
		"should hold %s in the ESM and the CommonJS build with no helper of the build in it",
		(name) => {
			const found: string[] = [];
			for (const file of built) {
				const text = readFileSync(join(dist, file), "utf8");
				const start = text.indexOf(`\nfunction ${name}(`);
				if (start === -1) continue;
				// esbuild writes a top-level function's closing brace alone at the start of a line.
				const body = text.slice(start, text.indexOf("\n}\n", start) + 3);
				for (const helper of ["_optionalChain", "_nullishCoalesce", "__name(", "__publicField", "__init"])
					expect(body, `${file}: ${name}`).not.toContain(helper);
				found.push(file.endsWith(".cjs") ? "cjs" : "esm");
			}
			expect([...new Set(found)].sort()).toEqual(["cjs", "esm"]);
		},
	);
});

describe("the page modules", () => {
	it.each(modules)(
		"%s should be one exported function with only type imports, and no syntax a build lowers",
		(name) => {
			const source = readFileSync(join(PAGE, name), "utf8");
			expect(source.match(/^export function /gm)).toHaveLength(1);
			for (const line of source.split("\n").filter((l) => l.startsWith("import ")))
				expect(line).toMatch(/^import type /);
			const code = source.replaceAll(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, "");
			expect(code).not.toContain("?.");
			expect(code).not.toContain("??");
		},
	);
});
