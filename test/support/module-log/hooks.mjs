/**
 * Module hooks (registered by ./register.mjs) that append the URL of every module the process
 * resolves to the file named by MODULE_LOG, one a line: a test then sees what a run imported.
 */
import { appendFileSync } from "node:fs";

export async function resolve(specifier, context, nextResolve) {
	const resolved = await nextResolve(specifier, context);
	if (process.env.MODULE_LOG) appendFileSync(process.env.MODULE_LOG, `${resolved.url}\n`);
	return resolved;
}
