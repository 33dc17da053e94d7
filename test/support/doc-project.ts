/**
 * A fresh project as a reader of the docs makes one: `npm init -y`, then an install line of the docs
 * (`npm install convert-to-llm @earendil-works/pi-agent-core @earendil-works/pi-ai`), made offline.
 * `convert-to-llm` is the packed tarball of this checkout (`npm pack`), unpacked as npm unpacks it;
 * every other package of the line is linked from this checkout's node_modules, with everything it
 * depends on (its dependencies, the optional ones that are installed here, and its non-optional
 * peers), as npm would install them. Nothing else is in the project's node_modules, and the project
 * lies outside the checkout, so a block that imports a package its install line does not add fails
 * there as it fails for a user.
 *
 * What differs from `npm install`: the versions are this checkout's (the ones the project tests),
 * not the registry's newest that match, and no install script runs.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, parse } from "node:path";

export interface Run {
	readonly code: number | null;
	readonly stdout: string;
	readonly stderr: string;
}

/** Runs a command to its end (or its timeout, then `code` is null) and collects its output. */
export function run(
	command: string,
	args: readonly string[],
	options: { cwd: string; timeoutMs: number; env?: NodeJS.ProcessEnv },
): Promise<Run> {
	return new Promise((resolve) => {
		const child = spawn(command, args, {
			cwd: options.cwd,
			env: options.env ?? { ...process.env, NO_COLOR: "1" },
			stdio: ["ignore", "pipe", "pipe"],
		});
		let stdout = "";
		let stderr = "";
		child.stdout.on("data", (chunk: Buffer) => {
			stdout += chunk.toString();
		});
		child.stderr.on("data", (chunk: Buffer) => {
			stderr += chunk.toString();
		});
		const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs);
		child.on("error", (error) => {
			clearTimeout(timer);
			resolve({ code: -1, stdout, stderr: `${stderr}${error.message}` });
		});
		child.on("close", (code) => {
			clearTimeout(timer);
			resolve({ code, stdout, stderr });
		});
	});
}

const output = (result: Run): string => `exit ${result.code}\n${result.stdout}${result.stderr}`;

/** The directory a bare import of `name` from a file in `from` finds, as Node looks it up, or undefined. */
export function packageDir(name: string, from: string): string | undefined {
	for (let dir = from; ; dir = dirname(dir)) {
		if (parse(dir).base !== "node_modules") {
			const candidate = join(dir, "node_modules", name);
			if (existsSync(join(candidate, "package.json"))) return candidate;
		}
		if (dirname(dir) === dir) return undefined;
	}
}

export interface Manifest {
	dependencies?: Record<string, string>;
	optionalDependencies?: Record<string, string>;
	peerDependencies?: Record<string, string>;
	peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

const manifest = (dir: string): Manifest => JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Manifest;

/** What npm installs for a package besides itself: its dependencies, optional ones if they are here, its required peers. */
function needs(pkg: Manifest): { name: string; optional: boolean }[] {
	const optional = new Set(Object.keys(pkg.optionalDependencies ?? {}));
	const peers = Object.keys(pkg.peerDependencies ?? {}).filter(
		(name) => pkg.peerDependenciesMeta?.[name]?.optional !== true,
	);
	return [
		...Object.keys(pkg.dependencies ?? {}).map((name) => ({ name, optional: optional.has(name) })),
		...[...optional].map((name) => ({ name, optional: true })),
		...peers.map((name) => ({ name, optional: false })),
	];
}

/**
 * Every package `roots` bring with them, each by its name and the real directory it has in
 * `checkout`'s node_modules (where a name is installed twice, the one met first, nearest a root).
 * `roots` are package names found from `checkout`, or manifests (a package unpacked elsewhere) whose
 * dependencies are found from `checkout`. Throws, naming the package and who needs it, when a
 * package that is not optional is not installed in the checkout.
 */
export function dependencyClosure(checkout: string, roots: readonly (string | Manifest)[]): Map<string, string> {
	const hoisted = new Map<string, string>();
	const seen = new Set<string>();
	const queue: { name: string; from: string; optional: boolean; by: string }[] = [];
	for (const root of roots) {
		if (typeof root === "string") queue.push({ name: root, from: checkout, optional: false, by: "the install line" });
		else for (const need of needs(root)) queue.push({ ...need, from: checkout, by: "convert-to-llm" });
	}
	for (let i = 0; i < queue.length; i++) {
		const { name, from, optional, by } = queue[i] as (typeof queue)[number];
		const dir = packageDir(name, from);
		if (dir === undefined) {
			if (optional) continue;
			throw new Error(`${name} (needed by ${by}) is not installed in ${checkout}: add it to devDependencies`);
		}
		const real = realpathSync(dir);
		if (seen.has(real)) continue;
		seen.add(real);
		if (!hoisted.has(name)) hoisted.set(name, real);
		for (const need of needs(manifest(real))) queue.push({ ...need, from: real, by: name });
	}
	return hoisted;
}

/** A directory outside the checkout, the same for every run of one checkout (tsc's build info refers to it). */
export function projectsDir(checkout: string): string {
	const id = createHash("sha256").update(realpathSync(checkout)).digest("hex").slice(0, 12);
	return join(realpathSync(tmpdir()), `convert-to-llm-docs-${id}`);
}

/** `npm pack` of the checkout into `dir`: the tarball's path. */
export async function packCheckout(checkout: string, dir: string): Promise<string> {
	mkdirSync(dir, { recursive: true });
	const packed = await run("npm", ["pack", "--pack-destination", dir, "--json"], {
		cwd: checkout,
		timeoutMs: 300_000,
	});
	if (packed.code !== 0) throw new Error(`npm pack failed: ${output(packed)}`);
	const [info] = JSON.parse(packed.stdout) as { filename: string }[];
	return join(dir, info?.filename ?? "");
}

/**
 * Makes `dir` (emptied first) a fresh project of `packages`: `npm init -y`, then `convert-to-llm`
 * from `tarball` and the rest from `checkout`, as described above. Throws when a directory above
 * `dir` has a node_modules of its own (Node would look there too).
 */
export async function makeProject(
	dir: string,
	packages: readonly string[],
	{ checkout, tarball }: { checkout: string; tarball: string },
): Promise<void> {
	for (let up = dirname(dir); ; up = dirname(up)) {
		if (existsSync(join(up, "node_modules"))) throw new Error(`${up}/node_modules would be visible to ${dir}`);
		if (dirname(up) === up) break;
	}
	rmSync(dir, { recursive: true, force: true });
	mkdirSync(join(dir, "node_modules"), { recursive: true });
	const init = await run("npm", ["init", "-y"], { cwd: dir, timeoutMs: 120_000 });
	if (init.code !== 0) throw new Error(`npm init -y failed in ${dir}: ${output(init)}`);
	// The install line's own packages first: each has its name at the top of node_modules.
	const roots: (string | Manifest)[] = packages.filter((name) => name !== "convert-to-llm");
	if (packages.includes("convert-to-llm")) {
		const ours = join(dir, "node_modules", "convert-to-llm");
		mkdirSync(ours);
		const unpacked = await run("tar", ["-xzf", tarball, "-C", ours, "--strip-components=1"], {
			cwd: dir,
			timeoutMs: 120_000,
		});
		if (unpacked.code !== 0) throw new Error(`could not unpack ${tarball}: ${output(unpacked)}`);
		roots.push(manifest(ours));
	}
	for (const [name, real] of dependencyClosure(checkout, roots)) {
		if (name === "convert-to-llm") continue;
		const link = join(dir, "node_modules", name);
		mkdirSync(dirname(link), { recursive: true });
		symlinkSync(real, link, "dir");
	}
}
