/**
 * The package as it ships: the built dist/ imported by name from ESM and CJS consumers, the d.ts
 * bundle with its pi-agent-core augmentation, and publint / attw on the packed tarball. dist/ is
 * built (when stale) by the globalSetup, test/support/build.ts.
 */
import { type SpawnOptions, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { Message } from "@earendil-works/pi-ai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { upstreamConvertToLlm } from "./support/upstream.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const DIST = join(ROOT, "dist");
const CONSUMERS = join(ROOT, "test/fixtures/consumers");
const BIN = join(ROOT, "node_modules/.bin");

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

interface ErrorCase {
	case: string;
	expected: string;
	name: string;
	code: string;
	plugin?: string;
	instanceofBase: boolean;
	instanceofClass: boolean;
	instanceofError: boolean;
	sameClass: boolean;
}

interface ConsumerResult {
	format: "esm" | "cjs";
	resolved: Record<"index" | "preset" | "hooks", string>;
	exports: Record<"index" | "preset" | "hooks", string[]>;
	converted: Message[];
	viaRegistry: Message[];
	viaRootRegistry: Message[];
	blocked: Message[];
	errors: ErrorCase[];
}

const ERROR_CASES = [
	["strict preset registry given null", "InvalidMessageError"],
	["duplicate converter on a preset registry", "DuplicateConverterError"],
	["unknown role reported by a lenient preset registry", "UnknownRoleError"],
	["blockImages setting that throws, strict", "ConversionError"],
	["root registry without a plugin name", "InvalidPluginError"],
] as const;

const history = JSON.parse(readFileSync(join(CONSUMERS, "history.json"), "utf8")) as AgentMessage[];

let packDir: string;
const consumers = {} as Record<"esm" | "cjs", ConsumerResult>;
let typeCheck: Promise<RunResult>;
/** tsc over each pi line's consumer: `skipLibCheck: true` (what most projects use) and `false`. */
const universes = {} as Record<
	"mariozechner" | "earendil",
	{ lenient: Promise<RunResult>; strict: Promise<RunResult> }
>;
let publint: Promise<RunResult>;
let attw: Promise<RunResult>;

async function runConsumer(file: string): Promise<ConsumerResult> {
	const result = await run(process.execPath, [join(CONSUMERS, file)]);
	if (result.code !== 0) throw new Error(`${file} failed:\n${output(result)}`);
	return JSON.parse(result.stdout) as ConsumerResult;
}

beforeAll(async () => {
	packDir = mkdtempSync(join(tmpdir(), "ctl-pack-"));
	// The slow checks start together; each test awaits the one it asserts on.
	typeCheck = run(join(BIN, "tsc"), ["--noEmit", "--listFiles", "-p", join(CONSUMERS, "ts")]);
	const tsc = (project: string) => run(join(BIN, "tsc"), ["--noEmit", "--listFiles", "-p", join(CONSUMERS, project)]);
	universes.mariozechner = { lenient: typeCheck, strict: tsc("ts/tsconfig.strict.json") };
	universes.earendil = { lenient: tsc("ts-earendil"), strict: tsc("ts-earendil/tsconfig.strict.json") };
	const packed = run("npm", ["pack", "--pack-destination", packDir, "--json"]).then((result) => {
		if (result.code !== 0) throw new Error(`npm pack failed:\n${output(result)}`);
		const [info] = JSON.parse(result.stdout) as { filename: string }[];
		return join(packDir, info?.filename ?? "");
	});
	publint = packed.then((tarball) => run(join(BIN, "publint"), ["--strict", tarball]));
	attw = packed.then((tarball) => run(join(BIN, "attw"), [tarball, "--format", "json"]));
	const [esm, cjs] = await Promise.all([runConsumer("esm-consumer.mjs"), runConsumer("cjs-consumer.cjs")]);
	consumers.esm = esm;
	consumers.cjs = cjs;
	await packed;
}, 180_000);

afterAll(async () => {
	// Let the checks finish before their tarball goes away.
	await Promise.allSettled([
		typeCheck,
		publint,
		attw,
		...Object.values(universes).flatMap((u) => [u.lenient, u.strict]),
	]);
	if (packDir) rmSync(packDir, { recursive: true, force: true });
});

describe("the built package from ESM and CJS consumers", () => {
	it("should load dist/*.js from ESM and dist/*.cjs from CJS, by package name", () => {
		expect(consumers.esm.resolved).toEqual({
			index: expect.stringMatching(/\/dist\/index\.js$/),
			preset: expect.stringMatching(/\/dist\/preset\.js$/),
			hooks: expect.stringMatching(/\/dist\/hooks\.js$/),
		});
		expect(consumers.cjs.resolved).toEqual({
			index: expect.stringMatching(/\/dist\/index\.cjs$/),
			preset: expect.stringMatching(/\/dist\/preset\.cjs$/),
			hooks: expect.stringMatching(/\/dist\/hooks\.cjs$/),
		});
	});

	it("should export the same names from ESM and CJS, including the documented API", () => {
		expect(consumers.cjs.exports).toEqual(consumers.esm.exports);
		expect(consumers.esm.exports.index).toEqual(
			expect.arrayContaining([
				"createRegistry",
				"ConvertToLlmError",
				"UnknownRoleError",
				"ConversionError",
				"InvalidMessageError",
				"DuplicateConverterError",
				"bashExecutionToText",
				"createBranchSummaryMessage",
				"createCompactionSummaryMessage",
				"createCustomMessage",
				"COMPACTION_SUMMARY_PREFIX",
				"COMPACTION_SUMMARY_SUFFIX",
				"BRANCH_SUMMARY_PREFIX",
				"BRANCH_SUMMARY_SUFFIX",
			]),
		);
		expect(consumers.esm.exports.preset).toEqual(
			expect.arrayContaining(["defaultPreset", "createDefaultRegistry", "convertToLlm"]),
		);
		expect(consumers.esm.exports.hooks).toEqual(expect.arrayContaining(["blockImages"]));
	});

	it("should convert a history identically from ESM and CJS, as upstream convertToLlm does", () => {
		const expected = upstreamConvertToLlm(history);
		for (const format of ["esm", "cjs"] as const) {
			const result = consumers[format];
			expect(result.converted, format).toEqual(expected);
			expect(result.viaRegistry, format).toEqual(expected);
			expect(result.viaRootRegistry, format).toEqual(expected);
		}
		expect(consumers.cjs.blocked).toEqual(consumers.esm.blocked);
		expect(JSON.stringify(consumers.esm.blocked)).not.toContain('"type":"image"');
	});

	it.each(["esm", "cjs"] as const)("should keep instanceof ConvertToLlmError across entry points in %s", (format) => {
		const seen = consumers[format].errors.map((e) => ({
			case: e.case,
			name: e.name,
			instanceofBase: e.instanceofBase,
			instanceofClass: e.instanceofClass,
			instanceofError: e.instanceofError,
			sameClass: e.sameClass,
		}));
		expect(seen).toEqual(
			ERROR_CASES.map(([name, expected]) => ({
				case: name,
				name: expected,
				instanceofBase: true,
				instanceofClass: true,
				instanceofError: true,
				sameClass: true,
			})),
		);
		for (const error of consumers[format].errors) expect(error.code).toMatch(/^CONVERT_TO_LLM_[A-Z_]+$/);
	});
});

describe("the build output", () => {
	const cjsFiles = () => readdirSync(DIST).filter((file) => file.endsWith(".cjs"));

	it("should never require @mariozechner/* from the CJS build (pi is ESM-only; its types are enough)", () => {
		const files = cjsFiles();
		expect(files).toEqual(expect.arrayContaining(["index.cjs", "preset.cjs", "hooks.cjs"]));
		const offenders = files.filter((file) =>
			/require\(\s*["'`]@mariozechner\//.test(readFileSync(join(DIST, file), "utf8")),
		);
		expect(offenders).toEqual([]);
	});

	it("should keep the pi-agent-core augmentation in the ESM and CJS declaration bundles", () => {
		const augmenting = (suffix: string) =>
			readdirSync(DIST).filter(
				(file) =>
					file.endsWith(suffix) &&
					readFileSync(join(DIST, file), "utf8").includes('declare module "@earendil-works/pi-agent-core"'),
			);
		expect(augmenting(".d.ts").length).toBeGreaterThan(0);
		expect(augmenting(".d.cts").length).toBeGreaterThan(0);
	});

	it("should type-check a NodeNext consumer that relies on the augmentation, from ESM and CJS", async () => {
		const result = await typeCheck;
		expect(result.code, output(result)).toBe(0);
		// Both declaration bundles were checked: the `import` and the `require` conditions.
		const listed = result.stdout.split("\n").map((line) => line.trim());
		expect(listed).toEqual(expect.arrayContaining([join(DIST, "index.d.ts"), join(DIST, "index.d.cts")]));
		expect(listed).toEqual(
			expect.arrayContaining([join(CONSUMERS, "ts/consumer.ts"), join(CONSUMERS, "ts/consumer.cts")]),
		);
	});
});

/** tsc's diagnostics, one per line: `file(line,col): error TSnnnn: …`. */
const diagnostics = (result: RunResult): string[] =>
	result.stdout.split("\n").filter((line) => / error TS\d+:/.test(line));

describe("the types of each pi line", () => {
	it("should declare convert-to-llm/earendil* against @earendil-works only, augmentation included", () => {
		const dir = join(DIST, "earendil");
		const files = readdirSync(dir).filter((file) => /\.d\.c?ts$/.test(file));
		expect(files).toEqual(
			expect.arrayContaining(["index.d.ts", "index.d.cts", "preset.d.ts", "hooks.d.cts", "session.d.ts"]),
		);
		const texts = files.map((file) => readFileSync(join(dir, file), "utf8"));
		expect(texts.filter((text) => /["']@mariozechner\//.test(text))).toEqual([]);
		expect(texts.some((text) => text.includes('declare module "@earendil-works/pi-agent-core"'))).toBe(true);
	});

	it("should load the same runtime from convert-to-llm and convert-to-llm/earendil, ESM and CJS", async () => {
		const script = [
			'import * as a from "convert-to-llm"; import * as b from "convert-to-llm/earendil";',
			'import * as p from "convert-to-llm/earendil/preset"; import * as q from "convert-to-llm/preset";',
			'import { createRequire } from "node:module"; const require = createRequire(process.cwd() + "/");',
			'const c = require("convert-to-llm/earendil"), d = require("convert-to-llm");',
			"console.log(JSON.stringify([a.createRegistry === b.createRegistry, p.convertToLlm === q.convertToLlm,",
			"c.createRegistry === d.createRegistry, Object.keys(b).length === Object.keys(a).length]));",
		].join(" ");
		const result = await run(process.execPath, ["--input-type=module", "-e", script]);
		expect(result.code, output(result)).toBe(0);
		expect(JSON.parse(result.stdout)).toEqual([true, true, true, true]);
	});

	it.each(["mariozechner", "earendil"] as const)(
		"should type-check the %s consumer with 0 errors, its misuse cases failing (@ts-expect-error)",
		async (universe) => {
			const result = await universes[universe].lenient;
			expect(diagnostics(result)).toEqual([]);
			expect(result.code, output(result)).toBe(0);
			const declarations = universe === "earendil" ? join(DIST, "earendil") : DIST;
			const listed = result.stdout.split("\n").map((line) => line.trim());
			expect(listed).toEqual(
				expect.arrayContaining([join(declarations, "index.d.ts"), join(declarations, "index.d.cts")]),
			);
		},
	);

	it.each(["mariozechner", "earendil"] as const)(
		"should add no error under skipLibCheck: false beside pi-coding-agent's types (%s): none in our declarations or the consumer, no TS2717",
		async (universe) => {
			const result = await universes[universe].strict;
			const listed = result.stdout.split("\n").map((line) => line.trim());
			// The strict run did read our declarations and pi-coding-agent's augmentation.
			expect(listed.some((file) => file.startsWith(DIST))).toBe(true);
			expect(
				listed.some((file) =>
					file.includes(
						`@${universe === "earendil" ? "earendil-works" : "mariozechner"}/pi-coding-agent/dist/core/messages.d.ts`,
					),
				),
			).toBe(true);
			// pi's own dependencies have errors of their own under skipLibCheck: false (JSON imports
			// without attributes, SDK typings); what convert-to-llm must not add is any error of its own.
			const ours = diagnostics(result).filter(
				(line) =>
					line.startsWith("test/") ||
					line.includes("convert-to-llm") ||
					line.startsWith(DIST) ||
					/ TS2717:/.test(line),
			);
			expect(ours).toEqual([]);
		},
	);
});

describe("the packed tarball", () => {
	it("should pass publint --strict", async () => {
		const result = await publint;
		expect(result.code, output(result)).toBe(0);
		expect(result.stdout).not.toMatch(/Errors:|Warnings:|Suggestions:/);
	});

	it("should pass @arethetypeswrong/cli under node10, node16 (CJS and ESM) and bundler, every entry resolved", async () => {
		const result = await attw;
		expect(result.code, output(result)).toBe(0);
		const { analysis } = JSON.parse(result.stdout) as {
			analysis: {
				entrypoints: Record<string, { resolutions: Record<string, { resolution?: { fileName?: string } }> }>;
				problems: { kind: string; resolutionKind?: string }[];
			};
		};
		expect(Object.keys(analysis.entrypoints)).toEqual(
			expect.arrayContaining([".", "./preset", "./hooks", "./earendil", "./earendil/preset", "./earendil/hooks"]),
		);
		// The strict profile: node10 (a "module": "commonjs" project) counts too, through typesVersions.
		expect(analysis.problems).toEqual([]);
		for (const [entry, { resolutions }] of Object.entries(analysis.entrypoints)) {
			for (const kind of ["node10", "node16-cjs", "node16-esm", "bundler"]) {
				expect(resolutions[kind]?.resolution?.fileName, `${entry} under ${kind}`).toBeDefined();
			}
			if (entry.startsWith("./earendil")) {
				expect(resolutions.node10?.resolution?.fileName, entry).toMatch(/\/dist\/earendil\/[a-z]+\.d\.cts$/);
			}
		}
	});
});
