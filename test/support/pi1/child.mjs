/**
 * The pi 1.x side of the pi 1.x suites, run by `client.ts` on a Node >= 22.19. It answers one
 * request at a time over the IPC channel: `{ id, method, payload }` in, `{ id, payload }` or
 * `{ id, error }` out, every payload through `codec.mjs`. It only runs pi's functions and reports
 * what they returned; every comparison is made in the vitest process.
 *
 * Methods are the exported functions of these modules, imported on first use (a suite loads only
 * what it needs):
 * - `ready`: the child's Node version, once pi-coding-agent is importable.
 * - `convert.*` (convert.mjs): pi's `convertToLlm` and the real `convertToLlmWithBlockImages`.
 * - `agent.*` (agent.mjs): the real `Agent` on the faux provider, with our built registry.
 * - `session.*` (session.mjs): sessions written and read by pi's `SessionManager`.
 * - `oddSession.*` (odd-session.mjs): hand-written and generated odd files opened by pi's `SessionManager`.
 */
import { pack, unpack } from "./codec.mjs";

const modules = {
	convert: () => import("./convert.mjs"),
	agent: () => import("./agent.mjs"),
	session: () => import("./session.mjs"),
	oddSession: () => import("./odd-session.mjs"),
};

const loaded = new Map();

async function handler(method) {
	if (method === "ready") {
		await import("@earendil-works/pi-coding-agent");
		return () => process.version;
	}
	const [area, name] = method.split(".");
	const load = modules[area];
	if (!load) throw new Error(`unknown method ${method}`);
	if (!loaded.has(area)) loaded.set(area, await load());
	const fn = loaded.get(area)[name];
	if (typeof fn !== "function") throw new Error(`unknown method ${method}`);
	return fn;
}

let queue = Promise.resolve();

process.on("message", (raw) => {
	const { id, method, payload } = JSON.parse(raw);
	queue = queue.then(async () => {
		let reply;
		try {
			const fn = await handler(method);
			const result = await fn(unpack(payload));
			reply = { id, payload: pack(result) };
		} catch (error) {
			reply = { id, error: { message: String(error?.message ?? error), stack: String(error?.stack ?? "") } };
		}
		process.send(JSON.stringify(reply));
	});
});

process.on("disconnect", () => process.exit(0));
