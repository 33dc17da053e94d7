/**
 * The docs test's fresh projects (test/support/doc-project.ts, made offline) against a real
 * `npm install` of the README's install lines, run with the npm of this machine on Node >= 22.19 (as
 * a user of the package runs it: npm picks each package's newest version whose `engines` fit that
 * Node, so on Node 20 it would install pi-ai 0.74 for `@earendil-works/pi-ai`). The same packages at
 * the top of node_modules, and the same pi versions. Online (npm reads the registry's metadata).
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { docFiles } from "../../scripts/docs-generated.mjs";
import { resolvePiNode } from "../../scripts/pi-node.mjs";
import { docBlocks, PI_LINES, readmeInstallLines } from "../support/doc-blocks.js";
import { makeProject, packCheckout, run } from "../support/doc-project.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const base = realpathSync(mkdtempSync(join(tmpdir(), "ctl-doc-install-")));
afterAll(() => rmSync(base, { recursive: true, force: true }));

/** npm's own script, to run on the pi Node (`npm` on PATH runs on the machine's Node). */
function npmCli(): string {
	if (process.env.npm_execpath?.endsWith("npm-cli.js")) return process.env.npm_execpath;
	const which = process.env.PATH?.split(":")
		.map((dir) => join(dir, "npm"))
		.find((file) => {
			try {
				return realpathSync(file).endsWith("npm-cli.js");
			} catch {
				return false;
			}
		});
	if (which === undefined) throw new Error("npm-cli.js not found on PATH");
	return realpathSync(which);
}

/** The packages at the top of a project's node_modules, each with its version. */
function topLevel(project: string): Record<string, string> {
	const modules = join(project, "node_modules");
	const names = readdirSync(modules)
		.filter((name) => !name.startsWith("."))
		.flatMap((name) =>
			name.startsWith("@") ? readdirSync(join(modules, name)).map((sub) => `${name}/${sub}`) : [name],
		);
	return Object.fromEntries(
		names
			.sort()
			.map((name) => [
				name,
				(JSON.parse(readFileSync(join(modules, name, "package.json"), "utf8")) as { version: string }).version,
			]),
	);
}

const lines = readmeInstallLines(docBlocks(ROOT, docFiles()).filter((block) => block.file === "README.md"));
const tarball = packCheckout(ROOT, join(base, "pack"));

describe("the docs test's fresh project", () => {
	it.each(PI_LINES)("should hold what npm installs for the README's pi %s install line", async (pi) => {
		expect(typeof lines).not.toBe("string");
		const packages = (lines as Record<string, string[]>)[pi] as string[];
		const packed = await tarball;
		const ours = join(base, `ours-${pi}`);
		await makeProject(ours, packages, { checkout: ROOT, tarball: packed });
		const npms = join(base, `npm-${pi}`);
		mkdirSync(npms);
		const init = await run("npm", ["init", "-y"], { cwd: npms, timeoutMs: 120_000 });
		expect(init.code, init.stderr).toBe(0);
		const args = packages.map((name) => (name === "convert-to-llm" ? packed : name));
		const installed = await run(
			resolvePiNode(),
			[npmCli(), "install", "--prefer-offline", "--ignore-scripts", "--no-audit", "--no-fund", ...args],
			// npm finds `node` for lifecycle work on PATH: the pi Node's directory first.
			{
				cwd: npms,
				timeoutMs: 280_000,
				env: { ...process.env, PATH: `${dirname(resolvePiNode())}:${process.env.PATH}` },
			},
		);
		expect(installed.code, `${installed.stdout}${installed.stderr}`).toBe(0);
		const real = topLevel(npms);
		const made = topLevel(ours);
		expect(Object.keys(made)).toEqual(Object.keys(real));
		for (const name of packages) expect(made[name], name).toBe(real[name]);
	});
});
