/**
 * The packed tarball, as npm would publish it: publint --strict, and @arethetypeswrong/cli resolving
 * every entry of the entry list under node10, node16 (CJS and ESM) and bundler.
 */
import { type SpawnOptions, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { ENTRIES, exportsOf } from "../../scripts/entries.mjs";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const BIN = join(ROOT, "node_modules/.bin");
/** publint and attw wait as long as the machine needs; what they find does not depend on its speed. */
const NO_LIMIT = 30 * 60_000;

interface RunResult {
	code: number | null;
	stdout: string;
	stderr: string;
}

function run(command: string, args: readonly string[], options: SpawnOptions = {}): Promise<RunResult> {
	return new Promise((resolve) => {
		const child = spawn(command, args, { cwd: ROOT, ...options, stdio: ["ignore", "pipe", "pipe"] });
		let stdout = "";
		let stderr = "";
		child.stdout?.on("data", (chunk: Buffer) => {
			stdout += chunk.toString();
		});
		child.stderr?.on("data", (chunk: Buffer) => {
			stderr += chunk.toString();
		});
		child.on("error", (error) => resolve({ code: -1, stdout, stderr: `${stderr}${error.message}` }));
		child.on("close", (code) => resolve({ code, stdout, stderr }));
	});
}

const output = (result: RunResult): string => `exit ${result.code}\n${result.stdout}\n${result.stderr}`;

const packDir = mkdtempSync(join(tmpdir(), "ctl-pack-"));
const packed = run("npm", ["pack", "--pack-destination", packDir, "--json"]).then((result) => {
	if (result.code !== 0) throw new Error(`npm pack failed:\n${output(result)}`);
	const [info] = JSON.parse(result.stdout) as { filename: string }[];
	return join(packDir, info?.filename ?? "");
});
const publint = packed.then((tarball) => run(process.execPath, [join(BIN, "publint"), "--strict", tarball]));
const attw = packed.then((tarball) => run(process.execPath, [join(BIN, "attw"), tarball, "--format", "json"]));

afterAll(async () => {
	// Let the checks finish before their tarball goes away.
	await Promise.allSettled([publint, attw]);
	rmSync(packDir, { recursive: true, force: true });
});

describe("the packed tarball", () => {
	it(
		"should pass publint --strict",
		async () => {
			const result = await publint;
			expect(result.code, output(result)).toBe(0);
			expect(result.stdout).not.toMatch(/Errors:|Warnings:|Suggestions:/);
		},
		NO_LIMIT,
	);

	it(
		"should pass @arethetypeswrong/cli under node10, node16 (CJS and ESM) and bundler, every entry resolved",
		async () => {
			const result = await attw;
			expect(result.code, output(result)).toBe(0);
			const { analysis } = JSON.parse(result.stdout) as {
				analysis: {
					entrypoints: Record<string, { resolutions: Record<string, { resolution?: { fileName?: string } }> }>;
					problems: { kind: string; resolutionKind?: string }[];
				};
			};
			expect(
				Object.keys(analysis.entrypoints)
					.filter((key) => key !== "./package.json")
					.sort(),
			).toEqual(
				Object.keys(exportsOf(ENTRIES).exports)
					.filter((key) => key !== "./package.json")
					.sort(),
			);
			// The strict profile: node10 (a "module": "commonjs" project) counts too, through typesVersions.
			expect(analysis.problems).toEqual([]);
			for (const [entry, { resolutions }] of Object.entries(analysis.entrypoints)) {
				if (entry === "./package.json") continue;
				for (const kind of ["node10", "node16-cjs", "node16-esm", "bundler"]) {
					expect(resolutions[kind]?.resolution?.fileName, `${entry} under ${kind}`).toBeDefined();
				}
				if (entry.startsWith("./pi-0.73")) {
					expect(resolutions.node10?.resolution?.fileName, entry).toMatch(/\/dist\/pi-0\.73\/[a-z]+\.d\.cts$/);
				}
			}
		},
		NO_LIMIT,
	);
});
