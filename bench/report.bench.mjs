/**
 * The HTML report against `--json` on the same session: the bench's 100,000-entry session (about
 * 52 MB of JSONL, test/fixtures/sessions/large-session.ts), each run a whole process of the built CLI
 * on Node 22 (scripts/pi-node.mjs), `--html <file>` and `--json` in alternating pairs; the figures
 * are the medians of (html / json) wall time and peak memory (maxRSS, from bench/max-rss.mjs).
 *
 * Budget (printed beside each figure): the report takes at most 3× the time and 2× the peak memory
 * of `--json`. The machine must be quiet for the figures to mean anything.
 *
 * Usage: npm run bench (its last part), or npm run build && node scripts/pi-node.mjs tsx bench/report.bench.mjs
 *        (this part alone; BENCH_REPORT_PAIRS, default 5)
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { resolvePiNode } from "../scripts/pi-node.mjs";
import { writeLargeSession } from "../test/fixtures/sessions/large-session.ts";
import { median, runProcess } from "./process.mjs";

const PAIRS = Number(process.env.BENCH_REPORT_PAIRS ?? 5);
const ENTRIES = Number(process.env.BENCH_REPORT_ENTRIES ?? 100_000);
const ROOT = fileURLToPath(new URL("..", import.meta.url));
const CLI = join(ROOT, "dist/cli.js");

const dir = mkdtempSync(join(tmpdir(), "ctl-report-bench-"));
try {
	const session = join(dir, "session.jsonl");
	const report = join(dir, "session.html");
	const { bytes } = writeLargeSession(session, ENTRIES);
	const node = resolvePiNode();
	const html = () => runProcess(node, [CLI, "--html", report, session]);
	const json = () => runProcess(node, [CLI, "--json", session]);
	html();
	json();
	const pairs = [];
	for (let i = 0; i < PAIRS; i++) {
		let a;
		let b;
		if (i % 2 === 0) {
			a = html();
			b = json();
		} else {
			b = json();
			a = html();
		}
		pairs.push({ html: a, json: b });
	}
	const time = median(pairs.map((p) => p.html.ms / p.json.ms));
	const memory = median(pairs.map((p) => p.html.mib / p.json.mib));
	const mark = (value, limit) => (value <= limit ? "ok" : "OVER");
	console.log(
		`report bench: ${ENTRIES.toLocaleString("en-US")} entries (${(bytes / 1e6).toFixed(1)} MB), report ${(statSync(report).size / 1e6).toFixed(1)} MB, Node ${spawnSync(node, ["--version"], { encoding: "utf8" }).stdout.trim()}, ${PAIRS} pairs`,
	);
	console.log(
		`  --json  ${median(pairs.map((p) => p.json.ms)).toFixed(0)} ms, ${median(pairs.map((p) => p.json.mib)).toFixed(0)} MiB`,
	);
	console.log(
		`  --html  ${median(pairs.map((p) => p.html.ms)).toFixed(0)} ms, ${median(pairs.map((p) => p.html.mib)).toFixed(0)} MiB`,
	);
	console.log(`  time   ${time.toFixed(2)}× of --json (budget ≤ 3.0×: ${mark(time, 3)})`);
	console.log(`  memory ${memory.toFixed(2)}× of --json (budget ≤ 2.0×: ${mark(memory, 2)})`);
	if (time > 3 || memory > 2) process.exitCode = 1;
} finally {
	rmSync(dir, { recursive: true, force: true });
}
