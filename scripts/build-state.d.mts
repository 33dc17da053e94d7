/** Every dist/ file package.json points at (exports, bin), absolute. */
export function shippedTargets(): string[];
/** Why dist/ needs a build (a file missing, or older than src/, scripts/, package.json, tsup.config.ts), or `undefined`. */
export function staleness(): string | undefined;
/** Builds dist/ with one line of progress (scripts/build.mjs --quiet) on this Node; returns the child's result. */
export function buildQuietly(
	options?: import("node:child_process").SpawnSyncOptions,
): import("node:child_process").SpawnSyncReturns<string | Buffer>;
