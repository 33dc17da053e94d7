/**
 * The shape of the code: no import circle anywhere in src/ (type-only imports included),
 * a ground floor that imports nothing above it, no file in src/registry over 300 lines, no
 * function of the registry or the built-ins over about 100, no class of theirs over 150 lines or
 * 10 public members, and no test file that names an issue (tests are named by unit and behaviour).
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type DependencyTree, parseCircular, parseDependencyTree } from "dpdm";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const src = new URL("../../src/", import.meta.url).pathname;
const root = new URL("../..", import.meta.url).pathname;

/**
 * The import graph of the .ts files under `dir` as dpdm reads it (the same tool as `npm run
 * lint:circular`): type-only imports and re-exports included, `.js` specifiers resolved to the `.ts`
 * sources through `tsconfig`. Keys and ids are relative to `context`.
 */
const dependencyTree = (dir: string, context: string, tsconfig: string): Promise<DependencyTree> =>
	parseDependencyTree([join(dir, "**/*.ts")], { context, tsconfig, transform: false });

const filesOf = (dir: string): string[] =>
	readdirSync(join(src, dir))
		.filter((name) => name.endsWith(".ts"))
		.map((name) => join(src, dir, name));

describe("imports", () => {
	it("should have no import circle in src/, type-only imports included", async () => {
		expect(parseCircular(await dependencyTree(src, root, join(root, "tsconfig.json")))).toEqual([]);
	});

	it("should find a circle, type-only or through a re-export", async () => {
		const dir = mkdtempSync(join(tmpdir(), "cycles-"));
		try {
			mkdirSync(join(dir, "a"));
			writeFileSync(join(dir, "a", "x.ts"), 'import type { Y } from "../y.js";\nexport type X = Y;\n');
			writeFileSync(join(dir, "y.ts"), 'export type { X } from "./a/x.js";\nexport type Y = 1;\n');
			writeFileSync(join(dir, "z.ts"), 'import "./y.js";\n');
			writeFileSync(
				join(dir, "tsconfig.json"),
				JSON.stringify({ compilerOptions: { moduleResolution: "Bundler", module: "ESNext" } }),
			);
			const cycles = parseCircular(await dependencyTree(dir, dir, join(dir, "tsconfig.json")));
			expect(cycles.map((cycle) => [...cycle].sort())).toEqual([["a/x.ts", "y.ts"]]);
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	});

	it.each([
		["errors.ts", []],
		["values.ts", []],
		["messages.ts", ["errors.ts"]],
	])("should keep the ground floor's %s importing nothing above it", async (file, allowed) => {
		const tree = await dependencyTree(src, src, join(root, "tsconfig.json"));
		// Imports of src/ files only: pi's and tapable's modules resolve outside src/ (to ../node_modules).
		const targets = (tree[file] ?? []).flatMap((dependency) =>
			dependency.id === null || dependency.id.startsWith("..") ? [] : [dependency.id],
		);
		expect(targets.filter((t) => !allowed.includes(t))).toEqual([]);
	});
});

describe("front ends", () => {
	it.each([["pi/"], ["view/"]])(
		"should keep src/%s off the CLI: the view is shared, src/cli and src/pi stand side by side",
		async (dir) => {
			const tree = await dependencyTree(src, src, join(root, "tsconfig.json"));
			const offending = Object.entries(tree)
				.filter(([file]) => file.startsWith(dir))
				.flatMap(([file, dependencies]) =>
					(dependencies ?? []).filter((d) => d.id?.startsWith("cli/")).map((d) => `${file} -> ${d.id}`),
				);
			expect(offending).toEqual([]);
		},
	);
});

describe("sizes", () => {
	it.each(filesOf("registry").map((f) => [f.slice(src.length), f]))(
		"should keep %s under 300 lines",
		(_name, file) => {
			expect(readFileSync(file, "utf8").split("\n").length).toBeLessThanOrEqual(300);
		},
	);

	it("should keep every function of src/registry and src/builtin-converters within 100 lines", () => {
		const long: string[] = [];
		for (const file of [...filesOf("registry"), ...filesOf("builtin-converters")]) {
			const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.ES2022, true);
			const visit = (node: ts.Node): void => {
				if (ts.isFunctionLike(node) && "body" in node && node.body !== undefined) {
					const start = source.getLineAndCharacterOfPosition(node.getStart()).line;
					const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
					if (end - start > 100) long.push(`${file.slice(src.length)}:${start + 1} (${end - start} lines)`);
				}
				ts.forEachChild(node, visit);
			};
			visit(source);
		}
		expect(long).toEqual([]);
	});

	/*
	 * A class is a room too: tapable's `Hook`, the model here, has about ten public methods and one
	 * job. A class with more public members than that, or longer than half a file, is serving several
	 * clients with disjoint needs (as `Run` did, with 17 members): split it by job.
	 */
	it("should keep every class of src/registry and src/builtin-converters within 150 lines and 10 public members", () => {
		const large = [...filesOf("registry"), ...filesOf("builtin-converters")].flatMap((file) =>
			oversizedClasses(file.slice(src.length), readFileSync(file, "utf8")),
		);
		expect(large).toEqual([]);
	});

	it("should find a class with 11 public members or 151 lines, so the class rule can fail", () => {
		const members = Array.from({ length: 10 }, (_, i) => `m${i}() {}`).join("\n");
		const wide = `class Wide {\nconstructor(readonly a: number, private b: number) {}\n${members}\nprivate hidden() {}\n#own = 1;\n}`;
		const long = `class Long {\n${"// line\n".repeat(150)}}`;
		expect(oversizedClasses("x.ts", `${wide}\n${long}`)).toEqual([
			"x.ts:Wide (11 public members)",
			"x.ts:Long (151 lines)",
		]);
	});
});

/*
 * Built from pieces so that this file itself does not match: the word, then a number or an opening
 * parenthesis before it. Both patterns are linear (no nested quantifier).
 */
const WORD = ["iss", "ue"].join("");
const ISSUE_NAMES = [new RegExp(`\\b${WORD}\\s+\\d+`, "i"), new RegExp(`\\(${WORD}\\b`, "i")];
const testDir = join(root, "test");

/** The `file:line` of every line of `text` that names an issue. */
const issueNames = (name: string, text: string): string[] =>
	text.split("\n").flatMap((line, i) => (ISSUE_NAMES.some((p) => p.test(line)) ? [`${name}:${i + 1}`] : []));

/** The folders of tests that check more than one src/ folder: parity, whole programs, the package, the docs, the shape of the code. */
const CROSS_CUTTING = ["differential", "e2e", "package", "docs", "install", "house"];
const srcFolders = (): string[] =>
	readdirSync(src, { withFileTypes: true })
		.filter((entry) => entry.isDirectory())
		.map((entry) => entry.name);
const srcRootModules = (): string[] =>
	readdirSync(src)
		.filter((name) => name.endsWith(".ts"))
		.map((name) => name.slice(0, -".ts".length));

/**
 * Whether a test file (relative to test/) sits where a reader looks for it: in the folder named
 * after the src/ folder it tests, in a cross-cutting folder, or at the root when it tests a module
 * at the root of src/ (its name starts with the module's) or the package's public types (`.test-d.ts`).
 */
function testFolderFits(name: string, folders: readonly string[], modules: readonly string[]): boolean {
	const parts = name.split("/");
	if (parts.length === 1)
		return name.endsWith(".test-d.ts") || modules.some((m) => name.startsWith(`${m}.`) || name.startsWith(`${m}-`));
	return folders.includes(parts[0] as string) || CROSS_CUTTING.includes(parts[0] as string);
}

describe("test names", () => {
	it("should name no issue or ticket in any .ts, .mts or .mjs file under test/", () => {
		const files = readdirSync(testDir, { recursive: true, encoding: "utf8" }).filter(
			(name) => /\.(ts|mts|mjs)$/.test(name) && !name.split("/").includes("node_modules"),
		);
		expect(files.length).toBeGreaterThan(50);
		expect(files.flatMap((name) => issueNames(name, readFileSync(join(testDir, name), "utf8")))).toEqual([]);
	});

	it("should keep each test file in the folder of the src/ folder it tests, or a cross-cutting one", () => {
		const misplaced = readdirSync(testDir, { recursive: true, encoding: "utf8" })
			.filter((name) => /\.(test|test-d|large-test)\.ts$/.test(name))
			.filter((name) => !testFolderFits(name, srcFolders(), srcRootModules()));
		expect(misplaced).toEqual([]);
	});

	it("should place tests by the rule it checks", () => {
		const folders = ["hooks", "registry"];
		const modules = ["errors", "messages"];
		expect(testFolderFits("hooks/block-images.test.ts", folders, modules)).toBe(true);
		expect(testFolderFits("differential/differential.test.ts", folders, modules)).toBe(true);
		expect(testFolderFits("errors-cross-format.test.ts", folders, modules)).toBe(true);
		expect(testFolderFits("types.test-d.ts", folders, modules)).toBe(true);
		expect(testFolderFits("block-images.test.ts", folders, modules)).toBe(false);
		expect(testFolderFits("nowhere/x.test.ts", folders, modules)).toBe(false);
	});

	it("should catch an issue number or a parenthesised issue, so the rule can fail", () => {
		const text = [
			`describe("x (${WORD} 9 item 2)"`,
			`// ${WORD.toUpperCase()}  12: y`,
			`("a (${WORD}'s b)")`,
			"fine",
		];
		expect(issueNames("x.ts", text.join("\n"))).toEqual(["x.ts:1", "x.ts:2", "x.ts:3"]);
		expect(issueNames("y.ts", "/item 1/ of its result; the issuers' formats; tissue 3")).toEqual([]);
	});
});

/** The classes of `text` over 150 lines or 10 public members (methods, fields, accessors, `readonly` parameters). */
function oversizedClasses(name: string, text: string): string[] {
	const source = ts.createSourceFile(name, text, ts.ScriptTarget.ES2022, true);
	const hidden = ts.ModifierFlags.Private | ts.ModifierFlags.Protected;
	const found: string[] = [];
	const visit = (node: ts.Node): void => {
		if (ts.isClassLike(node)) {
			const start = source.getLineAndCharacterOfPosition(node.getStart()).line;
			const lines = source.getLineAndCharacterOfPosition(node.getEnd()).line - start;
			const members = node.members.filter(
				(member) =>
					!ts.isConstructorDeclaration(member) &&
					member.name !== undefined &&
					!ts.isPrivateIdentifier(member.name) &&
					!(ts.getCombinedModifierFlags(member as ts.Declaration) & hidden),
			).length;
			// Constructor parameters declared `readonly x` or `public x` are public members too.
			const parameters = (node.members.find(ts.isConstructorDeclaration)?.parameters ?? []).filter(
				(p) => ts.isParameterPropertyDeclaration(p, p.parent) && !(ts.getCombinedModifierFlags(p) & hidden),
			).length;
			const label = `${name}:${node.name?.text ?? "(anonymous)"}`;
			if (lines > 150) found.push(`${label} (${lines} lines)`);
			if (members + parameters > 10) found.push(`${label} (${members + parameters} public members)`);
		}
		ts.forEachChild(node, visit);
	};
	visit(source);
	return found;
}
