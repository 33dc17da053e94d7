#!/usr/bin/env node
/**
 * Whether dist/ is the build of the current sources, and a build when it is not.
 *
 * dist/ is stale when a file package.json points at (`exports`, `bin`) is missing or older than the
 * newest file under src/, scripts/, package.json or tsup.config.ts. Used by the tests' global setup
 * (test/support/build.ts) and by `npm start`, which then builds only when the sources changed.
 *
 * Usage: node scripts/build-state.mjs --build   (builds quietly when stale, else nothing)
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
/** Builds dist/ with one line of progress (scripts/build.mjs --quiet) on this Node; returns the child's result. */
export function buildQuietly(options = {}) {
	return spawnSync(process.execPath, [join(ROOT, "scripts/build.mjs"), "--quiet"], { cwd: ROOT, ...options });
}

/** What a build reads: a change to any of these makes dist/ stale. */
const SOURCES = ["src", "scripts", "package.json", "tsup.config.ts"];

/** Every dist/ file package.json points at (exports, bin): what a build must have produced. */
export function shippedTargets() {
	const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
	const targets = [];
	const collect = (value) => {
		if (typeof value === "string") {
			if (value.startsWith("./dist/")) targets.push(join(ROOT, value));
		} else if (value !== null && typeof value === "object") {
			for (const inner of Object.values(value)) collect(inner);
		}
	};
	collect(pkg.exports);
	collect(pkg.bin);
	return targets;
}

function newestMtime(path) {
	const stat = statSync(path);
	if (!stat.isDirectory()) return stat.mtimeMs;
	let newest = stat.mtimeMs;
	for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
	return newest;
}

/** Why dist/ needs a build, or `undefined` when it is fresh. */
export function staleness() {
	const targets = shippedTargets();
	if (targets.length === 0) return "package.json names no dist/ file";
	const missing = targets.find((target) => !existsSync(target));
	if (missing) return `${missing} is missing`;
	const oldestBuilt = Math.min(...targets.map((target) => statSync(target).mtimeMs));
	const newestSource = Math.max(...SOURCES.map((path) => newestMtime(join(ROOT, path))));
	return oldestBuilt < newestSource ? "dist/ is older than the sources" : undefined;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
	if (!process.argv.includes("--build")) {
		console.log(staleness() ?? "dist/ is fresh");
	} else {
		if (staleness() !== undefined) process.exitCode = buildQuietly({ stdio: "inherit" }).status ?? 1;
	}
}
