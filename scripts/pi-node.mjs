#!/usr/bin/env node
/**
 * The Node.js runtime the project runs on: Node >= 22.19, which pi 1.x (`@earendil-works/*`) and
 * secretlint 13 need (Node 20 reached its end of life on 2026-04-30). Every npm script (`test`,
 * `start`, `build`, `bench`, `examples`, `typecheck`) runs through it, so a clone works on a machine
 * whose own Node is older.
 *
 * When the running Node is new enough it is used as it is. Otherwise the npm registry's
 * `node-<platform>-<arch>` package (a plain binary, no install script) is installed once into
 * node_modules/.cache/convert-to-llm/, pinned to {@link PI_NODE_VERSION}, and reused after that.
 *
 * As a module: `resolvePiNode()` returns the binary's absolute path (installing it if needed) and
 * throws an error that says what to do when it cannot. As a command: `node scripts/pi-node.mjs`
 * prints that path; `node scripts/pi-node.mjs <bin or script> [args...]` runs a package binary
 * (`vitest`, `tsc`: looked up in node_modules/.bin) or a script file on it, with the same arguments,
 * standard streams and exit status.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, realpathSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The Node release the pi 1.x side runs on when the machine's own Node is older than 22.19. */
export const PI_NODE_VERSION = "22.23.5";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const CACHE = join(ROOT, "node_modules/.cache/convert-to-llm", `node-${PI_NODE_VERSION}`);

/** Whether a `process.versions.node` string is at least 22.19.0. */
export function isPiNodeVersion(version) {
	const [major = 0, minor = 0] = version.split(".").map(Number);
	return major > 22 || (major === 22 && minor >= 19);
}

/** The absolute path of a Node >= 22.19 binary; installs the pinned one on first use. */
export function resolvePiNode() {
	if (process.env.PI_NODE) return process.env.PI_NODE;
	if (isPiNodeVersion(process.versions.node)) return process.execPath;
	const pkg = `node-${process.platform}-${process.arch}`;
	const binaryIn = (dir) => join(dir, "node_modules", pkg, "bin", process.platform === "win32" ? "node.exe" : "node");
	const binary = binaryIn(CACHE);
	if (existsSync(binary)) return binary;
	// Installed beside the cache and renamed into place, so that parallel callers (vitest workers,
	// two test runs) never see, or write into, a half-installed directory.
	const partial = `${CACHE}.partial-${process.pid}-${Date.now()}`;
	mkdirSync(partial, { recursive: true });
	const npm = process.platform === "win32" ? "npm.cmd" : "npm";
	const result = spawnSync(
		npm,
		[
			"install",
			"--no-save",
			"--no-package-lock",
			"--no-audit",
			"--no-fund",
			"--ignore-scripts",
			"--prefix",
			partial,
			`${pkg}@${PI_NODE_VERSION}`,
		],
		{ encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 300_000 },
	);
	if (result.status !== 0 || !existsSync(binaryIn(partial))) {
		rmSync(partial, { recursive: true, force: true });
		const why = (result.error?.message ?? result.stderr ?? "").trim().split("\n").slice(-3).join(" ");
		throw new Error(
			`Could not install ${pkg}@${PI_NODE_VERSION} (a Node >= 22.19 for the pi 1.x tests): ${why || "no binary after install"}. ` +
				"Run the tests on Node >= 22.19, or set PI_NODE to the path of such a node binary.",
		);
	}
	try {
		renameSync(partial, CACHE);
	} catch (error) {
		// Another caller finished first: its copy is as good as ours.
		rmSync(partial, { recursive: true, force: true });
		if (!existsSync(binary)) throw error;
	}
	return binary;
}

/** The script file `target` names: a path to a file, or a package binary in node_modules/.bin. */
export function scriptOf(target) {
	if (/[\\/]/.test(target) || /\.[cm]?[jt]s$/.test(target)) return target;
	const bin = join(ROOT, "node_modules", ".bin", target);
	if (!existsSync(bin))
		throw new Error(`No script ${target}: not a file, and node_modules/.bin has no ${target} (run npm install).`);
	return realpathSync(bin);
}

/** Runs `target` on the project's Node with `args`; exits as it exits (a signal is passed on, both ways). */
function runOnPiNode(target, args) {
	let node;
	let script;
	try {
		node = resolvePiNode();
		script = scriptOf(target);
	} catch (error) {
		process.stderr.write(`pi-node: ${error.message}\n`);
		process.exit(1);
	}
	const child = spawn(node, [script, ...args], { stdio: "inherit" });
	for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, () => child.kill(signal));
	child.on("error", (error) => {
		process.stderr.write(`pi-node: cannot start ${node}: ${error.message}\n`);
		process.exit(1);
	});
	child.on("exit", (code, signal) => {
		if (signal !== null) {
			process.removeAllListeners(signal);
			process.kill(process.pid, signal);
		} else process.exit(code ?? 1);
	});
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
	const [target, ...args] = process.argv.slice(2);
	if (target === undefined) process.stdout.write(`${resolvePiNode()}\n`);
	else runOnPiNode(target, args);
}
