/**
 * The code blocks of README.md and docs/*.md, as a reader runs them: each `ts` block is written,
 * exactly as it stands, into a fresh project made with nothing but the README's install line of its
 * pi line (test/support/doc-project.ts), and
 *
 * - type-checked there with TypeScript 5.9, `strict` and `skipLibCheck: false`, under `nodenext` and
 *   `bundler` resolution: all blocks of one pi line and resolution are one tsc program, one `.mts`
 *   file per block (`npm init -y` makes a CommonJS package; the samples are ES modules). pi's own
 *   packages have errors of their own there (the README says which): exactly those, and no other;
 * - run when it says `run`, with `node` (>= 22.19, which runs TypeScript by stripping the types), to
 *   a clean exit, printing what its `console.log(…); // …` comments say.
 *
 * `json` blocks parse. The projects live outside the checkout, in one directory per checkout, so
 * tsc's build info (in node_modules/.cache) lets a later run re-check only what changed.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { docFiles } from "../../scripts/docs-generated.mjs";
import { resolvePiNode } from "../../scripts/pi-node.mjs";
import {
	blockKind,
	brokenPromise,
	type DocBlock,
	docBlocks,
	documentedOutput,
	importedModules,
	PI_LINES,
	type PiLine,
	readmeInstallLines,
	wrongLineImport,
} from "../support/doc-blocks.js";
import { makeProject, packCheckout, projectsDir, type Run, run } from "../support/doc-project.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const WORK = projectsDir(ROOT);
const TSC = join(ROOT, "node_modules", "typescript", "bin", "tsc");
const BUILD_INFO = join(ROOT, "node_modules", ".cache", "convert-to-llm", "doc-blocks");
const RESOLUTIONS = {
	nodenext: { module: "NodeNext", moduleResolution: "NodeNext" },
	bundler: { module: "ESNext", moduleResolution: "Bundler" },
} as const;
type Resolution = keyof typeof RESOLUTIONS;
/** A tsc run or a block waits as long as the machine needs; what it finds does not depend on its speed. */
const NO_LIMIT = 30 * 60_000;

/**
 * pi's own packages and their dependencies have errors under `skipLibCheck: false` that no sample can
 * avoid, and the README says so: pi 0.73.1's SDKs name modules they do not depend on. (pi 1.x's pi-ai
 * imports JSON without import attributes, an error under nodenext, but only in its model tables,
 * which pi-coding-agent's types read (test/package/types.test.ts) and no sample does.)
 */
const PI_OWN_ERRORS: Record<PiLine, Record<Resolution, readonly string[]>> = {
	"1.x": { nodenext: [], bundler: [] },
	"0.73.1": {
		nodenext: ["@anthropic-ai/sdk TS2307", "@google/genai TS2307"],
		bundler: ["@anthropic-ai/sdk TS2307", "@google/genai TS2307"],
	},
};

const blocks = docBlocks(ROOT, docFiles());
const where = (block: DocBlock) => `${block.file}:${block.line}`;
const kindOf = (block: DocBlock) => {
	const kind = blockKind(block);
	return typeof kind === "string" ? undefined : kind;
};
/** A `ts` block's pi line and mode, or undefined for any other block. */
const tsKind = (block: DocBlock) => {
	const kind = kindOf(block);
	return kind?.kind === "ts" ? kind : undefined;
};
const tsBlocks = (pi: PiLine) => blocks.filter((block) => tsKind(block)?.pi === pi);
const installLines = readmeInstallLines(blocks.filter((block) => block.file === "README.md"));
/** The file a block is written to: `docs-api-md-42.mts`. */
const fileOf = (block: DocBlock) => `${block.file.replace(/[^a-z0-9]+/gi, "-")}-${block.line}.mts`;

interface Project {
	/** `pi-1.x`, `pi-0.73.1` */
	readonly name: string;
	readonly pi: PiLine;
	readonly packages: readonly string[];
	readonly blocks: DocBlock[];
}

/** One project per pi line: the README's install line and that line's blocks. */
const projects: Project[] = PI_LINES.map((pi) => ({
	name: `pi-${pi}`,
	pi,
	packages: typeof installLines === "string" ? [] : installLines[pi],
	blocks: tsBlocks(pi),
}));
const projectOf = (block: DocBlock) => projects.find((project) => project.blocks.includes(block)) as Project;
const dirOf = (project: Project) => join(WORK, project.name);
const tmpOf = (project: Project) => join(dirOf(project), "tmp");

/** At most `size` of the jobs given to it at once. */
function pool(size: number) {
	let running = 0;
	const waiting: (() => void)[] = [];
	return async <T>(job: () => Promise<T>): Promise<T> => {
		if (running >= size) await new Promise<void>((resolve) => waiting.push(resolve));
		running++;
		try {
			return await job();
		} finally {
			running--;
			waiting.shift()?.();
		}
	};
}

/** The packed checkout, the projects made and every block written into its project. */
const ready: Promise<void> = (async () => {
	const tarball = await packCheckout(ROOT, join(WORK, "pack"));
	await Promise.all(
		projects.map(async (project) => {
			await makeProject(dirOf(project), project.packages, { checkout: ROOT, tarball });
			mkdirSync(tmpOf(project));
			for (const block of project.blocks) writeFileSync(join(dirOf(project), fileOf(block)), block.code);
		}),
	);
})();
// The tests await it; an unhandled rejection before they do would end the run.
ready.catch(() => undefined);

/** Two tsc programs at a time (each reads all of pi's declarations); the runs beside them. */
const compilers = pool(2);
const runners = pool(3);

const typeChecks = new Map<string, Promise<Run>>();
function typeCheck(project: Project, resolution: Resolution): Promise<Run> {
	const key = `${project.name} ${resolution}`;
	let check = typeChecks.get(key);
	if (check === undefined) {
		check = ready.then(() =>
			compilers(() => {
				const config = join(dirOf(project), `tsconfig.${resolution}.json`);
				mkdirSync(BUILD_INFO, { recursive: true });
				const compilerOptions = {
					...RESOLUTIONS[resolution],
					target: "ES2022",
					lib: ["ES2022", "DOM"],
					strict: true,
					skipLibCheck: false,
					noEmit: true,
					// Node's types, from the checkout: the project's node_modules holds the install line only.
					types: ["node"],
					typeRoots: [join(ROOT, "node_modules", "@types")],
					incremental: true,
					tsBuildInfoFile: join(BUILD_INFO, `${project.name}.${resolution}.tsbuildinfo`),
				};
				writeFileSync(config, JSON.stringify({ compilerOptions, files: project.blocks.map(fileOf) }, null, "\t"));
				return run(process.execPath, [TSC, "--listFiles", "--pretty", "false", "-p", config], {
					cwd: dirOf(project),
					timeoutMs: NO_LIMIT,
				});
			}),
		);
		typeChecks.set(key, check);
	}
	return check;
}

/** The package a file of a node_modules directory belongs to (`@scope/name` or `name`). */
function packageOf(file: string): string {
	const after = file.slice(file.lastIndexOf(`${sep}node_modules${sep}`) + `${sep}node_modules${sep}`.length);
	const parts = after.split(sep);
	return (parts[0] as string).startsWith("@") ? `${parts[0]}/${parts[1]}` : (parts[0] as string);
}

interface Diagnostics {
	/** In a block, in convert-to-llm's declarations, or without a file: each must not be. */
	readonly ours: string[];
	/** The packages (pi's own and their dependencies) with errors of their own, and the codes: `name TS1234`. */
	readonly theirs: string[];
	/** Every file the program read, absolute. */
	readonly files: string[];
}

function diagnosticsOf(project: Project, result: Run): Diagnostics {
	const dir = dirOf(project);
	const ours: string[] = [];
	const theirs = new Set<string>();
	for (const line of result.stdout.split("\n")) {
		const found = /^(.+?)\(\d+,\d+\): error ((TS\d+): .*)$/.exec(line);
		if (found === null) {
			if (/ error TS\d+:/.test(line)) ours.push(line);
			continue;
		}
		const file = resolve(dir, found[1] as string);
		const block = project.blocks.find((b) => file === join(dir, fileOf(b)));
		if (block !== undefined) ours.push(`${where(block)}: ${found[2]}`);
		else if (file.startsWith(join(dir, "node_modules", "convert-to-llm") + sep) || !file.includes("node_modules"))
			ours.push(`${relative(dir, file)}: ${found[2]}`);
		else theirs.add(`${packageOf(file)} ${found[3]}`);
	}
	const files = result.stdout
		.split("\n")
		.map((line) => line.trim())
		.filter((line) => line.startsWith("/"));
	return { ours, theirs: [...theirs].sort(), files };
}

const blockRuns = new Map<DocBlock, Promise<Run>>();
/** A block run as a reader runs it: `node <file>.mts` in its project. */
function runBlock(block: DocBlock): Promise<Run> {
	let result = blockRuns.get(block);
	if (result === undefined) {
		const project = projectOf(block);
		result = ready.then(() =>
			runners(() =>
				run(resolvePiNode(), [fileOf(block)], {
					cwd: dirOf(project),
					timeoutMs: NO_LIMIT,
					// What a block writes to the temp directory goes with its project.
					env: { PATH: process.env.PATH, HOME: process.env.HOME, TMPDIR: tmpOf(project), NO_COLOR: "1" },
				}),
			),
		);
		blockRuns.set(block, result);
	}
	return result;
}

const checks = projects.flatMap((project) =>
	(Object.keys(RESOLUTIONS) as Resolution[]).map((resolution) => ({ project, resolution })),
);
const runnable = blocks.filter((block) => tsKind(block)?.run === true);
// Every check and every run starts now, the longest checks (pi 0.73.1's, ~2.5x pi 1.x's) first: the
// tests below only wait for theirs.
for (const { project, resolution } of [...checks].reverse()) typeCheck(project, resolution).catch(() => undefined);
for (const block of runnable) runBlock(block).catch(() => undefined);

describe("the code blocks of README.md and docs/*.md", () => {
	it("should give every block an info string the doc test knows", () => {
		expect(blocks.length).toBeGreaterThan(20);
		const wrong = blocks
			.map((block) => [where(block), blockKind(block)] as const)
			.filter(([, kind]) => typeof kind === "string");
		expect(wrong).toEqual([]);
	});

	it("should have one README install line per pi line, each adding convert-to-llm and that line's pi", () => {
		expect(installLines).toEqual({
			"1.x": ["convert-to-llm", "@earendil-works/pi-agent-core", "@earendil-works/pi-ai"],
			"0.73.1": ["convert-to-llm", "@mariozechner/pi-agent-core", "@mariozechner/pi-ai"],
		});
	});

	it("should give each pi line its own version of the samples, importing only that line's paths", () => {
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
		for (const block of blocks.filter((b) => kindOf(b)?.kind === "json")) {
			expect(() => JSON.parse(block.code), where(block)).not.toThrow();
		}
	});

	it("should say in the README which errors pi's own packages have under skipLibCheck: false", () => {
		const readme = readFileSync(join(ROOT, "README.md"), "utf8");
		const install = readme.slice(
			readme.indexOf("## Install"),
			readme.indexOf("\n## ", readme.indexOf("## Install") + 1),
		);
		const sentence = install.split("\n").find((line) => line.includes("errors of their own")) ?? "";
		for (const pi of PI_LINES) {
			for (const error of new Set(Object.values(PI_OWN_ERRORS[pi]).flat())) {
				const [name, code] = error.split(" ");
				expect(sentence).toContain(`\`${name}\``);
				expect(sentence).toContain(code);
			}
		}
	});

	it.each(checks.map(({ project, resolution }) => [project.name, resolution, project, resolution] as const))(
		"should type-check the blocks of %s under %s resolution, strict and without skipLibCheck, with only pi's own errors",
		async (_name, _resolution, project, resolution) => {
			const result = await typeCheck(project, resolution);
			expect(result.code, `tsc did not finish: ${result.stderr}`).not.toBeNull();
			const { ours, theirs, files } = diagnosticsOf(project, result);
			expect(ours).toEqual([]);
			expect(theirs).toEqual(PI_OWN_ERRORS[project.pi][resolution]);
			// Every block was read, and convert-to-llm's declarations came from the tarball in the project.
			for (const block of project.blocks) expect(files).toContain(join(dirOf(project), fileOf(block)));
			const unpacked = join(dirOf(project), "node_modules", "convert-to-llm", "dist");
			expect(files.some((file) => file.startsWith(unpacked))).toBe(true);
			// A user of one line does not have the other line's packages: nothing of them was read.
			const other = project.pi === "1.x" ? "@mariozechner" : "@earendil-works";
			expect(files.filter((file) => file.includes(`${sep}node_modules${sep}${other}${sep}`))).toEqual([]);
		},
		NO_LIMIT,
	);

	it.each(runnable.map((block) => [where(block), projectOf(block).name, block] as const))(
		"should run %s in %s to a clean exit, printing what its comments say",
		async (_where, _project, block) => {
			const result = await runBlock(block);
			expect(result.code, `${result.stdout}${result.stderr}`).toBe(0);
			expect(brokenPromise(documentedOutput(block.code), result.stdout), result.stdout).toBeUndefined();
		},
		NO_LIMIT,
	);
});
