#!/usr/bin/env node
/**
 * The parts of README.md and docs/*.md that come from a run, never from copying: each sits between
 * `<!-- generated: <source> -->` and `<!-- /generated -->`, and this script writes it.
 *
 * Sources:
 * - `convert-to-llm <args>`: the CLI's stdout (dist/cli.js, NO_COLOR) in a text fence. Fast; the doc
 *   test (test/docs/generated-blocks.test.ts) checks each such block is what the CLI prints now. `… | from <text>`
 *   keeps the output from the first line starting with `<text>`.
 * - `npm run bench`: the table of the benchmark's ratios, from its output (`--bench <file>`, saved
 *   with `npm run bench | tee bench.txt`, or `--bench run` to run it here). Too slow and too noisy for
 *   a test: the doc test checks only that the block is this script's rendering of bench lines.
 *   `npm run bench: gates` is the rows with a target only; `npm run bench: sessions` the session
 *   reader's figures against pi (bench/session.bench.mjs's lines), from the same output.
 * - `parity`: the counts of the differential suites, from their console lines in a vitest run's
 *   output (`--parity <file>`, e.g. the log of `npm test`, or `--parity run` to run the four suites
 *   here). Their seeds are fixed, so the counts are deterministic: `.ci/run` checks the block against
 *   the log of its own `npm test` (`--check --parity <log>`); the doc test checks the format.
 *
 * Usage: node scripts/docs-generated.mjs [--check] [--bench <file>|run] [--parity <file>|run]
 *   Without --bench/--parity, those blocks are left as they are. --check writes nothing and exits 1
 *   when a block it can render differs, naming the file and the source.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { markdownTable as table } from "./markdown-table.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const OPEN = "<!-- generated: ";
const CLOSE = "<!-- /generated -->";
/** The suites whose console lines the parity block is made of, in the order the block lists them. */
export const PARITY_SUITES = [
	"test/differential/differential.test.ts",
	"test/differential/pi1-differential.test.ts",
	"test/differential/session-differential.test.ts",
	"test/differential/pi1-session-differential.test.ts",
];
/** A suite's console-line tag (`[pi1 differential] …`) and the suite it comes from. */
const PARITY_TAGS = {
	differential: "test/differential/differential.test.ts",
	"pi1 differential": "test/differential/pi1-differential.test.ts",
	"session differential": "test/differential/session-differential.test.ts",
	"pi1 session differential": "test/differential/pi1-session-differential.test.ts",
};

/** README.md and every docs/*.md, relative to the root. */
export function docFiles() {
	const docs = readdirSync(join(ROOT, "docs"))
		.filter((name) => name.endsWith(".md"))
		.sort()
		.map((name) => `docs/${name}`);
	return ["README.md", ...docs];
}

/** The generated blocks of a text: `source` and the body between the markers (offsets into `text`). */
export function generatedBlocks(text) {
	const blocks = [];
	let from = 0;
	for (;;) {
		// A marker starts a line; one quoted in prose (`<!-- generated: … -->`) is not a block.
		const found = text.indexOf(`\n${OPEN}`, from === 0 ? -1 : from);
		if (found === -1) return blocks;
		const open = found + 1;
		const headEnd = text.indexOf(" -->\n", open);
		const close = text.indexOf(CLOSE, headEnd);
		if (headEnd === -1 || close === -1) throw new Error(`an unclosed "${OPEN}" block at offset ${open}`);
		const source = text.slice(open + OPEN.length, headEnd);
		const bodyStart = headEnd + " -->\n".length;
		blocks.push({ source, bodyStart, bodyEnd: close, body: text.slice(bodyStart, close) });
		from = close + CLOSE.length;
	}
}

/** A fence longer than any backtick run at a line start in `text`. */
function fenced(text) {
	let longest = 2;
	for (const line of text.split("\n")) {
		const run = /^\s*(`+)/.exec(line)?.[1]?.length ?? 0;
		longest = Math.max(longest, run);
	}
	const fence = "`".repeat(longest + 1);
	return `${fence}text\n${text.endsWith("\n") ? text : `${text}\n`}${fence}\n`;
}

/**
 * `convert-to-llm <args>`: what the built CLI prints, without colour, run from the root;
 * `convert-to-llm <args> | from <text>`: from its first line that starts with `<text>` on.
 */
export function renderCli(source) {
	const [args = "", from] = source.split(" | from ");
	const argv = args.split(" ").filter((word) => word !== "");
	const result = spawnSync(process.execPath, [join(ROOT, "dist/cli.js"), ...argv], {
		cwd: ROOT,
		encoding: "utf8",
		env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" },
	});
	if (result.error) throw result.error;
	if (result.status !== 0 && result.status !== 1) {
		throw new Error(`convert-to-llm ${args} exited ${result.status}: ${result.stderr}`);
	}
	if (from === undefined) return fenced(result.stdout);
	const lines = result.stdout.split("\n");
	const start = lines.findIndex((line) => line.startsWith(from));
	if (start === -1) throw new Error(`convert-to-llm ${args} printed no line starting with "${from}"`);
	return fenced(lines.slice(start).join("\n"));
}

const BENCH_LINE = /^(\S.*?) +(\d+\.\d{3})(?: \(limit (\d+\.\d+): (ok|OVER)\))? {2}\[([\d. ]+)\] {2}(.+) per call$/;

/** The table of `npm run bench`'s output: one row per comparison, in the order it printed them. */
export function renderBench(output, date) {
	const lines = output.split("\n");
	const header = lines.find((line) => line.startsWith("history: "));
	const rows = lines.map((line) => BENCH_LINE.exec(line)).filter((match) => match !== null);
	if (header === undefined || rows.length === 0) throw new Error("no `npm run bench` output found");
	const body = rows.map(([, title, ratio, limit, verdict, spread, ms]) => {
		const gate = limit === undefined ? "figure" : `≤ ${limit}${verdict === "OVER" ? " (over)" : ""}`;
		return [title, gate, `**${ratio}**`, spread.trim(), ms];
	});
	const columns = ["comparison", "limit", "median ratio", "per process", "time per call"];
	return `${table(columns, body)}\n\n\`npm run bench\`, ${date}; ${header}.\n`;
}

/** A gate's second figure, printed under it: each side alone in its own processes. */
const ALONE_LINE =
	/^ {2}(one implementation per process) +(\d+\.\d{3}) \(limit (\d+\.\d+): (ok|OVER)\) {2}\[[\d. ]+\] {2}.+ per call$/;

/** The gates of `npm run bench` only (the rows with a limit, and their one-implementation-per-process figures), as the README shows them. */
export function renderGates(output, date) {
	const lines = output.split("\n");
	const header = lines.find((line) => line.startsWith("history: "));
	const rows = [];
	for (const line of lines) {
		const gate = BENCH_LINE.exec(line);
		const alone = ALONE_LINE.exec(line);
		const match = gate ?? (alone !== null && rows.length > 0 ? alone : null);
		if (match === null || match[3] === undefined) continue;
		const [, title, ratio, limit, verdict] = match;
		const name = gate === null ? `${rows.at(-1)?.[0]} (${title})` : title;
		rows.push([name, `≤ ${limit}`, `**${ratio}**`, verdict === "OVER" ? "over" : "met"]);
	}
	if (header === undefined || rows.length === 0) throw new Error("no `npm run bench` output found");
	return `${table(["comparison", "target", "median ratio", ""], rows)}\n\n\`npm run bench\`, ${date}; ${header}.\n`;
}

const SESSION_HEADER = /^session bench: (.+)$/;
const SESSION_LINE =
	/^\s+(\S+ entries) \((\d+ MB), compaction at ([\d.]+)%\) vs (pi \S+), ours on Node (\S+): time (\d+\.\d+)× \((ok|OVER|no target)(?: ≤ (\S+)|: [^;]*); ours (\S+ s), pi (\S+ s)\), peak memory (\d+\.\d+)× \((ok|OVER|no target)(?: ≤ (\S+)|: [^;]*); ours (\d+ MiB), pi (\d+ MiB)\)$/;
const GROWTH_LINE = /^\s+ours, ×4 input \(([^)]*)\): ×(\d+\.\d+) time \((ok|OVER) ≤ (\S+)\)$/;

/** The session reader's part of `npm run bench` (bench/session.bench.mjs): our CLI against pi's own path. */
export function renderSessions(output, date) {
	const lines = output.split("\n");
	const header = lines.map((line) => SESSION_HEADER.exec(line)).find((match) => match !== null);
	const verdict = (ratio, ok, limit) =>
		ok === "no target" ? `${ratio}× (no target)` : `**${ratio}×** (≤ ${limit}${ok === "OVER" ? ", over" : ""})`;
	const rows = lines
		.map((line) => SESSION_LINE.exec(line))
		.filter((match) => match !== null)
		.map(
			([
				,
				entries,
				size,
				compaction,
				pi,
				node,
				time,
				timeOk,
				timeLimit,
				ours,
				theirs,
				memory,
				memoryOk,
				memoryLimit,
				oursMib,
				piMib,
			]) => [
				`${entries} (${size}, compaction at ${Math.round(Number(compaction))}%)`,
				pi,
				`Node ${node}`,
				verdict(time, timeOk, timeLimit),
				`${ours} vs ${theirs}`,
				verdict(memory, memoryOk, memoryLimit),
				`${oursMib} vs ${piMib}`,
			],
		);
	const growth = lines.map((line) => GROWTH_LINE.exec(line)).find((match) => match !== null);
	if (header === undefined || rows.length === 0 || growth === undefined)
		throw new Error("no session bench output (bench/session.bench.mjs) found");
	const [, scope, times, ok, limit] = growth;
	return `${table(["session", "against", "ours on", "time", "ours vs pi", "peak memory", "ours vs pi"], rows)}\n\nOurs on 4× the input (${scope}): ×${times} the time (≤ ×${limit}${ok === "OVER" ? ", over" : ""}). \`npm run bench\`, ${date}; ${header[1]}.\n`;
}

/** Digits grouped by thousands: 26082 → 26,082. */
const grouped = (text) => text.replace(/\b\d{4,}\b/g, (digits) => Number(digits).toLocaleString("en-US"));
/** Colour codes, as vitest writes them around console lines. */
const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g");
const PARITY_LINE = /^\[([a-z0-9 ]+)\] (.+?: (?:\d+ mismatches|\d+ differ|\d+ sessions and \d+ readings differ))/;

/** The parity block: each differential suite's counts, as its own console lines state them. */
export function renderParity(output) {
	const rows = [];
	for (const raw of output.split("\n")) {
		const match = PARITY_LINE.exec(raw.replace(ANSI, "").trim());
		if (match === null) continue;
		const suite = PARITY_TAGS[match[1]];
		if (suite === undefined) continue;
		const text = grouped(match[2].replace(/ \(child on Node [^)]*\)/, "")).replaceAll("|", "\\|");
		rows.push([PARITY_SUITES.indexOf(suite), [`\`${suite}\``, text]]);
	}
	const seen = new Set(rows.map(([index]) => index));
	const missing = PARITY_SUITES.filter((_, index) => !seen.has(index));
	if (missing.length > 0) throw new Error(`no counts from ${missing.join(", ")} in the output`);
	rows.sort((a, b) => a[0] - b[0]);
	const header = ["suite", "what the run compared, and how many differed"];
	return `${table(
		header,
		rows.map(([, row]) => row),
	)}\n`;
}

/** The renderer of one source, or `undefined` when this run cannot render it (no bench/parity input). */
function rendererFor(source, inputs) {
	if (source.startsWith("convert-to-llm ")) return () => renderCli(source.slice("convert-to-llm ".length));
	const renderers = {
		"npm run bench": renderBench,
		"npm run bench: gates": renderGates,
		"npm run bench: sessions": renderSessions,
	};
	if (Object.hasOwn(renderers, source))
		return inputs.bench === undefined ? undefined : () => renderers[source](inputs.bench, inputs.benchDate);
	if (source === "parity") return inputs.parity === undefined ? undefined : () => renderParity(inputs.parity);
	throw new Error(`unknown generated source "${source}"`);
}

/** Rewrites (or, with `check`, compares) every block it can render; returns the stale ones. */
export function update(inputs, { check }) {
	const stale = [];
	for (const file of docFiles()) {
		const path = join(ROOT, file);
		const text = readFileSync(path, "utf8");
		let out = "";
		let at = 0;
		for (const block of generatedBlocks(text)) {
			const render = rendererFor(block.source, inputs);
			const body = render === undefined ? block.body : render();
			if (body !== block.body) stale.push(`${file}: ${block.source}`);
			out += text.slice(at, block.bodyStart) + body;
			at = block.bodyEnd;
		}
		out += text.slice(at);
		if (!check && out !== text) writeFileSync(path, out);
	}
	return stale;
}

function readInput(value, run) {
	if (value === "run") return { text: run(), date: new Date().toISOString().slice(0, 10) };
	return { text: readFileSync(value, "utf8"), date: statSync(value).mtime.toISOString().slice(0, 10) };
}

function main(argv) {
	const inputs = {};
	const check = argv.includes("--check");
	const option = (name) => {
		const at = argv.indexOf(name);
		return at === -1 ? undefined : argv[at + 1];
	};
	const bench = option("--bench");
	if (bench !== undefined) {
		const input = readInput(bench, () =>
			execFileSync("npm", ["run", "--silent", "bench"], { cwd: ROOT, encoding: "utf8" }),
		);
		inputs.bench = input.text;
		inputs.benchDate = input.date;
	}
	const parity = option("--parity");
	if (parity !== undefined) {
		inputs.parity = readInput(parity, () => {
			const run = spawnSync("npx", ["vitest", "run", ...PARITY_SUITES], { cwd: ROOT, encoding: "utf8" });
			return `${run.stdout}${run.stderr}`;
		}).text;
	}
	const stale = update(inputs, { check });
	if (check && stale.length > 0) {
		console.error(
			`docs-generated: stale blocks (run node scripts/docs-generated.mjs to rewrite them):\n  ${stale.join("\n  ")}`,
		);
		process.exit(1);
	}
	if (!check)
		console.log(
			stale.length === 0 ? "docs-generated: every block current" : `docs-generated: rewrote ${stale.join(", ")}`,
		);
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) main(process.argv.slice(2));
