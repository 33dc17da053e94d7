/** The Node release the pi 1.x side runs on when the machine's own Node is older than 22.19. */
export const PI_NODE_VERSION: string;
/** Whether a `process.versions.node` string is at least 22.19.0. */
export function isPiNodeVersion(version: string): boolean;
/** The absolute path of a Node >= 22.19 binary; installs the pinned one on first use (throws, saying what to do, when it cannot). */
export function resolvePiNode(): string;
/** The script file a target names: a path to a file, or a package binary in node_modules/.bin. */
export function scriptOf(target: string): string;
