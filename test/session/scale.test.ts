/**
 * The session reader at pi's scale, on whole processes: a file of five million junk lines (`0`, and
 * one in 500 text that is not JSON, after a header, before one message) converts with the CLI and reads with
 * `readSessionFile` in a process whose heap is bounded to 1 GiB, within a generous multiple of pi
 * 1.6.0's own `SessionManager.open` on the same file; the problems are counted, the first few of each
 * kind kept, the rest summarised.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolvePiNode } from "../../scripts/pi-node.mjs";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const LINES = 5_000_000;
const tmp = mkdtempSync(join(tmpdir(), "ctl-session-scale-"));
const file = join(tmp, "junk.jsonl");
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function timed(node: string, args: string[]) {
	const start = performance.now();
	const child = spawnSync(node, args, { cwd: ROOT, encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
	return { ms: performance.now() - start, status: child.status, stdout: child.stdout, stderr: child.stderr };
}

describe("session reader on a file of five million junk lines", () => {
	let piMs = 0;
	beforeAll(() => {
		const header = JSON.stringify({
			type: "session",
			version: 3,
			id: "junk",
			timestamp: "2025-01-31T12:00:00.000Z",
			cwd: "/p",
		});
		const message = JSON.stringify({
			type: "message",
			id: "m1",
			parentId: null,
			timestamp: "2025-01-31T12:00:00.000Z",
			message: { role: "user", content: "still here", timestamp: 1 },
		});
		// 499 lines of 0 and one of text that is not JSON, 10,000 times (pi pays a SyntaxError for each of those).
		writeFileSync(file, `${header}\n${`${"0\n".repeat(499)}junk\n`.repeat(LINES / 500)}${message}\n`);
		const pi = timed(resolvePiNode(), [join(ROOT, "bench/pi-session-path.mjs"), "@earendil-works", file]);
		expect(pi.status, pi.stderr).toBe(0);
		expect(JSON.parse(pi.stdout)).toEqual([{ role: "user", content: "still here", timestamp: 1 }]);
		piMs = pi.ms;
	}, 300_000);

	it("should convert it with the CLI in a 1 GiB heap, within 5× pi 1.6.0's time, with the problems summarised", () => {
		const run = timed(process.execPath, ["--max-old-space-size=1024", join(ROOT, "dist/cli.js"), "--json", file]);
		expect(run.status, run.stderr.slice(0, 2000)).toBe(0);
		expect(JSON.parse(run.stdout)).toEqual([{ role: "user", content: "still here", timestamp: 1 }]);
		const warnings = run.stderr.trim().split("\n");
		expect(warnings).toHaveLength(8);
		expect(warnings[0]).toBe(
			`convert-to-llm: warning: "${file}", line 2 is 0; it was skipped, as pi 1.x skips it (pi 0.73.1 keeps it as an entry that sends nothing, and as the last line sends an empty context). Remove that line.`,
		);
		expect(warnings[3]).toBe(
			"convert-to-llm: warning: … and 4,989,997 more lines like it: null, false, 0 or an empty string, skipped as pi 1.x skips them.",
		);
		expect(warnings[4]).toBe(
			`convert-to-llm: warning: "${file}", line 501 is not valid JSON; it was skipped, as pi skips it. Fix or remove that line.`,
		);
		expect(warnings[7]).toBe("convert-to-llm: warning: … and 9,997 more lines like it: not valid JSON, skipped.");
		console.log(
			`[session scale] ${LINES.toLocaleString("en-US")} junk lines: CLI --json ${(run.ms / 1000).toFixed(2)} s, pi 1.6.0 SessionManager.open ${(piMs / 1000).toFixed(2)} s (${(run.ms / piMs).toFixed(2)}×)`,
		);
		expect(run.ms).toBeLessThan(5 * piMs + 2000);
	}, 300_000);

	it("should read it with readSessionFile in a 1 GiB heap, counting every line and keeping ten of each kind", () => {
		const script = `
			import { readSessionFile } from ${JSON.stringify(join(ROOT, "dist/session.js"))};
			const result = readSessionFile(${JSON.stringify(file)});
			console.log(JSON.stringify({ messages: result.messages.length, kept: result.problems.length, counts: result.problemCounts, heap: process.memoryUsage().heapUsed }));
		`;
		const run = timed(process.execPath, ["--max-old-space-size=1024", "--input-type=module", "-e", script]);
		expect(run.status, run.stderr.slice(0, 2000)).toBe(0);
		const read = JSON.parse(run.stdout) as { messages: number; kept: number; counts: unknown[]; heap: number };
		expect(read).toMatchObject({ messages: 1, kept: 20 });
		expect(read.counts).toEqual([
			{
				kind: "skipped-value",
				count: 4_990_000,
				omitted: 4_989_990,
				summary:
					"… and 4,989,990 more lines like it: null, false, 0 or an empty string, skipped as pi 1.x skips them.",
			},
			{
				kind: "not-json",
				count: 10_000,
				omitted: 9_990,
				summary: "… and 9,990 more lines like it: not valid JSON, skipped.",
			},
		]);
		expect(read.heap).toBeLessThan(256 * 1024 * 1024);
	}, 300_000);
});
