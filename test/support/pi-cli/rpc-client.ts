/**
 * The real pi CLI in RPC mode: 1.6.0 (`@earendil-works/pi-coding-agent`'s `bin`) on the Node >= 22.19
 * runtime the project fetches (`scripts/pi-node.mjs`), or 0.73.1 (`@mariozechner`) on the Node that
 * runs the tests. One child per call to {@link startPi}, fed
 * JSON lines on stdin, read as JSON lines on stdout. Every wait has a deadline, and the child is
 * killed on `stop()` or when its lifetime runs out; it runs with HOME, pi's agent directory and the
 * working directory set to the caller's temp directories, so nothing outside them is touched.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { resolvePiNode } from "../../../scripts/pi-node.mjs";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));

/** The pi lines the tests run: 1.6.0 (`@earendil-works`, Node >= 22.19) and 0.73.1 (`@mariozechner`, this Node). */
export type PiLine = "1.6.0" | "0.73.1";

const PACKAGES: Record<PiLine, string> = {
	"1.6.0": "@earendil-works/pi-coding-agent",
	"0.73.1": "@mariozechner/pi-coding-agent",
};

/** The event that says a prompt's run is over: pi 1.x's `agent_end` may be followed by a retry. */
export const SETTLED: Record<PiLine, string> = { "1.6.0": "agent_settled", "0.73.1": "agent_end" };

/** A line's CLI script, from its package.json `bin`. */
export function piCliPath(line: PiLine = "1.6.0"): string {
	// pi 1.x does not export ./package.json: find it in the devDependency's folder.
	const pkgPath = join(ROOT, "node_modules", PACKAGES[line], "package.json");
	const pkg = JSON.parse(readFileSync(pkgPath, "utf8")) as { version: string; bin: Record<string, string> };
	if (pkg.version !== line) throw new Error(`${PACKAGES[line]} is ${pkg.version}, not ${line}: run npm ci`);
	return join(dirname(pkgPath), pkg.bin.pi as string);
}

export interface PiDirs {
	home: string;
	agentDir: string;
	cwd: string;
}

export interface StartPiOptions {
	dirs: PiDirs;
	args: readonly string[];
	/** Default 1.6.0. */
	line?: PiLine;
	/** Kill the child after this long whatever happens (default 60 s). */
	lifetimeMs?: number;
	/** Variables added to pi's environment ({@link piEnv}). */
	env?: Readonly<Record<string, string>>;
}

export type RpcEvent = { type: string; [key: string]: unknown };

export interface PiRpc {
	readonly line: PiLine;
	/** Every JSON line pi wrote, in order. */
	readonly events: RpcEvent[];
	/** What pi wrote on stderr. */
	stderr(): string;
	/** Sends a command and resolves with its `response` (rejects after `timeoutMs`). */
	request(command: Record<string, unknown>, timeoutMs?: number): Promise<RpcEvent>;
	/** Resolves with the first event (from `from` on) that `test` accepts; rejects after `timeoutMs`. */
	waitFor(test: (event: RpcEvent) => boolean, timeoutMs?: number, from?: number): Promise<RpcEvent>;
	stop(): Promise<void>;
}

let nextId = 0;

/** The Node binary and CLI script that run a pi line. */
export function piCommand(line: PiLine = "1.6.0"): [node: string, cli: string] {
	return [line === "1.6.0" ? resolvePiNode() : process.execPath, piCliPath(line)];
}

/** pi's environment: HOME, the agent directory and TMPDIR in the temp directories, offline, no telemetry. */
export function piEnv(dirs: PiDirs): NodeJS.ProcessEnv {
	return {
		PATH: process.env.PATH,
		HOME: dirs.home,
		PI_CODING_AGENT_DIR: dirs.agentDir,
		PI_OFFLINE: "1",
		PI_SKIP_VERSION_CHECK: "1",
		PI_TELEMETRY: "0",
		NO_COLOR: "1",
		TMPDIR: dirs.home,
	};
}

/** Starts `pi --mode rpc …args` in the given directories. */
export function startPi(options: StartPiOptions): PiRpc {
	const { dirs, args, line = "1.6.0", lifetimeMs = 60_000, env } = options;
	const [node, cli] = piCommand(line);
	const child: ChildProcess = spawn(node, [cli, "--mode", "rpc", ...args], {
		cwd: dirs.cwd,
		env: { ...piEnv(dirs), ...env },
		stdio: ["pipe", "pipe", "pipe"],
	});
	const events: RpcEvent[] = [];
	const waiters = new Set<() => void>();
	let stderr = "";
	let buffer = "";
	let exited = false;
	const exit = new Promise<void>((resolve) => child.once("exit", () => resolve()));
	void exit.then(() => {
		exited = true;
		for (const wake of waiters) wake();
	});
	const killer = setTimeout(() => child.kill("SIGKILL"), lifetimeMs);
	killer.unref();
	child.stderr?.setEncoding("utf8");
	child.stderr?.on("data", (text: string) => {
		stderr += text;
	});
	child.stdout?.setEncoding("utf8");
	child.stdout?.on("data", (text: string) => {
		buffer += text;
		let newline = buffer.indexOf("\n");
		while (newline !== -1) {
			const line = buffer.slice(0, newline).trim();
			buffer = buffer.slice(newline + 1);
			if (line !== "") {
				try {
					events.push(JSON.parse(line) as RpcEvent);
				} catch {
					events.push({ type: "non-json", line });
				}
			}
			newline = buffer.indexOf("\n");
		}
		for (const wake of waiters) wake();
	});

	const waitFor = (test: (event: RpcEvent) => boolean, timeoutMs = 20_000, from = 0): Promise<RpcEvent> =>
		new Promise((resolve, reject) => {
			let seen = from;
			const check = (): void => {
				for (; seen < events.length; seen++) {
					const event = events[seen] as RpcEvent;
					if (test(event)) {
						done();
						resolve(event);
						return;
					}
				}
				if (exited) {
					done();
					reject(new Error(`pi exited before the awaited event; stderr: ${stderr.slice(-2000)}`));
				}
			};
			const timer = setTimeout(() => {
				done();
				reject(
					new Error(
						`timed out after ${timeoutMs} ms; last events: ${JSON.stringify(events.slice(-5))}; stderr: ${stderr.slice(-2000)}`,
					),
				);
			}, timeoutMs);
			const done = (): void => {
				clearTimeout(timer);
				waiters.delete(check);
			};
			waiters.add(check);
			check();
		});

	return {
		line,
		events,
		stderr: () => stderr,
		request(command, timeoutMs = 20_000) {
			const id = `req-${++nextId}`;
			const from = events.length;
			child.stdin?.write(`${JSON.stringify({ ...command, id })}\n`);
			return waitFor((event) => event.type === "response" && event.id === id, timeoutMs, from);
		},
		waitFor,
		async stop() {
			clearTimeout(killer);
			if (!exited) {
				child.stdin?.end();
				const grace = setTimeout(() => child.kill("SIGKILL"), 3000);
				child.kill("SIGTERM");
				await exit;
				clearTimeout(grace);
			}
		},
	};
}
