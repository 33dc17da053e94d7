/**
 * The `redactSecrets` plugin of the extension's switch, with the values known to be secret that the
 * settings name (the environment, `.env` files of pi's working directory, literal values).
 */
import { readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { envFileNames } from "../filters/known-secrets.js";
import { type RedactSecretsOptions, redactSecrets } from "../filters/redact-secrets.js";
import type { Plugin } from "../index.js";
import { errorText } from "../values.js";
import type { PiKnownSecrets } from "./settings.js";

/**
 * `redactSecrets` with `known`'s sources, paths resolved against pi's working directory `cwd`.
 *
 * Contract: `env: true` reads pi's environment on every conversion; listed `envFiles` are read on
 * every conversion too (one that cannot be read makes the conversion send nothing, and the request is
 * withheld with the file named); `envFiles: true` lists the `.env*` files of `cwd` now (not
 * `.env.example`, `.env.sample`, `.env.template`, `.env.dist`), and throws, naming the directory,
 * when it cannot be listed. Without `known`, the plain `redactSecrets()`.
 *
 * @example
 * redactionFor({ envFiles: [".env"] }, "/work/app"); // redactSecrets({ envFiles: ["/work/app/.env"] })
 */
export function redactionFor(known: PiKnownSecrets | undefined, cwd: string): Plugin {
	if (known === undefined) return redactSecrets();
	const options: { -readonly [K in keyof RedactSecretsOptions]: RedactSecretsOptions[K] } = {};
	if (known.env === true) options.env = true;
	if (known.envFiles === true) options.envFiles = envFilesOf(cwd);
	else if (Array.isArray(known.envFiles)) options.envFiles = known.envFiles.map((path) => resolve(cwd, path));
	if (known.values !== undefined && known.values.length > 0) options.values = [...known.values];
	return redactSecrets(options);
}

/** The `.env*` files of `cwd`, as absolute paths. */
function envFilesOf(cwd: string): string[] {
	let names: string[];
	try {
		names = readdirSync(cwd, { withFileTypes: true })
			.filter((entry) => entry.isFile())
			.map((entry) => entry.name);
	} catch (error) {
		throw new Error(
			`redactSecrets: the .env* files of pi's working directory ${cwd} could not be listed (${errorText(error)}); no request is sent until they can, or "envFiles" lists them.`,
		);
	}
	return envFileNames(names).map((name) => join(cwd, name));
}
