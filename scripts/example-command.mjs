/**
 * How one example is run: with tsx on the machine's Node, or, for an example written against pi 1.x
 * (it imports `@earendil-works/…`, which needs Node >= 22.19), with tsx's loader on the runtime that
 * scripts/pi-node.mjs provides. Shared by `npm run examples` and test/examples.test.ts.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { resolvePiNode } from "./pi-node.mjs";

/** Whether the example at `path` is written against pi 1.x. */
export function isPi1Example(path) {
	return /from "@earendil-works\//.test(readFileSync(path, "utf8"));
}

/** `[command, args]` that runs `examples/<file>` from the project root `root`. */
export function exampleCommand(root, file) {
	const path = join("examples", file);
	if (isPi1Example(join(root, path))) return [resolvePiNode(), ["--import", "tsx", path]];
	return [join(root, "node_modules", ".bin", "tsx"), [path]];
}
