/**
 * Every example runs against the built package (each asserts its own outcome and exits non-zero when
 * it is wrong); here we also check it exits 0 and prints what it is about.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const EXAMPLES = join(ROOT, "examples");
const TSX = join(ROOT, "node_modules/.bin/tsx");
/** The same lock as test/package.test.ts: only one test process checks and rebuilds dist/ at a time. */
const BUILD_LOCK = join(ROOT, "node_modules/.cache/convert-to-llm-build.lock");

interface RunResult {
	code: number | null;
	stdout: string;
	stderr: string;
}

function run(command: string, args: readonly string[]): Promise<RunResult> {
	return new Promise((resolve) => {
		const child = spawn(command, args, { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
		let stdout = "";
		let stderr = "";
		child.stdout.on("data", (chunk: Buffer) => {
			stdout += chunk.toString();
		});
		child.stderr.on("data", (chunk: Buffer) => {
			stderr += chunk.toString();
		});
		child.on("error", (error) => resolve({ code: -1, stdout, stderr: `${stderr}${error.message}` }));
		child.on("close", (code) => resolve({ code, stdout, stderr }));
	});
}

const newestMtime = (path: string): number => {
	const stat = statSync(path);
	if (!stat.isDirectory()) return stat.mtimeMs;
	return readdirSync(path).reduce((newest, entry) => Math.max(newest, newestMtime(join(path, entry))), stat.mtimeMs);
};

/** The three entry points the examples import, in both formats, none older than the sources. */
function isDistFresh(): boolean {
	const built = ["index", "preset", "hooks"].flatMap((entry) =>
		["js", "cjs", "d.ts", "d.cts"].map((ext) => join(ROOT, "dist", `${entry}.${ext}`)),
	);
	if (!built.every((file) => existsSync(file))) return false;
	const sources = ["src", "package.json", "tsup.config.ts"].map((path) => newestMtime(join(ROOT, path)));
	return Math.min(...built.map((file) => statSync(file).mtimeMs)) >= Math.max(...sources);
}

/** Builds if dist/ is stale, under the shared lock; a failed build (maybe a concurrent one) is retried once. */
async function ensureBuilt(): Promise<void> {
	mkdirSync(dirname(BUILD_LOCK), { recursive: true });
	for (;;) {
		try {
			mkdirSync(BUILD_LOCK);
			break;
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
			const age = existsSync(BUILD_LOCK) ? Date.now() - statSync(BUILD_LOCK).mtimeMs : 0;
			if (age > 180_000) rmSync(BUILD_LOCK, { recursive: true, force: true });
			await new Promise((resolve) => setTimeout(resolve, 200));
		}
	}
	try {
		for (let attempt = 0; attempt < 2 && !isDistFresh(); attempt++) {
			const build = await run("npm", ["run", "build", "--silent"]);
			if (build.code === 0) return;
			if (attempt === 1 && !isDistFresh()) throw new Error(`npm run build failed:\n${build.stdout}${build.stderr}`);
		}
	} finally {
		rmSync(BUILD_LOCK, { recursive: true, force: true });
	}
}

/** Lines each example's output must contain (an example not listed here must still run and exit 0). */
const expectedOutput: Record<string, string[]> = {
	"extension-custom-role.ts": [
		"roles known to the registry: user, assistant, toolResult, bashExecution, custom, branchSummary, compactionSummary, artifact",
		"5 history messages -> 4 model messages:",
		'user: <artifact title="README.md" version="2" type="text/markdown">',
		'user: (The user saved the artifact "README.md".)',
		"OK: the artifact role and the extension's custom messages were converted by its plugin.",
	],
	"host-filters.ts": [
		"user: Deploy with key [redacted] and the db password, please.",
		"user: Ran `printenv DB_PASSWORD`\\n```\\n[vault]\\n```",
		"And here is the dashboard: Image reading is disabled.",
		"convert on the async registry: AsyncHookInSyncConvertError",
		"OK: both filters hid their secrets; the agent's history is untouched.",
	],
	"default-preset-agent.ts": [
		"--- turn 1: the model received 5 messages",
		"user: Why does the test fail? Screenshot attached. | Image reading is disabled.",
		"--- turn 2: the model received 7 messages",
		"user: Why does the test fail? Screenshot attached. | [image]",
		"OK: the model received exactly the default preset's conversion, on every turn.",
	],
};

const files = readdirSync(EXAMPLES)
	.filter((file) => file.endsWith(".ts"))
	.sort();

beforeAll(ensureBuilt, 180_000);

describe("examples", () => {
	it("should have one example per documented use, each opening with a “Demonstrates …” comment", () => {
		expect(files).toEqual(expect.arrayContaining(Object.keys(expectedOutput)));
		for (const file of files) {
			expect(readFileSync(join(EXAMPLES, file), "utf8"), file).toMatch(/^\/\*\*\n \* Demonstrates /);
		}
	});

	it.concurrent.for(files)("should run %s with tsx, exit 0 and print its outcome", async (file, { expect }) => {
		const result = await run(TSX, [join("examples", file)]);
		expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
		expect(result.stdout.trim()).not.toBe("");
		for (const line of expectedOutput[file] ?? []) expect(result.stdout).toContain(line);
	});
});
