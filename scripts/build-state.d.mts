/** Every dist/ file package.json points at (exports, bin), absolute. */
export function shippedTargets(): string[];
/** Why dist/ needs a build (a file missing, or older than src/, scripts/, package.json, tsup.config.ts), or `undefined`. */
export function staleness(): string | undefined;
