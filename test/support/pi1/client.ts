/**
 * The vitest side of the pi 1.x child: starts `child.mjs` on a Node >= 22.19 (`scripts/pi-node.mjs`)
 * and calls its methods. pi 1.x cannot be imported on the Node 20 that runs vitest, so each pi 1.x
 * suite keeps one long-lived child for all its tests.
 *
 * Every request and reply crosses the process boundary through `codec.mjs`, so both sides hold the
 * same values (`undefined` keys, `NaN`, `-0`, shared objects included).
 */
import { type ChildProcess, fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { resolvePiNode } from "../../../scripts/pi-node.mjs";
import { pack, unpack } from "./codec.mjs";

const CHILD = fileURLToPath(new URL("./child.mjs", import.meta.url));
const ROOT = fileURLToPath(new URL("../../..", import.meta.url));

/** How long `startPi1` may take: the first run installs the pinned Node into node_modules/.cache. */
export const PI1_START_TIMEOUT = 300_000;

/** `resolvePiNode()` of scripts/pi-node.mjs (safe in parallel workers: it installs beside its cache and renames). */
async function piNodePath(): Promise<string> {
	return resolvePiNode();
}

/** A running pi 1.x child. */
export interface Pi1Child {
	/** The `process.version` of the child's Node. */
	readonly nodeVersion: string;
	/** Calls `method` in the child with `params`; rejects with the child's error (its stack included). */
	call<T = unknown>(method: string, params?: unknown): Promise<T>;
	/** Ends the child. */
	close(): Promise<void>;
}

interface Reply {
	id: number;
	payload?: string;
	error?: { message: string; stack?: string };
}

/** Starts the child and waits until pi 1.x is imported there. */
export async function startPi1(): Promise<Pi1Child> {
	const execPath = await piNodePath();
	const child: ChildProcess = fork(CHILD, [], {
		cwd: ROOT,
		execPath,
		execArgv: [],
		serialization: "json",
		stdio: ["ignore", "inherit", "pipe", "ipc"],
	});
	let stderr = "";
	child.stderr?.setEncoding("utf8");
	child.stderr?.on("data", (chunk: string) => {
		stderr = (stderr + chunk).slice(-4000);
	});
	const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
	let nextId = 0;
	let exited: Error | undefined;
	child.on("message", (raw) => {
		const reply = JSON.parse(raw as string) as Reply;
		const waiter = pending.get(reply.id);
		if (!waiter) return;
		pending.delete(reply.id);
		if (reply.error) {
			const error = new Error(`pi 1.x child: ${reply.error.message}`);
			error.stack = `${error.message}\n--- child stack ---\n${reply.error.stack ?? ""}`;
			waiter.reject(error);
		} else {
			waiter.resolve(unpack(reply.payload as string));
		}
	});
	child.on("exit", (code, signal) => {
		exited = new Error(
			`pi 1.x child (${execPath}) exited (code ${code}, signal ${signal}) with requests pending. stderr:\n${stderr}`,
		);
		for (const waiter of pending.values()) waiter.reject(exited);
		pending.clear();
	});
	child.on("error", (error) => {
		exited = new Error(`pi 1.x child (${execPath}) could not be started or reached: ${error.message}`);
		for (const waiter of pending.values()) waiter.reject(exited);
		pending.clear();
	});
	const call = <T>(method: string, params?: unknown): Promise<T> => {
		if (exited) return Promise.reject(exited);
		const id = nextId++;
		return new Promise<T>((resolve, reject) => {
			pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
			child.send(JSON.stringify({ id, method, payload: pack(params) }));
		});
	};
	const nodeVersion = await call<string>("ready");
	return {
		nodeVersion,
		call,
		close: () =>
			new Promise<void>((resolve) => {
				if (exited || child.exitCode !== null) return resolve();
				child.once("exit", () => resolve());
				child.disconnect();
			}),
	};
}
