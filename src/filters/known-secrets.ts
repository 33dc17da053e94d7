/**
 * Values known to be secret before anything is scanned: the ones a host passes, the process
 * environment's variables with secret-like names, and those of the `.env*` files of the working
 * directory. `redactSecrets` replaces them wherever they occur, in every form `secret-encodings.ts`
 * knows.
 */
import { isRecord } from "../values.js";

/** A value known to be secret, and the kind its placeholder shows. */
export interface KnownSecret {
	readonly value: string;
	readonly kind: string;
}

/** Where known secrets come from: the options of `redactSecrets` that name them. */
export interface KnownSecretSources {
	/** Values a host knows to be secret (its own API keys): a list, or a function read on every conversion. */
	readonly values?: readonly string[] | (() => readonly string[]);
	/**
	 * Variables with secret-like names (see {@link isSecretName}): `true` for the process environment
	 * (read on every conversion), or an environment of your own.
	 */
	readonly env?: boolean | Readonly<Record<string, string | undefined>>;
	/**
	 * `.env`-format files to read the secret-like variables of (on every conversion): `true` for
	 * every `.env*` file of the working directory (not `.env.example`, `.env.sample`,
	 * `.env.template`), or a list of paths. A listed file that cannot be read is an error.
	 */
	readonly envFiles?: boolean | readonly string[];
}

/** Words of a variable's name that make its value a secret. */
const SECRET_WORDS = new Set([
	"secret",
	"secrets",
	"token",
	"tokens",
	"password",
	"passwd",
	"passphrase",
	"pwd",
	"key",
	"keys",
	"apikey",
	"credential",
	"credentials",
	"dsn",
	"private",
	"salt",
	"signature",
]);
/** Last words of a name whose value is where a secret is, not the secret (`SSH_KEY_PATH`). */
const NOT_SECRET_LAST = new Set(["path", "file", "files", "dir", "directory", "name", "type"]);
/** Names that look secret and are not: the shell's working directories. */
const NOT_SECRET_NAMES = new Set(["PWD", "OLDPWD"]);

/**
 * Whether a variable's value is a secret by its name: one of its words (split at `_`, `-`, `.` and
 * camel case) is `secret`, `token`, `password`, `passwd`, `passphrase`, `pwd`, `key`, `apikey`,
 * `credential(s)`, `dsn`, `private`, `salt` or `signature`, its last word is not `path`, `file`,
 * `dir`, `directory`, `name` or `type`, and it is not `PWD` or `OLDPWD`.
 *
 * @example
 * isSecretName("OPENAI_API_KEY"); // true
 * isSecretName("SSH_KEY_PATH"); // false
 */
export function isSecretName(name: string): boolean {
	if (NOT_SECRET_NAMES.has(name)) return false;
	const words = name
		.replace(/([a-z0-9])([A-Z])/g, "$1_$2")
		.toLowerCase()
		.split(/[^a-z0-9]+/)
		.filter((word) => word !== "");
	const last = words[words.length - 1];
	if (last === undefined || NOT_SECRET_LAST.has(last)) return false;
	return words.some((word) => SECRET_WORDS.has(word));
}

/** A URL's password (`postgres://app:<password>@db…`), as written and decoded. */
const URL_PASSWORD = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/@\s:]*:([^/@\s]+)@/;

/** The secrets of one variable: its value when its name is secret-like; a URL's password in any case. */
function secretsOfVariable(name: string, value: string, out: KnownSecret[]): void {
	const kind = name
		.replace(/([a-z0-9])([A-Z])/g, "$1-$2")
		.toLowerCase()
		.replace(/[^a-z0-9]+/g, "-")
		.replace(/^-|-$/g, "");
	if (isSecretName(name)) out.push({ value, kind: kind || "secret" });
	const password = URL_PASSWORD.exec(value)?.[1];
	if (password !== undefined) {
		out.push({ value: password, kind: `${kind}-password` });
		try {
			const decoded = decodeURIComponent(password);
			if (decoded !== password) out.push({ value: decoded, kind: `${kind}-password` });
		} catch {
			// Not percent-encoded as a URL would be: the password as written is enough.
		}
	}
}

/**
 * The known secrets of `sources`, read now (the environment and the files as they are at this
 * conversion). Rejects when a listed file cannot be read.
 */
export async function readKnownSecrets(sources: KnownSecretSources): Promise<KnownSecret[]> {
	const out: KnownSecret[] = [];
	const values = typeof sources.values === "function" ? sources.values() : (sources.values ?? []);
	if (!Array.isArray(values)) throw new TypeError("the values option did not give a list of strings");
	for (const value of values) if (typeof value === "string") out.push({ value, kind: "secret" });
	const env = sources.env === true ? globalThis.process?.env : sources.env;
	if (isRecord(env))
		for (const name of Object.keys(env)) {
			const value = env[name];
			if (typeof value === "string") secretsOfVariable(name, value, out);
		}
	if (sources.envFiles !== undefined && sources.envFiles !== false)
		for (const text of await readEnvFiles(sources.envFiles))
			for (const [name, value] of parseEnvFile(text)) secretsOfVariable(name, value, out);
	return out;
}

/** Files that show the shape of an `.env`, not its values. */
const EXAMPLE_FILE = /^\.env\.(?:example|sample|template|dist)$/i;

/**
 * Which of a directory's file names `envFiles: true` reads: those starting with `.env`, but for
 * `.env.example`, `.env.sample`, `.env.template` and `.env.dist`, sorted.
 *
 * @example
 * envFileNames([".env", ".env.local", ".env.example", "README.md"]); // [".env", ".env.local"]
 */
export function envFileNames(names: readonly string[]): string[] {
	return names.filter((name) => name.startsWith(".env") && !EXAMPLE_FILE.test(name)).sort();
}

async function readEnvFiles(files: true | readonly string[]): Promise<string[]> {
	const { readFile, readdir } = await import("node:fs/promises");
	const { join, resolve } = await import("node:path");
	const cwd = process.cwd();
	const paths =
		files === true
			? envFileNames(
					(await readdir(cwd, { withFileTypes: true }))
						.filter((entry) => entry.isFile())
						.map((entry) => entry.name),
				).map((name) => join(cwd, name))
			: files.map((path) => resolve(cwd, path));
	return Promise.all(paths.map((path) => readFile(path, "utf8")));
}

/** A `KEY=value` line (`export` before it, `:` for `=` allowed). */
const ASSIGNMENT = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*[=:]\s*(.*)$/;

/**
 * The variables of an `.env` file as dotenv reads them: `KEY=value` lines, `#` comments, values in
 * single, double or back quotes (double-quoted ones may span lines and hold `\n`), an unquoted value
 * ending at ` #`.
 *
 * @example
 * parseEnvFile('A=1\nexport B="x\\ny" # note'); // [["A", "1"], ["B", "x\ny"]]
 */
export function parseEnvFile(text: string): [string, string][] {
	const out: [string, string][] = [];
	const lines = text.split(/\r?\n/);
	for (let i = 0; i < lines.length; i++) {
		const match = ASSIGNMENT.exec(lines[i] as string);
		if (match === null) continue;
		const name = match[1] as string;
		let rest = match[2] as string;
		const quote = rest[0];
		if (quote === '"' || quote === "'" || quote === "`") {
			let body = rest.slice(1);
			let close = body.indexOf(quote);
			// A double-quoted value may go on over the next lines, up to its closing quote.
			while (close < 0 && quote === '"' && i + 1 < lines.length) {
				body += `\n${lines[++i] as string}`;
				close = body.indexOf(quote);
			}
			rest = close < 0 ? body : body.slice(0, close);
			if (quote === '"') rest = rest.replace(/\\n/g, "\n");
		} else {
			const comment = rest.indexOf(" #");
			rest = (comment < 0 ? rest : rest.slice(0, comment)).trim();
		}
		out.push([name, rest]);
	}
	return out;
}
