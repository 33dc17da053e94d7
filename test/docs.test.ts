/**
 * The docs run: every fenced block of README.md and docs/*.md is read by its info string. A `ts`
 * block names its pi line and is type-checked against that line's packages, as a user of that line
 * would compile it (`--strict`, `skipLibCheck: false`, `moduleResolution` `nodenext` and `bundler`),
 * and run when it says `run` (pi 1.x blocks on the Node that scripts/pi-node.mjs provides); `json`
 * blocks parse. The blocks written by scripts/docs-generated.mjs are what it renders now (the CLI's
 * output) or in its format (the benchmark and parity figures, which come from slow runs).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import {
	docFiles,
	generatedBlocks,
	renderBench,
	renderCli,
	renderGates,
	renderParity,
	renderSessions,
} from "../scripts/docs-generated.mjs";
import { resolvePiNode } from "../scripts/pi-node.mjs";
import {
	blockKind,
	type DocBlock,
	docBlocks,
	importedModules,
	PI_LINES,
	type PiLine,
	wrongLineImport,
} from "./support/doc-blocks.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
/** Inside the package (so `convert-to-llm/…` resolves to the built package by its own name), git-ignored. */
const WORK = join(ROOT, ".tmp", "doc-blocks");
const TSC = join(ROOT, "node_modules", "typescript", "bin", "tsc");
const RESOLUTIONS = {
	nodenext: { module: "NodeNext", moduleResolution: "NodeNext" },
	bundler: { module: "ESNext", moduleResolution: "Bundler" },
} as const;
type Resolution = keyof typeof RESOLUTIONS;

interface Result {
	code: number | null;
	stdout: string;
	stderr: string;
}

function run(command: string, args: string[], timeoutMs = 120_000): Promise<Result> {
	return new Promise((resolve) => {
		const child: ChildProcess = spawn(command, args, { cwd: ROOT, env: { ...process.env, NO_COLOR: "1" } });
		let stdout = "";
		let stderr = "";
		child.stdout?.on("data", (chunk) => {
			stdout += chunk;
		});
		child.stderr?.on("data", (chunk) => {
			stderr += chunk;
		});
		const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
		child.on("close", (code) => {
			clearTimeout(timer);
			resolve({ code, stdout, stderr });
		});
	});
}

const blocks = docBlocks(ROOT, docFiles());
const where = (block: DocBlock) => `${block.file}:${block.line}`;
const tsBlocks = (pi: PiLine) =>
	blocks.filter((block) => {
		const kind = blockKind(block);
		return typeof kind !== "string" && kind.kind === "ts" && kind.pi === pi;
	});
/** The file a block is written to: `docs-api-md-42.ts`. */
const fileOf = (block: DocBlock) => `${block.file.replace(/[^a-z0-9]+/gi, "-")}-${block.line}.ts`;

/** tsc over one line's blocks, one file per block, with the package's own declarations as a user gets them. */
const typeChecks = new Map<string, Promise<Result>>();
let queue: Promise<Result> = Promise.resolve({ code: 0, stdout: "", stderr: "" });

beforeAll(() => {
	rmSync(WORK, { recursive: true, force: true });
	for (const pi of PI_LINES) {
		const dir = join(WORK, pi);
		mkdirSync(dir, { recursive: true });
		const files = tsBlocks(pi).map((block) => {
			writeFileSync(join(dir, fileOf(block)), block.code);
			return fileOf(block);
		});
		for (const [resolution, options] of Object.entries(RESOLUTIONS)) {
			const config = join(dir, `tsconfig.${resolution}.json`);
			const compilerOptions = {
				...options,
				target: "ES2022",
				lib: ["ES2022", "DOM"],
				strict: true,
				skipLibCheck: false,
				noEmit: true,
				types: ["node"],
				// pi's declarations take most of a run to check: later runs re-check only what changed.
				incremental: true,
				tsBuildInfoFile: join(ROOT, "node_modules", ".cache", "doc-blocks", `${pi}.${resolution}.tsbuildinfo`),
			};
			writeFileSync(config, JSON.stringify({ compilerOptions, files }, null, "\t"));
			// One tsc at a time: each reads all of pi's declarations, and other suites run tsc too.
			queue = queue.then(() => run(process.execPath, [TSC, "--listFiles", "-p", config], 400_000));
			typeChecks.set(`${pi} ${resolution}`, queue);
		}
	}
});

describe("the code blocks of README.md and docs/*.md", () => {
	it("should give every block an info string the doc test knows", () => {
		expect(blocks.length).toBeGreaterThan(20);
		const wrong = blocks
			.map((block) => [where(block), blockKind(block)] as const)
			.filter(([, kind]) => typeof kind === "string");
		expect(wrong).toEqual([]);
	});

	it("should give each pi line its own version of the samples, importing only what a user of that line has", () => {
		expect(tsBlocks("1.x").length).toBeGreaterThan(5);
		expect(tsBlocks("0.73.1").length).toBe(tsBlocks("1.x").length);
		const wrong: string[] = [];
		for (const pi of PI_LINES) {
			for (const block of tsBlocks(pi)) {
				for (const specifier of importedModules(block.code)) {
					const why = wrongLineImport(pi, specifier);
					if (why !== undefined) wrong.push(`${where(block)} (pi=${pi}): ${why}`);
				}
			}
		}
		expect(wrong).toEqual([]);
	});

	it("should parse every json block", () => {
		for (const block of blocks.filter(
			(b) => typeof blockKind(b) !== "string" && (blockKind(b) as { kind: string }).kind === "json",
		)) {
			expect(() => JSON.parse(block.code), where(block)).not.toThrow();
		}
	});

	it.each(
		PI_LINES.flatMap((pi) =>
			(Object.keys(RESOLUTIONS) as Resolution[]).map((resolution) => [pi, resolution] as const),
		),
	)(
		"should type-check every pi=%s block under %s resolution, strict and without skipLibCheck",
		async (pi: PiLine, resolution: Resolution) => {
			const result = await (typeChecks.get(`${pi} ${resolution}`) as Promise<Result>);
			const lines = result.stdout.split("\n");
			expect(result.code, `tsc did not finish: ${result.stderr}`).not.toBeNull();
			// pi's own dependencies have errors of their own under skipLibCheck: false (see
			// test/package.test.ts); every other error counts: in a block, in our declarations, or global.
			const errors = lines.filter((line) => / error TS\d+:/.test(line) && !line.startsWith("node_modules/"));
			const blamed = errors.map((line) => {
				const file = line.slice(0, line.indexOf("("));
				const block = tsBlocks(pi).find((b) => file.endsWith(fileOf(b)));
				return block === undefined ? line : `${where(block)}: ${line.slice(line.indexOf(":") + 2)}`;
			});
			expect(blamed).toEqual([]);
			// A user of one line does not have the other line's packages: nothing of them was read.
			const other = pi === "1.x" ? "@mariozechner" : "@earendil-works";
			expect(lines.filter((line) => line.includes(`/node_modules/${other}/`))).toEqual([]);
			const ours = pi === "1.x" ? join(ROOT, "dist", "earendil") : join(ROOT, "dist");
			expect(lines.some((line) => line.trim().startsWith(ours))).toBe(true);
		},
		900_000,
	);

	const runnable = PI_LINES.flatMap((pi) =>
		tsBlocks(pi)
			.filter((block) => (blockKind(block) as { run: boolean }).run)
			.map((block) => [where(block), pi, block] as const),
	);

	it.each(runnable)(
		"should run %s (pi=%s) to a clean exit",
		async (_where, pi, block) => {
			const node = pi === "1.x" ? resolvePiNode() : process.execPath;
			const result = await run(node, ["--import", "tsx", join(WORK, pi, fileOf(block))], 60_000);
			expect(result.code, `${result.stdout}${result.stderr}`).toBe(0);
		},
		90_000,
	);
});

/** The cells of a markdown table's body rows (after the header and its separator), trimmed. */
const tableRows = (text: string): string[][] =>
	text
		.split("\n")
		.filter((line) => line.startsWith("| "))
		.slice(2)
		.map((line) =>
			line
				.slice(2, -2)
				.split(" | ")
				.map((cell) => cell.trim()),
		);

describe("the generated blocks of README.md and docs/*.md", () => {
	const generated = docFiles().flatMap((file) =>
		generatedBlocks(readFileSync(join(ROOT, file), "utf8")).map((block) => ({ file, ...block })),
	);

	it("should print each convert-to-llm block exactly as the CLI prints it now", () => {
		const cli = generated.filter((block) => block.source.startsWith("convert-to-llm "));
		expect(cli.length).toBeGreaterThan(0);
		for (const block of cli) {
			expect(block.body, `${block.file}: ${block.source} (node scripts/docs-generated.mjs rewrites it)`).toBe(
				renderCli(block.source.slice("convert-to-llm ".length)),
			);
		}
	});

	it("should hold the README's performance figures (the gates, the session reader) as scripts/docs-generated.mjs writes them", () => {
		const only = (source: string) => generated.filter((block) => block.source === source);
		const gates = only("npm run bench: gates");
		const sessions = only("npm run bench: sessions");
		expect(gates.map((block) => block.file)).toEqual(["README.md"]);
		expect(sessions.map((block) => block.file)).toContain("README.md");
		// As for the full table: bench lines rebuilt from the rows render back to the block.
		const gatesBody = gates[0]?.body ?? "";
		const footer = /^`npm run bench`, (\d{4}-\d{2}-\d{2}); (history: .*)\.$/m.exec(gatesBody);
		expect(footer, gatesBody).not.toBeNull();
		const gateLines = tableRows(gatesBody).map(
			([title, target, ratio, verdict]) =>
				`${title} ${ratio?.replaceAll("*", "")} (limit ${target?.split(" ")[1]}: ${verdict === "over" ? "OVER" : "ok"})  [1]  1 ms vs 1 ms per call`,
		);
		expect(gateLines.length).toBeGreaterThan(0);
		expect(renderGates([footer?.[2], ...gateLines].join("\n"), footer?.[1] ?? "")).toBe(gatesBody);
		const sessionsBody = sessions[0]?.body ?? "";
		for (const block of sessions) expect(block.body, block.file).toBe(sessionsBody);
		const growth =
			/^Ours on 4× the input \(([^)]*)\): ×(\S+) the time \(≤ ×([\d.]+)(, over)?\)\. `npm run bench`, (\d{4}-\d{2}-\d{2}); (.*)\.$/m.exec(
				sessionsBody,
			);
		expect(growth, sessionsBody).not.toBeNull();
		const figure = (cell = "") => {
			const untargeted = /^(\S+)× \(no target\)$/.exec(cell);
			if (untargeted !== null) return `${untargeted[1]}× (no target: two runtimes`;
			const [, ratio, limit, over] = /^\*\*(\S+)×\*\* \(≤ (\S+?)(, over)?\)$/.exec(cell) ?? [];
			return `${ratio}× (${over === undefined ? "ok" : "OVER"} ≤ ${limit}`;
		};
		const sessionLines = tableRows(sessionsBody).map(([session, against, node, time, times, memory, mibs]) => {
			const [ours, pi] = (times ?? "").split(" vs ");
			const [oursMib, piMib] = (mibs ?? "").split(" vs ");
			return `  ${session} vs ${against}, ours on ${node}: time ${figure(time)}; ours ${ours}, pi ${pi}), peak memory ${figure(memory)}; ours ${oursMib}, pi ${piMib})`;
		});
		expect(sessionLines.length).toBeGreaterThan(0);
		const [, scope, times, limit, over, date, header] = growth ?? [];
		const log = [
			`session bench: ${header}`,
			...sessionLines,
			`  ours, ×4 input (${scope}): ×${times} time (${over === undefined ? "ok" : "OVER"} ≤ ${limit})`,
		];
		expect(renderSessions(log.join("\n"), date ?? "")).toBe(sessionsBody);
	});

	it("should hold the benchmark table and the parity counts in the form scripts/docs-generated.mjs writes", () => {
		const bench = generated.filter((block) => block.source === "npm run bench");
		const parity = generated.filter((block) => block.source === "parity");
		expect(bench.length).toBe(1);
		expect(parity.length).toBe(1);
		// The figures come from slow runs; what is checked here is that the block is the script's
		// rendering of such a run: rendering the rows back gives the block itself.
		const benchBody = bench[0]?.body ?? "";
		const footer = /^`npm run bench`, (\d{4}-\d{2}-\d{2}); (history: .*)\.$/m.exec(benchBody);
		expect(footer, benchBody).not.toBeNull();
		const benchLines = tableRows(benchBody).map(([title, gate, ratio, spread, ms]) => {
			const limit =
				gate === "figure" ? "" : ` (limit ${gate?.split(" ")[1]}: ${gate?.includes("over") ? "OVER" : "ok"})`;
			return `${title} ${ratio?.replaceAll("*", "")}${limit}  [${spread}]  ${ms} per call`;
		});
		expect(benchLines.length).toBeGreaterThan(0);
		expect(renderBench([footer?.[2], ...benchLines].join("\n"), footer?.[1] ?? "")).toBe(benchBody);
		const parityBody = parity[0]?.body ?? "";
		const rows = tableRows(parityBody).map(([suite, text]) => ["", suite?.replaceAll("`", ""), text]);
		const tags: Record<string, string> = {
			"test/differential.test.ts": "differential",
			"test/pi1-differential.test.ts": "pi1 differential",
			"test/session-differential.test.ts": "session differential",
			"test/pi1-session-differential.test.ts": "pi1 session differential",
		};
		const log = rows.map(
			([, suite, text]) =>
				`[${tags[suite as string]}] ${(text as string).replace(/(\d),(?=\d{3}\b)/g, "$1").replaceAll("\\|", "|")}`,
		);
		expect(renderParity(log.join("\n"))).toBe(parityBody);
		// Every differential in the block found nothing.
		expect(
			rows.every(([, , text]) => / 0 (mismatches|differ)$| 0 sessions and 0 readings differ$/.test(text as string)),
		).toBe(true);
	});
});
