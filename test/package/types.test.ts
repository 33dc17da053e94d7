/**
 * The declarations as a user of each pi line compiles them: one consumer per line (the bare paths for
 * pi 1.x, `convert-to-llm/pi-0.73/…` for pi 0.73.1, with pi-coding-agent's own augmentation of the
 * app roles beside ours), type-checked with TypeScript 7 and 5.9, `strict`, `skipLibCheck: false`,
 * under `nodenext` and `bundler` resolution. Both lines' consumers are one program per compiler and
 * resolution (their augmentations name different modules), so each check runs tsc once.
 *
 * Under `skipLibCheck: false`, pi's own packages and their dependencies have errors of their own:
 * pi 1.x's pi-ai imports JSON without import attributes (nodenext only), pi 0.73.1's dependencies
 * name modules they do not depend on (`@anthropic-ai/sdk`, `@google/genai`). The tests list exactly
 * those, and require that none is in convert-to-llm's declarations or the consumers.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const CONSUMERS = join(ROOT, "test/fixtures/consumers");
const COMPILERS = {
	"TypeScript 5.9": join(ROOT, "node_modules/typescript/bin/tsc"),
	"TypeScript 7": join(ROOT, "node_modules/typescript-7/bin/tsc"),
} as const;
const RESOLUTIONS = { nodenext: "NodeNext", bundler: "Preserve" } as const;
/** A tsc run waits as long as the machine needs; what it finds does not depend on its speed. */
const NO_LIMIT = 30 * 60_000;

type Compiler = keyof typeof COMPILERS;
type Resolution = keyof typeof RESOLUTIONS;

interface Checked {
	readonly code: number | null;
	readonly diagnostics: readonly string[];
	readonly files: readonly string[];
	readonly output: string;
}

const dir = mkdtempSync(join(tmpdir(), "ctl-types-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** One tsc run over both lines' consumers, started once and shared by the tests that read it. */
const runs = new Map<string, Promise<Checked>>();
function checked(compiler: Compiler, resolution: Resolution): Promise<Checked> {
	const key = `${compiler} ${resolution}`;
	let run = runs.get(key);
	if (run === undefined) {
		run = typeCheck(compiler, resolution);
		runs.set(key, run);
	}
	return run;
}

function typeCheck(compiler: Compiler, resolution: Resolution): Promise<Checked> {
	const project = join(dir, `${compiler.replace(/\W+/g, "-")}-${resolution}.json`);
	writeFileSync(
		project,
		JSON.stringify({
			compilerOptions: {
				target: "ES2022",
				lib: ["ES2022", "DOM"],
				module: RESOLUTIONS[resolution],
				moduleResolution: resolution,
				strict: true,
				noUncheckedIndexedAccess: true,
				noEmit: true,
				skipLibCheck: false,
				types: ["node"],
				typeRoots: [join(ROOT, "node_modules/@types")],
			},
			files: [
				"ts-pi-1/consumer.ts",
				"ts-pi-1/consumer.cts",
				"ts-pi-0.73/consumer.ts",
				"ts-pi-0.73/consumer.cts",
				"ts-pi-0.73/with-pi-coding-agent.ts",
			].map((file) => join(CONSUMERS, file)),
		}),
	);
	return new Promise((resolve) => {
		const child = spawn(process.execPath, [COMPILERS[compiler], "--noEmit", "--listFiles", "-p", project], {
			cwd: ROOT,
			stdio: ["ignore", "pipe", "pipe"],
		});
		let output = "";
		child.stdout.on("data", (chunk: Buffer) => {
			output += chunk.toString();
		});
		child.stderr.on("data", (chunk: Buffer) => {
			output += chunk.toString();
		});
		child.on("close", (code) => {
			const lines = output.split("\n").map((line) => line.trim());
			resolve({
				code,
				output,
				diagnostics: lines.filter((line) => /(^|\s)error TS\d+:/.test(line)),
				files: lines.filter((line) => line.startsWith("/")),
			});
		});
	});
}

/** Where a diagnostic is, relative to the repository. */
const fileOf = (diagnostic: string): string => diagnostic.replace(/\(\d+,\d+\): error .*$/, "").replace(`${ROOT}`, "");

/** pi's own packages and their dependencies, as each line installs them: where their own errors are. */
const PI_DEPENDENCIES = [
	/^node_modules\/@earendil-works\/pi-ai\/dist\/providers\/[\w.-]+\.models\.d\.ts$/,
	/^node_modules\/@anthropic-ai\/sdk\//,
	/^node_modules\/@google\/genai\//,
];

const CASES = Object.keys(COMPILERS).flatMap((compiler) =>
	Object.keys(RESOLUTIONS).map((resolution) => ({
		compiler: compiler as Compiler,
		resolution: resolution as Resolution,
	})),
);

describe("the declarations in a consumer of each pi line", () => {
	it.each(CASES)(
		"should add no error of convert-to-llm's ($compiler, $resolution, skipLibCheck: false)",
		async ({ compiler, resolution }) => {
			const result = await checked(compiler, resolution);
			// The run read both lines' declarations, both consumers, and pi-coding-agent's augmentation of each line.
			for (const file of [
				"dist/index.d.ts",
				"dist/index.d.cts",
				"dist/pi-0.73/index.d.ts",
				"dist/pi-0.73/index.d.cts",
				"test/fixtures/consumers/ts-pi-1/consumer.ts",
				"test/fixtures/consumers/ts-pi-0.73/with-pi-coding-agent.ts",
				"node_modules/@earendil-works/pi-coding-agent/dist/core/messages.d.ts",
				"node_modules/@mariozechner/pi-coding-agent/dist/core/messages.d.ts",
			])
				expect(result.files, result.output).toContain(join(ROOT, file));
			const ours = result.diagnostics.filter((d) => !PI_DEPENDENCIES.some((place) => place.test(fileOf(d))));
			expect(ours, result.output).toEqual([]);
			expect(result.diagnostics.filter((d) => / TS2717:/.test(d))).toEqual([]);
		},
		NO_LIMIT,
	);

	it.each(CASES)(
		"should leave exactly pi's own dependency errors ($compiler, $resolution)",
		async ({ compiler, resolution }) => {
			const result = await checked(compiler, resolution);
			const places = [...new Set(result.diagnostics.map((d) => fileOf(d).split("/").slice(0, 3).join("/")))].sort();
			// pi-ai 1.x's JSON imports need import attributes under nodenext only; pi 0.73.1's SDKs' errors show either way.
			expect(places).toEqual(
				resolution === "nodenext"
					? ["node_modules/@anthropic-ai/sdk", "node_modules/@earendil-works/pi-ai", "node_modules/@google/genai"]
					: ["node_modules/@anthropic-ai/sdk", "node_modules/@google/genai"],
			);
		},
		NO_LIMIT,
	);
});
