/**
 * A real npm registry on loopback: verdaccio, with the public npm registry as its uplink for every
 * package it does not hold, started and stopped by the caller, storing into a temp directory.
 *
 * verdaccio 6.10 wants Node >= 22, so it runs on the Node that scripts/pi-node.mjs provides. It is
 * installed once, pinned, into node_modules/.cache (like that Node), not as a devDependency: its
 * ~300 packages would otherwise join every `npm ci` of the project for the one suite that needs it.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { resolvePiNode } from "../../scripts/pi-node.mjs";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
export const VERDACCIO_VERSION = "6.10.4";
const HOME = join(ROOT, "node_modules", ".cache", `verdaccio-${VERDACCIO_VERSION}`);
const BIN = join(HOME, "node_modules", "verdaccio", "bin", "verdaccio");

export interface LocalRegistry {
	/** `http://127.0.0.1:<port>/` */
	readonly url: string;
	/** An npm user config that points at the registry and holds a token for publishing to it. */
	readonly npmrc: string;
	stop(): Promise<void>;
}

/** Installs the pinned verdaccio once (throws, saying what to do, when it cannot). */
function installVerdaccio(): void {
	if (existsSync(BIN)) return;
	mkdirSync(HOME, { recursive: true });
	writeFileSync(join(HOME, "package.json"), JSON.stringify({ name: "ctl-verdaccio", private: true }));
	const args = ["install", `verdaccio@${VERDACCIO_VERSION}`, "--no-audit", "--no-fund", "--ignore-scripts"];
	const result = spawnSync("npm", args, { cwd: HOME, encoding: "utf8" });
	if (result.status !== 0 || !existsSync(BIN)) {
		throw new Error(`could not install verdaccio@${VERDACCIO_VERSION} into ${HOME}: ${result.stderr}`);
	}
}

function freePort(): Promise<number> {
	return new Promise((resolve, reject) => {
		const server = createServer();
		server.once("error", reject);
		server.listen(0, "127.0.0.1", () => {
			const address = server.address();
			server.close(() =>
				typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
			);
		});
	});
}

async function waitUntilUp(url: string, child: ChildProcess, log: () => string): Promise<void> {
	const deadline = Date.now() + 60_000;
	while (Date.now() < deadline) {
		if (child.exitCode !== null) throw new Error(`verdaccio exited ${child.exitCode}: ${log()}`);
		try {
			const response = await fetch(`${url}-/ping`);
			if (response.ok) return;
		} catch {
			// not listening yet
		}
		await new Promise((resolve) => setTimeout(resolve, 250));
	}
	throw new Error(`verdaccio did not answer on ${url} within 60 s: ${log()}`);
}

/** Starts a registry storing into `dir`; anyone may publish `publishable`, everything else is proxied. */
export async function startLocalRegistry(dir: string, publishable: string): Promise<LocalRegistry> {
	installVerdaccio();
	mkdirSync(join(dir, "storage"), { recursive: true });
	const port = await freePort();
	const url = `http://127.0.0.1:${port}/`;
	const config = join(dir, "config.yaml");
	writeFileSync(
		config,
		[
			`storage: ${join(dir, "storage")}`,
			"auth:",
			"  htpasswd:",
			`    file: ${join(dir, "htpasswd")}`,
			"uplinks:",
			"  npmjs:",
			"    url: https://registry.npmjs.org/",
			"packages:",
			`  '${publishable}':`,
			"    access: $all",
			"    publish: $all",
			"  '**':",
			"    access: $all",
			"    proxy: npmjs",
			"log: { type: stdout, format: pretty, level: warn }",
			"",
		].join("\n"),
	);
	const npmrc = join(dir, "npmrc");
	writeFileSync(npmrc, `registry=${url}\n//127.0.0.1:${port}/:_authToken=local-registry-token\n`);
	const child = spawn(resolvePiNode(), [BIN, "--config", config, "--listen", `127.0.0.1:${port}`], {
		stdio: ["ignore", "pipe", "pipe"],
	});
	let log = "";
	child.stdout?.on("data", (chunk) => {
		log += chunk;
	});
	child.stderr?.on("data", (chunk) => {
		log += chunk;
	});
	const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
	try {
		await waitUntilUp(url, child, () => log);
	} catch (error) {
		child.kill("SIGKILL");
		throw error;
	}
	return {
		url,
		npmrc,
		async stop() {
			if (child.exitCode === null) {
				child.kill("SIGTERM");
				const timer = setTimeout(() => child.kill("SIGKILL"), 3000);
				await exited;
				clearTimeout(timer);
			}
		},
	};
}
