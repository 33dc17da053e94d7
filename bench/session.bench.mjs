/**
 * `npm run bench` (second part): the session reader and the CLI at pi's scale, against pi's own path.
 *
 * On a realistic session of 100,000 entries (about 52 MB of JSONL: user prompts, tool calls, tool
 * results, assistant text, from test/fixtures/sessions/large-session.ts) and one 4× as large, each
 * pair is two whole processes: `convert-to-llm --json <file>` (the built CLI) and pi's
 * `SessionManager.open` + `buildSessionContext` + `convertToLlm` + `JSON.stringify` (bench/
 * pi-session-path.mjs), both on the Node that pi line needs (pi 1.6.0: Node >= 22.19 from
 * scripts/pi-node.mjs; pi 0.73.1: this Node), as the figures the targets were set from were
 * measured ("on the same Node 22"): a pi 1.x user runs the CLI on that Node too, and a ratio across
 * two runtimes would measure the runtimes as well as the two implementations. One more row,
 * without a target, runs ours on this Node against pi 1.6.0 on its own (the figure earlier
 * versions of this bench printed). Pairs alternate (A B, then B
 * A), the figure is the median over pairs of (ours / pi's) wall time and peak memory (maxRSS, read
 * in each process at exit by bench/max-rss.mjs). Linearity: our median time on the large file over
 * that on the small one, on the same Node.
 *
 * Targets (printed beside each figure): time ≤ 0.6× pi's, peak memory ≤ 1.0× pi's, ×4 input within
 * ×4.5 time. The machine must be quiet for the figures to mean anything: the first line says how
 * loaded it was (the load average over the last minute, against the cores), the last line again.
 * BENCH_SESSION_ROWS=1,4 runs only those rows (numbered as printed; the ×4 line needs rows 3 and 4).
 *
 * Usage: npm run bench                          (builds, then both benches)
 *        node --import tsx bench/session.bench.mjs   (this one; BENCH_SESSION_PAIRS, default 5;
 *        BENCH_SESSION_ROWS, default all)
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { resolvePiNode } from "../scripts/pi-node.mjs";
import { writeLargeSession } from "../test/fixtures/sessions/large-session.ts";
import { ledgerBench } from "./ledger.bench.mjs";
import { median, runProcess } from "./process.mjs";

const PAIRS = Number(process.env.BENCH_SESSION_PAIRS ?? 5);
/** The time target: ours at most this share of pi's wall time. */
const TIME_TARGET = 0.6;
const SMALL = Number(process.env.BENCH_SESSION_ENTRIES ?? 100_000);
const ROOT = fileURLToPath(new URL("..", import.meta.url));
const CLI = join(ROOT, "dist/cli.js");
const PI_PATH = join(ROOT, "bench/pi-session-path.mjs");

/**
 * PAIRS alternating pairs of ours (on `oursNode`) and pi's (on `piNode`) on `file`: the medians of
 * the ratios and of each side.
 */
function compare(file, piNode, scope, oursNode) {
	const ours = [];
	const theirs = [];
	const ratios = { time: [], memory: [] };
	const one = () => runProcess(oursNode, [CLI, "--json", file]);
	const pi = () => runProcess(piNode, [PI_PATH, scope, file]);
	one();
	pi();
	for (let i = 0; i < PAIRS; i++) {
		let a;
		let b;
		if (i % 2 === 0) {
			a = one();
			b = pi();
		} else {
			b = pi();
			a = one();
		}
		ours.push(a);
		theirs.push(b);
		ratios.time.push(a.ms / b.ms);
		ratios.memory.push(a.mib / b.mib);
	}
	return {
		time: median(ratios.time),
		memory: median(ratios.memory),
		oursMs: median(ours.map((r) => r.ms)),
		piMs: median(theirs.map((r) => r.ms)),
		oursMib: median(ours.map((r) => r.mib)),
		piMib: median(theirs.map((r) => r.mib)),
	};
}

const mark = (value, limit) => (value <= limit ? "ok" : "OVER");
const fixed = (value, digits = 2) => value.toFixed(digits);
/** How loaded the machine is: the load average over the last minute, against its cores. */
const load = () => `load average ${fixed(loadavg()[0], 1)} on ${availableParallelism()} cores`;

const dir = mkdtempSync(join(tmpdir(), "ctl-session-bench-"));
try {
	// The generator's own shape (the compaction at 30%: most of the file is sent) and one whose latest
	// compaction is at 90%, as a long session's is: pi 1.6.0's buildContextEntries spreads the entries
	// after the compaction into push(), which overflows the stack past about 120,000 of them.
	const files = {
		wide: { path: join(dir, "wide.jsonl"), entries: SMALL, compactAt: 0.3 },
		small: { path: join(dir, "small.jsonl"), entries: SMALL, compactAt: 0.9 },
		large: { path: join(dir, "large.jsonl"), entries: SMALL * 4, compactAt: 0.9 },
	};
	const pi1Node = resolvePiNode();
	const version = (node) => spawnSync(node, ["--version"], { encoding: "utf8" }).stdout.trim();
	const pi1Version = version(pi1Node);
	// [pi line, file, pi's Node, scope, our Node, whether the row has targets]
	const rows = [
		["pi 1.6.0", files.wide, pi1Node, "@earendil-works", pi1Node, true],
		["pi 0.73.1", files.wide, process.execPath, "@mariozechner", process.execPath, true],
		["pi 1.6.0", files.small, pi1Node, "@earendil-works", pi1Node, true],
		["pi 1.6.0", files.large, pi1Node, "@earendil-works", pi1Node, true],
		["pi 1.6.0", files.wide, pi1Node, "@earendil-works", process.execPath, false],
	];
	const chosen = (process.env.BENCH_SESSION_ROWS ?? "").split(",").filter(Boolean).map(Number);
	const run = rows.filter((_, i) => chosen.length === 0 || chosen.includes(i + 1));
	for (const file of new Set(run.map((row) => row[1]))) {
		file.bytes = writeLargeSession(file.path, file.entries, 1, file.compactAt).bytes;
	}
	console.log(
		`session bench: ${PAIRS} alternating pairs per figure; ours on the Node of the pi line it is compared with: pi 1.6.0 and ours on Node ${pi1Version}, pi 0.73.1 and ours on Node ${process.version}; ${load()} at the start`,
	);
	const ours = new Map();
	for (const [line, file, node, scope, oursNode, targets] of run) {
		const figure = compare(file.path, node, scope, oursNode);
		if (targets) ours.set(file, figure.oursMs);
		const verdict = (value, limit) =>
			targets ? `${mark(value, limit)} ≤ ${limit.toFixed(limit < 1 ? 2 : 1)}` : "no target: two runtimes";
		console.log(
			`  ${(file.entries / 1000).toLocaleString("en-US")}k entries (${fixed(file.bytes / 1e6, 0)} MB, compaction at ${Math.round(file.compactAt * 100)}%) vs ${line}, ours on Node ${version(oursNode)}: time ${fixed(figure.time)}× (${verdict(figure.time, TIME_TARGET)}; ours ${fixed(figure.oursMs / 1000)} s, pi ${fixed(figure.piMs / 1000)} s), peak memory ${fixed(figure.memory)}× (${verdict(figure.memory, 1)}; ours ${fixed(figure.oursMib, 0)} MiB, pi ${fixed(figure.piMib, 0)} MiB)`,
		);
	}
	if (ours.has(files.large) && ours.has(files.small)) {
		const growth = ours.get(files.large) / ours.get(files.small);
		console.log(
			`  ours, ×4 input (compaction at 90%, Node ${pi1Version}): ×${fixed(growth)} time (${mark(growth, 4.5)} ≤ 4.5)`,
		);
	}
	console.log(`session bench done; ${load()} at the end`);
} finally {
	rmSync(dir, { recursive: true, force: true });
}

// The request ledger's rows (bench/ledger.bench.mjs).
ledgerBench();
