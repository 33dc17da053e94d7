/**
 * docs/api.md lists every export: one table per entry point of scripts/entries.mjs, and a name an
 * entry point exports that its table does not list (or a row naming what it no longer exports) fails.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { ENTRIES } from "../../scripts/entries.mjs";

const root = fileURLToPath(new URL("../..", import.meta.url));
const API = readFileSync(`${root}docs/api.md`, "utf8");

/** The subpath a user imports an entry from (`index` is the package itself). */
const subpath = (entry: string): string => (entry === "index" ? "convert-to-llm" : `convert-to-llm/${entry}`);

/**
 * The names a module exports, read from its syntax: `export { a, type B } from`, `export type { … }`,
 * `export const/function/class/interface/type/enum`, `export default`. An `export *` cannot be read
 * so, and is reported as the name `*` (a table cannot list it: name the exports instead).
 */
function exportedNames(text: string): string[] {
	const file = ts.createSourceFile("entry.ts", text, ts.ScriptTarget.Latest);
	const names: string[] = [];
	const exported = (node: ts.Node): boolean =>
		ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
	const isDefault = (node: ts.Node): boolean =>
		ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.DefaultKeyword);
	for (const node of file.statements) {
		if (ts.isExportDeclaration(node)) {
			if (node.exportClause && ts.isNamedExports(node.exportClause))
				for (const element of node.exportClause.elements) names.push(element.name.text);
			else names.push("*");
		} else if (ts.isExportAssignment(node)) names.push("default");
		else if (ts.isVariableStatement(node) && exported(node)) {
			for (const declaration of node.declarationList.declarations)
				if (ts.isIdentifier(declaration.name)) names.push(declaration.name.text);
		} else if (
			(ts.isFunctionDeclaration(node) ||
				ts.isClassDeclaration(node) ||
				ts.isInterfaceDeclaration(node) ||
				ts.isTypeAliasDeclaration(node) ||
				ts.isEnumDeclaration(node)) &&
			exported(node)
		)
			names.push(isDefault(node) ? "default" : (node.name?.text ?? "default"));
	}
	return names;
}

/** The first column of the table under `### \`<subpath>\`` in docs/api.md, up to the next heading. */
function tableNames(markdown: string, heading: string): string[] | undefined {
	const lines = markdown.split("\n");
	const start = lines.indexOf(`### \`${heading}\``);
	if (start < 0) return undefined;
	const names: string[] = [];
	for (const line of lines.slice(start + 1)) {
		if (line.startsWith("#")) break;
		const row = /^\| `([^`]+)` +\|/.exec(line);
		if (row?.[1] !== undefined) names.push(row[1]);
	}
	return names;
}

describe("exportedNames", () => {
	it("should read every form of export a module can write", () => {
		const text = [
			'export { a, type B, c as d } from "./x.js";',
			'export type { E } from "./y.js";',
			"export const f = 1, g = 2;",
			"export function h() {}",
			"export class I {}",
			"export interface J {}",
			"export type K = 1;",
			"export default function () {}",
			"const local = 1;",
			'export * from "./z.js";',
		].join("\n");
		expect(exportedNames(text)).toEqual(["a", "B", "d", "E", "f", "g", "h", "I", "J", "K", "default", "*"]);
	});
});

describe("tableNames", () => {
	it("should read the first column of an entry point's table, and nothing past the next heading", () => {
		const markdown = [
			"### `x`",
			"",
			"| export | kind | what it is |",
			"| --- | --- | --- |",
			"| `a` | const | A. |",
			"### `y`",
			"| `b` | type | B. |",
		].join("\n");
		expect(tableNames(markdown, "x")).toEqual(["a"]);
		expect(tableNames(markdown, "z")).toBeUndefined();
	});
});

describe("docs/api.md", () => {
	it.each(Object.entries(ENTRIES).map(([entry, source]) => [subpath(entry), source] as const))(
		"should list in the table of %s every name it exports, and no other",
		(heading, source) => {
			const exports = exportedNames(readFileSync(`${root}${source}`, "utf8"));
			const listed = tableNames(API, heading);
			expect(listed, `docs/api.md has no "### \`${heading}\`" table`).toBeDefined();
			expect(
				exports.filter((name) => !listed?.includes(name)),
				`exported by ${source}, missing from docs/api.md`,
			).toEqual([]);
			expect(
				listed?.filter((name) => !exports.includes(name)),
				`listed in docs/api.md, not exported by ${source}`,
			).toEqual([]);
		},
	);
});
