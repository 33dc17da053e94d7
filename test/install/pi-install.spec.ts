/**
 * Installing the package as its users do, before it is published: the packed tarball is published
 * to a real npm registry on loopback (verdaccio, uplinked to the public registry for dependencies),
 * then the real pi 1.6.0 and 0.73.1 CLIs run `pi install npm:convert-to-llm` with npm pointed at it
 * (HOME and pi's agent directory temporary); `pi --help` must show the extension's flag, and a
 * prompt against the loopback model provider must be converted by the installed extension. Beside
 * it, `npm install` of the tarball beside the oldest and the newest pi packages of each scope must
 * succeed (the peer ranges). Slow and online: `npm run test:install`, a step of `.ci/run`.
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LocalRegistry, startLocalRegistry } from "../support/local-registry.js";
import { type FakeProvider, startFakeProvider } from "../support/pi-cli/fake-provider.js";
import { type PiLine, piCommand, piEnv } from "../support/pi-cli/rpc-client.js";
import { llmContext, prepare, prompt, ROOT, script, withPi } from "../support/pi-cli/scenario.js";

const LINES: readonly PiLine[] = ["1.6.0", "0.73.1"];
const VERSION = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;

interface Result {
	code: number | null;
	out: string;
}

function run(command: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv }): Promise<Result> {
	return new Promise((resolve) => {
		const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env });
		let out = "";
		child.stdout.on("data", (chunk) => {
			out += chunk;
		});
		child.stderr.on("data", (chunk) => {
			out += chunk;
		});
		const timer = setTimeout(() => child.kill("SIGKILL"), 240_000);
		child.on("close", (code) => {
			clearTimeout(timer);
			resolve({ code, out });
		});
	});
}

let base: string;
let registry: LocalRegistry;
let fake: FakeProvider;
let tarball: string;

beforeAll(async () => {
	base = mkdtempSync(join(tmpdir(), "ctl-install-"));
	const packed = await run("npm", ["pack", "--pack-destination", base, "--json"], { cwd: ROOT });
	expect(packed.code, packed.out).toBe(0);
	tarball = join(base, `convert-to-llm-${VERSION}.tgz`);
	registry = await startLocalRegistry(join(base, "registry"), "convert-to-llm");
	const published = await run(
		"npm",
		["publish", tarball, "--registry", registry.url, "--userconfig", registry.npmrc],
		{
			cwd: base,
		},
	);
	expect(published.code, published.out).toBe(0);
	fake = await startFakeProvider(script, 1_800_000);
}, 300_000);

afterAll(async () => {
	await fake?.close();
	await registry?.stop();
	if (base) rmSync(base, { recursive: true, force: true });
});

describe.each(LINES)("pi %s: pi install npm:convert-to-llm from a registry", (line) => {
	const root = () => join(base, `pi-${line}`);

	it("should install the published version, record it in settings.json, and show the flag in pi --help", async () => {
		const { dirs } = prepare(root(), fake);
		const [node, cli] = piCommand(line);
		// npm (which pi runs) reads its registry from the environment, as a user's .npmrc would set it.
		// npm (which pi runs) reads the registry from the user's .npmrc, here in the temp HOME; the prefix
		// keeps pi 0.73.1's `npm install -g` (its user scope) inside the temp directory too.
		writeFileSync(
			join(dirs.home, ".npmrc"),
			`${readFileSync(registry.npmrc, "utf8")}prefix=${join(root(), "npm-global")}\n`,
		);
		const { PI_OFFLINE: _offline, ...env } = piEnv(dirs);
		const installed = await run(node, [cli, "install", "npm:convert-to-llm"], { cwd: dirs.cwd, env });
		expect(installed.code, installed.out).toBe(0);
		expect(installed.out).toContain("Installed npm:convert-to-llm");
		const settings = JSON.parse(readFileSync(join(dirs.agentDir, "settings.json"), "utf8")) as { packages?: unknown };
		expect(settings.packages).toEqual(["npm:convert-to-llm"]);
		// pi 1.x installs into its agent directory; 0.73.1 with `npm install -g`, into the prefix.
		const manifest =
			line === "1.6.0"
				? join(dirs.agentDir, "npm", "node_modules", "convert-to-llm", "package.json")
				: join(root(), "npm-global", "lib", "node_modules", "convert-to-llm", "package.json");
		expect((JSON.parse(readFileSync(manifest, "utf8")) as { version: string }).version).toBe(VERSION);
		const help = await run(node, [cli, "--help"], { cwd: dirs.cwd, env: piEnv(dirs) });
		expect(help.code, help.out).toBe(0);
		expect(help.out).toMatch(/--convert-to-llm <value>/);
	}, 300_000);

	it("should convert a prompt's request through the installed extension", async () => {
		const dirs = { home: join(root(), "home"), agentDir: join(root(), "agent"), cwd: join(root(), "cwd") };
		const session = join(dirs.agentDir, "sessions", "scenario.jsonl");
		// The session holds images (one typed "Image", which only strictImages counts); only the
		// extension's switches blank them (pi's own images.blockImages setting is off).
		const args = ["--session", session, "--model", "fake/fake-model", "--convert-to-llm", "blockImages,strictImages"];
		fake.bodies.splice(0);
		const { result: shown } = await withPi({ dirs, args, line, lifetimeMs: 60_000 }, async (pi) => {
			await prompt(pi, "hello");
			return llmContext(pi);
		});
		const [body] = fake.bodies.splice(0);
		expect(body).toBeDefined();
		expect(body).toContain("Image reading is disabled.");
		expect(body).not.toContain("image_url");
		expect(shown).toContain("converted with pi's default preset");
		expect(shown).toContain("blockImages");
	}, 120_000);
});

/** pi's packages at the oldest and newest versions of each scope the peer ranges admit. */
const PEERS = [
	["@earendil-works", "0.74.0"],
	["@earendil-works", "0.85.1"],
	["@earendil-works", "latest"],
	["@mariozechner", "0.13.2"],
	["@mariozechner", "0.73.1"],
] as const;

describe("npm install beside each pi line's packages (the peer ranges)", () => {
	it.each(PEERS)(
		"should install beside %s/pi-agent-core and pi-ai %s, peers valid",
		async (scope, version) => {
			const project = join(base, `peers-${scope.slice(1)}-${version}`);
			mkdirSync(project, { recursive: true });
			const args = [
				"install",
				tarball,
				`${scope}/pi-agent-core@${version}`,
				`${scope}/pi-ai@${version}`,
				"--no-audit",
				"--no-fund",
				"--ignore-scripts",
				"--no-package-lock",
			];
			const installed = await run("npm", ["init", "-y"], { cwd: project }).then(() =>
				run("npm", args, { cwd: project }),
			);
			expect(installed.code, installed.out).toBe(0);
			expect(installed.out).not.toContain("ERESOLVE");
			const listed = await run("npm", ["ls", "convert-to-llm", `${scope}/pi-ai`], { cwd: project });
			expect(listed.code, listed.out).toBe(0);
			expect(listed.out).toContain(`convert-to-llm@${VERSION}`);
		},
		300_000,
	);
});
