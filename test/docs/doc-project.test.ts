/**
 * The fresh project the docs test runs each sample in (test/support/doc-project.ts): what its install
 * line adds resolves, and nothing else does, at run time and for tsc. Here convert-to-llm is a small
 * stand-in tarball (the real one is packed by the docs test itself); test/install/doc-project.spec.ts
 * compares the project with a real `npm install` of the README's lines.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolvePiNode } from "../../scripts/pi-node.mjs";
import { dependencyClosure, makeProject, packageDir, run } from "../support/doc-project.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const TSC = join(ROOT, "node_modules", "typescript", "bin", "tsc");
const base = realpathSync(mkdtempSync(join(tmpdir(), "ctl-doc-project-")));
const project = join(base, "project");
afterAll(() => rmSync(base, { recursive: true, force: true }));

beforeAll(async () => {
	const stand = join(base, "package");
	mkdirSync(stand);
	writeFileSync(
		join(stand, "package.json"),
		JSON.stringify({
			name: "convert-to-llm",
			version: "0.0.0",
			type: "module",
			exports: "./index.js",
			dependencies: { tapable: "*" },
			peerDependencies: { "@mariozechner/pi-ai": "*" },
			peerDependenciesMeta: { "@mariozechner/pi-ai": { optional: true } },
		}),
	);
	writeFileSync(join(stand, "index.js"), 'export { SyncHook } from "tapable";\n');
	const packed = await run("tar", ["-czf", join(base, "stand-in.tgz"), "package"], { cwd: base, timeoutMs: 60_000 });
	expect(packed.code, packed.stderr).toBe(0);
	await makeProject(project, ["convert-to-llm", "@earendil-works/pi-agent-core"], {
		checkout: ROOT,
		tarball: join(base, "stand-in.tgz"),
	});
}, 120_000);

/** Where Node's ESM resolver finds each specifier from the project, or the error code it gives. */
async function resolveFromProject(specifiers: readonly string[]): Promise<Record<string, string>> {
	const script = `const found = {};
for (const specifier of ${JSON.stringify(specifiers)}) {
	try { found[specifier] = import.meta.resolve(specifier); } catch (error) { found[specifier] = error.code; }
}
console.log(JSON.stringify(found));`;
	const result = await run(resolvePiNode(), ["--input-type=module", "-e", script], {
		cwd: project,
		timeoutMs: 60_000,
	});
	expect(result.code, result.stderr).toBe(0);
	return JSON.parse(result.stdout) as Record<string, string>;
}

describe("makeProject", () => {
	it("should write package.json as npm init -y does, and unpack convert-to-llm into the project", async () => {
		const found = await resolveFromProject(["convert-to-llm", "./package.json"]);
		expect(found["convert-to-llm"]).toBe(`file://${project}/node_modules/convert-to-llm/index.js`);
		expect(found["./package.json"]).toBe(`file://${project}/package.json`);
	});

	it("should resolve the install line's packages and what they bring, from this checkout", async () => {
		const found = await resolveFromProject(["@earendil-works/pi-agent-core", "@earendil-works/pi-ai", "tapable"]);
		for (const specifier of Object.keys(found)) {
			expect(found[specifier], specifier).toMatch(new RegExp(`^file://${ROOT}node_modules/`));
		}
	});

	it.each([
		["@earendil-works/pi-coding-agent", "a pi package the install line does not add"],
		["@mariozechner/pi-ai", "the other pi line (an optional peer)"],
		["vitest", "a devDependency of this checkout"],
		["typescript", "the compiler that checks the blocks"],
	])("should not resolve %s (%s)", async (specifier) => {
		expect((await resolveFromProject([specifier]))[specifier]).toBe("ERR_MODULE_NOT_FOUND");
	});

	it("should fail tsc on a block that imports a package its install line does not add", async () => {
		writeFileSync(
			join(project, "extension.mts"),
			'import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";\nexport type Api = ExtensionAPI;\n',
		);
		const config = {
			compilerOptions: {
				module: "NodeNext",
				moduleResolution: "NodeNext",
				strict: true,
				noEmit: true,
				skipLibCheck: true,
				types: [],
			},
			files: ["extension.mts"],
		};
		writeFileSync(join(project, "tsconfig.json"), JSON.stringify(config));
		const result = await run(process.execPath, [TSC, "-p", ".", "--pretty", "false"], {
			cwd: project,
			timeoutMs: 300_000,
		});
		expect(result.stdout.trim().split("\n")).toEqual([
			expect.stringMatching(
				/^extension\.mts\(1,35\): error TS2307: Cannot find module '@earendil-works\/pi-coding-agent'/,
			),
		]);
	}, 300_000);

	it("should refuse a directory with a node_modules above it, which Node would read too", async () => {
		await expect(
			makeProject(join(ROOT, ".tmp", "inside"), ["convert-to-llm"], { checkout: ROOT, tarball: "unused.tgz" }),
		).rejects.toThrow(`${ROOT.replace(/\/$/, "")}/node_modules would be visible`);
	});
});

describe("dependencyClosure", () => {
	it("should bring pi-ai's dependencies with pi-ai, and nothing of pi-coding-agent", () => {
		const closure = dependencyClosure(ROOT, ["@earendil-works/pi-ai"]);
		expect([...closure.keys()]).toEqual(
			expect.arrayContaining(["@earendil-works/pi-ai", "@anthropic-ai/sdk", "openai", "@google/genai"]),
		);
		expect(closure.has("@earendil-works/pi-coding-agent")).toBe(false);
		expect(closure.has("@earendil-works/pi-agent-core")).toBe(false);
		expect(closure.get("@earendil-works/pi-ai")).toBe(realpathSync(join(ROOT, "node_modules/@earendil-works/pi-ai")));
	});

	it("should name a package that is not installed, and who needs it", () => {
		expect(() => dependencyClosure(ROOT, [{ dependencies: { "left-pad-never-installed": "*" } }])).toThrow(
			/left-pad-never-installed \(needed by convert-to-llm\) is not installed/,
		);
	});

	it("should skip an optional dependency that is not installed, and leave out optional peers", () => {
		const closure = dependencyClosure(ROOT, [
			{
				optionalDependencies: { "left-pad-never-installed": "*" },
				peerDependencies: { "@mariozechner/pi-ai": "*" },
				peerDependenciesMeta: { "@mariozechner/pi-ai": { optional: true } },
			},
		]);
		expect([...closure.keys()]).toEqual([]);
	});
});

describe("packageDir", () => {
	it("should find a package as Node does, from the nearest node_modules up", () => {
		expect(packageDir("tapable", join(ROOT, "src", "registry"))).toBe(join(ROOT, "node_modules", "tapable"));
		expect(packageDir("left-pad-never-installed", ROOT)).toBeUndefined();
	});
});
