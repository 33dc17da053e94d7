#!/usr/bin/env node
// Runs every examples/*.ts with tsx against the built package (pi 1.x examples on a Node >= 22.19:
// scripts/example-command.mjs) (each example checks its own outcome
// and exits non-zero when it is wrong), then prints "N passed, N failed"; exits 1 if any failed.
// Usage: npm run examples (builds first), or node scripts/run-examples.mjs after npm run build.
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { exampleCommand } from "./example-command.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const examples = readdirSync(join(root, "examples"))
	.filter((file) => file.endsWith(".ts"))
	.sort();

let passed = 0;
let failed = 0;
for (const file of examples) {
	const started = performance.now();
	const [command, args] = exampleCommand(root, file);
	const result = spawnSync(command, args, { cwd: root, encoding: "utf8" });
	const ms = Math.round(performance.now() - started);
	const ok = result.status === 0;
	if (ok) passed++;
	else failed++;
	console.log(`${ok ? "PASS" : "FAIL"} examples/${file} (${ms} ms)`);
	const output = `${result.stdout ?? ""}${result.stderr ?? ""}${result.error ? `${result.error.message}\n` : ""}`;
	for (const line of output.trimEnd().split("\n")) if (line) console.log(`  | ${line}`);
}

console.log(`\n${passed} passed, ${failed} failed`);
if (failed > 0 || examples.length === 0) process.exit(1);
