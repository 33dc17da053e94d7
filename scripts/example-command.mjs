/**
 * How one example is run: with tsx's loader on the project's Node (scripts/pi-node.mjs: Node >= 22.19,
 * which pi 1.x needs). Shared by `npm run examples` and test/e2e/examples.test.ts.
 */
import { join } from "node:path";
import { resolvePiNode } from "./pi-node.mjs";

/** `[command, args]` that runs `examples/<file>` from the project root `root`. */
export function exampleCommand(root, file) {
	return [resolvePiNode(), ["--import", "tsx", join(root, "examples", file)]];
}
