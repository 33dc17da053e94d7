/**
 * What package.json promises and dist/ holds: `exports` and `typesVersions` are made from the one
 * entry list (scripts/entries.mjs) that the build reads, every file they name is built, the bare
 * paths declare pi 1.x and `pi-0.73/` pi 0.73.1 (each with its augmentation of the app roles), the
 * deprecated `earendil/` paths are the bare ones, and the CommonJS build never requires pi.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { BIN_ENTRIES, ENTRIES, exportsOf } from "../../scripts/entries.mjs";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const DIST = join(ROOT, "dist");
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
	exports: Record<string, unknown>;
	typesVersions: unknown;
	bin: Record<string, string>;
	pi: { extensions: string[] };
	engines: { node: string };
};

/** Every `./dist/…` path in a value of package.json. */
function distPaths(value: unknown): string[] {
	if (typeof value === "string") return value.startsWith("./dist/") ? [value] : [];
	if (value === null || typeof value !== "object") return [];
	return Object.values(value).flatMap(distPaths);
}

const declarations = (dir: string) => readdirSync(dir).filter((file) => /\.d\.c?ts$/.test(file));

describe("package.json", () => {
	it("should hold exactly the exports and typesVersions made from the entry list the build reads", () => {
		const expected = exportsOf(ENTRIES);
		expect(pkg.exports).toEqual(expected.exports);
		expect(pkg.typesVersions).toEqual(expected.typesVersions);
		expect(readFileSync(join(ROOT, "tsup.config.ts"), "utf8")).toContain("...ENTRIES");
	});

	it("should name only files the build makes", () => {
		const named = [...distPaths(pkg.exports), ...distPaths(pkg.typesVersions), ...Object.values(pkg.bin)];
		named.push(...pkg.pi.extensions);
		expect(named.filter((path) => !existsSync(join(ROOT, path)))).toEqual([]);
		expect(Object.keys(BIN_ENTRIES).map((name) => `./dist/${name}.js`)).toEqual(Object.values(pkg.bin));
	});

	it("should need the Node that pi 1.x needs", () => {
		expect(pkg.engines.node).toBe(">=22.19");
	});
});

describe("the declarations of each pi line", () => {
	it("should declare the bare paths against @earendil-works only, augmentation included", () => {
		const texts = declarations(DIST).map((file) => readFileSync(join(DIST, file), "utf8"));
		expect(texts.filter((text) => /["']@mariozechner\//.test(text))).toEqual([]);
		expect(texts.some((text) => text.includes('declare module "@earendil-works/pi-agent-core"'))).toBe(true);
	});

	it("should declare pi-0.73/ against @mariozechner only, augmentation included, one file per bare declaration", () => {
		const dir = join(DIST, "pi-0.73");
		expect(declarations(dir).sort()).toEqual(declarations(DIST).sort());
		const texts = declarations(dir).map((file) => readFileSync(join(dir, file), "utf8"));
		expect(texts.filter((text) => /["']@earendil-works\//.test(text))).toEqual([]);
		expect(texts.some((text) => text.includes('declare module "@mariozechner/pi-agent-core"'))).toBe(true);
	});

	it("should keep the augmentation in the ESM and the CJS declaration bundles", () => {
		const augmenting = (suffix: string) =>
			declarations(DIST).filter(
				(file) =>
					file.endsWith(suffix) &&
					readFileSync(join(DIST, file), "utf8").includes('declare module "@earendil-works/pi-agent-core"'),
			);
		expect(augmenting(".d.ts").length).toBeGreaterThan(0);
		expect(augmenting(".d.cts").length).toBeGreaterThan(0);
	});
});

describe("the runtime behind each path", () => {
	it("should load one runtime from the bare, pi-0.73/ and earendil/ paths, ESM and CJS", () => {
		const script = [
			'import * as a from "convert-to-llm"; import * as b from "convert-to-llm/earendil"; import * as c from "convert-to-llm/pi-0.73";',
			'import * as p from "convert-to-llm/earendil/preset"; import * as q from "convert-to-llm/preset"; import * as r from "convert-to-llm/pi-0.73/preset";',
			'import { createRequire } from "node:module"; const require = createRequire(process.cwd() + "/");',
			'const d = require("convert-to-llm/pi-0.73"), e = require("convert-to-llm"), f = require("convert-to-llm/earendil");',
			"console.log(JSON.stringify([a.createRegistry === b.createRegistry, a.createRegistry === c.createRegistry,",
			"p.convertToLlm === q.convertToLlm, q.convertToLlm === r.convertToLlm,",
			"d.createRegistry === e.createRegistry, e.createRegistry === f.createRegistry,",
			"Object.keys(b).length === Object.keys(a).length && Object.keys(c).length === Object.keys(a).length]));",
		].join(" ");
		const result = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
			cwd: ROOT,
			encoding: "utf8",
		});
		expect(result.status, result.stderr).toBe(0);
		expect(JSON.parse(result.stdout)).toEqual([true, true, true, true, true, true, true]);
	});

	it("should never require pi from the CJS build (pi is ESM-only; its types are enough)", () => {
		const files = readdirSync(DIST).filter((file) => file.endsWith(".cjs"));
		expect(files).toEqual(expect.arrayContaining(["index.cjs", "preset.cjs", "hooks.cjs"]));
		const offenders = files.filter((file) =>
			/require\(\s*["'`]@(mariozechner|earendil-works)\/pi-(ai|agent-core)/.test(
				readFileSync(join(DIST, file), "utf8"),
			),
		);
		expect(offenders).toEqual([]);
	});
});
