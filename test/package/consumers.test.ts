/**
 * The package as it runs: the built dist/ imported by name from an ESM and a CJS consumer, which
 * convert as pi does and keep `instanceof` across entry points. dist/ is built (when stale) by the
 * globalSetup, test/support/build.ts.
 */
import { type SpawnOptions, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { Message } from "@earendil-works/pi-ai";
import { beforeAll, describe, expect, it } from "vitest";
import { upstreamConvertToLlm } from "../support/upstream.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const CONSUMERS = join(ROOT, "test/fixtures/consumers");

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

const consumers = {} as Record<"esm" | "cjs", ConsumerResult>;

async function runConsumer(file: string): Promise<ConsumerResult> {
	const result = await run(process.execPath, [join(CONSUMERS, file)]);
	if (result.code !== 0) throw new Error(`${file} failed:\n${output(result)}`);
	return JSON.parse(result.stdout) as ConsumerResult;
}

beforeAll(async () => {
	const [esm, cjs] = await Promise.all([runConsumer("esm-consumer.mjs"), runConsumer("cjs-consumer.cjs")]);
	consumers.esm = esm;
	consumers.cjs = cjs;
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
