/**
 * Vitest `globalSetup`: runs once per `vitest run`, before any test file, and makes sure dist/ is the
 * build of the current sources. Test files that spawn or import the built package (package, examples,
 * cli-e2e) then use dist/ as it is.
 *
 * dist/ is stale when a file package.json points at (`exports`, `bin`) is missing or older than the
 * newest file under src/, scripts/, package.json or tsup.config.ts (scripts/build-state.mjs, which
 * `npm start` uses too). Two vitest runs in this checkout build one
 * at a time (a directory lock), since tsup cleans dist/ before it writes.
 */
import { existsSync, mkdirSync, rmSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildQuietly, shippedTargets, staleness } from "../../scripts/build-state.mjs";
import { resolvePiNode } from "../../scripts/pi-node.mjs";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const BUILD_LOCK = join(ROOT, "node_modules/.cache/convert-to-llm-build.lock");
/** A lock older than any build takes was left by a crashed run. */
const STALE_LOCK_MS = 180_000;

async function withBuildLock(fn: () => void): Promise<void> {
	mkdirSync(dirname(BUILD_LOCK), { recursive: true });
	for (;;) {
		try {
			mkdirSync(BUILD_LOCK);
			break;
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
			const age = existsSync(BUILD_LOCK) ? Date.now() - statSync(BUILD_LOCK).mtimeMs : 0;
			if (age > STALE_LOCK_MS) rmSync(BUILD_LOCK, { recursive: true, force: true });
			await new Promise((resolve) => setTimeout(resolve, 200));
		}
	}
	try {
		fn();
	} finally {
		rmSync(BUILD_LOCK, { recursive: true, force: true });
	}
}

export default async function buildDist(): Promise<void> {
	// The pi 1.x suites, examples and pi CLI checks run on a Node >= 22.19: fetch it once here, before
	// the test files start in parallel (resolvePiNode is safe in parallel too; this just does it once).
	resolvePiNode();
	if (staleness() === undefined) return;
	await withBuildLock(() => {
		// Another run may have built while this one waited for the lock.
		const reason = staleness();
		if (reason === undefined) return;
		console.log(`[build] ${reason}: npm run build`);
		const build = buildQuietly({ encoding: "utf8" });
		if (build.status !== 0) {
			const detail = build.error ? build.error.message : `exit ${build.status}`;
			throw new Error(`npm run build failed (${detail}):\n${build.stdout ?? ""}${build.stderr ?? ""}`);
		}
		// Only what is missing counts here: a source saved during the build is for the next run.
		const missing = shippedTargets().filter((target) => !existsSync(target));
		if (missing.length > 0) throw new Error(`npm run build did not produce ${missing.join(", ")}`);
	});
}
