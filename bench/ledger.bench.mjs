/**
 * `npm run bench` (its last part, run at the end of session.bench.mjs): the request ledger,
 * `convert-to-llm --requests` (the built CLI, on the Node pi 1.x needs), on generated sessions whose
 * assistant entries carry Anthropic-shaped bills (test/fixtures/sessions/billed-session.ts).
 *
 * Rows, each the median of PAIRS whole processes (output to /dev/null), the targets beside them:
 * - the default configuration, ×4 requests (2,000 → 8,000 in a session that never compacts, the
 *   hardest shape: its last request sends 16,000 messages): time ratio ≤ 4.5;
 * - the default configuration against `--json` on the same file: ≤ 3× its time;
 * - with filters (`--max-tokens 40k --trim-step 10k`, `--prune toolCalls=before-last-10-messages
 *   --prune-step 10`), 2,000 requests compacted as pi compacts near a 200k window: ≤ 10 s; and the
 *   same filters on the 2,000 requests that never compact, shown without a target.
 *
 * Usage: node scripts/pi-node.mjs tsx bench/ledger.bench.mjs   (this part alone; BENCH_LEDGER_PAIRS, default 3)
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { resolvePiNode } from "../scripts/pi-node.mjs";
import { writeBilledSession } from "../test/fixtures/sessions/billed-session.ts";
import { median, runProcess } from "./process.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const CLI = join(ROOT, "dist/cli.js");
const PAIRS = Number(process.env.BENCH_LEDGER_PAIRS ?? 3);
const SMALL = 2_000;
/** Compact when pi's estimate of the context passes this: about 190k billed tokens at the session's ratio. */
const COMPACT_AT = 150_000;

/** The median time of each command, the commands alternating run after run. */
function medians(node, commands) {
	const times = commands.map(() => []);
	for (const args of commands) runProcess(node, [CLI, ...args]); // one warm-up run each
	for (let i = 0; i < PAIRS; i++) {
		const order = i % 2 === 0 ? commands.keys() : [...commands.keys()].reverse();
		for (const k of order) times[k].push(runProcess(node, [CLI, ...commands[k]]).ms);
	}
	return times.map(median);
}

const mark = (value, limit) => `${value <= limit ? "ok" : "OVER"} ≤ ${limit}`;
const seconds = (ms) => `${(ms / 1000).toFixed(2)} s`;

/** Runs the rows and prints them. */
export function ledgerBench() {
	const node = resolvePiNode();
	const dir = mkdtempSync(join(tmpdir(), "ctl-ledger-bench-"));
	try {
		const files = {
			small: { path: join(dir, "small.jsonl"), requests: SMALL },
			large: { path: join(dir, "large.jsonl"), requests: SMALL * 4 },
			compacted: { path: join(dir, "compacted.jsonl"), requests: SMALL, compactAt: COMPACT_AT },
		};
		for (const file of Object.values(files)) file.bytes = writeBilledSession(file.path, file).bytes;
		const size = (file) => `${file.requests.toLocaleString("en-US")} requests, ${(file.bytes / 1e6).toFixed(0)} MB`;
		console.log(
			`ledger bench: median of ${PAIRS} runs per figure, the built CLI on Node ${spawnSync(node, ["--version"], { encoding: "utf8" }).stdout.trim()}`,
		);

		const [ledgerSmall, jsonSmall, ledgerLarge, jsonLarge] = medians(node, [
			["--requests", files.small.path],
			["--json", files.small.path],
			["--requests", files.large.path],
			["--json", files.large.path],
		]);
		const growth = ledgerLarge / ledgerSmall;
		console.log(
			`  --requests, ×4 requests (${size(files.small)} → ${size(files.large)}, never compacted): ×${growth.toFixed(2)} time (${mark(growth, 4.5)}; ${seconds(ledgerSmall)} → ${seconds(ledgerLarge)})`,
		);
		for (const [file, ledger, json] of [
			[files.small, ledgerSmall, jsonSmall],
			[files.large, ledgerLarge, jsonLarge],
		]) {
			const ratio = ledger / json;
			console.log(
				`  --requests against --json (${size(file)}): ${ratio.toFixed(2)}× (${mark(ratio, 3)}; ${seconds(ledger)} against ${seconds(json)})`,
			);
		}

		const filters = [
			["--max-tokens 40k --trim-step 10k", ["--max-tokens", "40k", "--trim-step", "10k"]],
			[
				"--prune toolCalls=before-last-10-messages --prune-step 10",
				["--prune", "toolCalls=before-last-10-messages", "--prune-step", "10"],
			],
		];
		const [trimCompacted, pruneCompacted, trimNever, pruneNever] = medians(node, [
			["--requests", ...filters[0][1], files.compacted.path],
			["--requests", ...filters[1][1], files.compacted.path],
			["--requests", ...filters[0][1], files.small.path],
			["--requests", ...filters[1][1], files.small.path],
		]);
		for (const [name, compacted, never] of [
			[filters[0][0], trimCompacted, trimNever],
			[filters[1][0], pruneCompacted, pruneNever],
		]) {
			console.log(
				`  --requests ${name}: ${seconds(compacted)} on ${size(files.compacted)} compacted at ${COMPACT_AT / 1000}k estimated tokens (${mark(compacted / 1000, 10)} s); ${seconds(never)} never compacted (no target)`,
			);
		}
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) ledgerBench();
