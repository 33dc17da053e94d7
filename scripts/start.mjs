#!/usr/bin/env node
/**
 * `npm start`: the main job on the demo session. Builds dist/ first when the sources changed (one line
 * of progress), then shows what the model sees of examples/sessions/demo.jsonl, with the example
 * plugin that converts its `ticket` role. Runs on the project's Node (scripts/pi-node.mjs).
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildQuietly, staleness } from "./build-state.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
if (staleness() !== undefined) {
	const built = buildQuietly({ stdio: "inherit" });
	if (built.status !== 0) process.exit(built.status ?? 1);
}
const args = ["--plugin", "examples/plugins/ticket-role.mjs", "examples/sessions/demo.jsonl", ...process.argv.slice(2)];
const shown = spawnSync(process.execPath, [join(ROOT, "dist/cli.js"), ...args], { cwd: ROOT, stdio: "inherit" });
process.exit(shown.status ?? 1);
