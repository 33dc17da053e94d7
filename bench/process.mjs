/**
 * What the whole-process benches (session, ledger, report) share: one process run with its wall
 * time and peak memory (read by bench/max-rss.mjs at the process's exit), and the median.
 */
import { spawnSync } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const MAX_RSS = fileURLToPath(new URL("./max-rss.mjs", import.meta.url));

/** One whole process `node args…` in the repository: its wall time (ms) and peak memory (MiB); stdout to /dev/null. */
export function runProcess(node, args) {
	const sink = openSync("/dev/null", "w");
	try {
		const start = performance.now();
		const child = spawnSync(node, ["--import", MAX_RSS, ...args], {
			cwd: ROOT,
			stdio: ["ignore", sink, "pipe"],
			encoding: "utf8",
			maxBuffer: 64 * 1024 * 1024,
		});
		const ms = performance.now() - start;
		const match = /@@max-rss (\d+)\s*$/.exec(child.stderr ?? "");
		if (child.status !== 0 || !match) {
			throw new Error(`${node} ${args.join(" ")} failed (status ${child.status}): ${child.stderr?.slice(0, 2000)}`);
		}
		return { ms, mib: Number(match[1]) / 1024 };
	} finally {
		closeSync(sink);
	}
}

/** The median of `values` (the mean of the middle two when their count is even). */
export const median = (values) => {
	const sorted = [...values].sort((a, b) => a - b);
	const mid = sorted.length >> 1;
	return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
