/**
 * `convert-to-llm --html` on a 46 MB history of bash runs full of `<` (an HTML page's source, the
 * worst case for a page's escaping) gives a report, in bounded memory (the built CLI with a 768 MiB
 * heap), holding every message.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { root } from "../fixtures/sessions/run-cli.js";
import { reportDataOf } from "../support/report-page.js";

const dir = mkdtempSync(join(tmpdir(), "report-size-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A JSON history of `runs` user prompts, each followed by a bash run of about 100 KB of markup. */
function writeHistory(path: string, runs: number): number {
	const body = "<".repeat(99_990);
	const items: string[] = [];
	for (let i = 0; i < runs; i++) {
		items.push(JSON.stringify({ role: "user", content: `show page ${i}`, timestamp: i }));
		items.push(
			JSON.stringify({
				role: "bashExecution",
				command: `cat page-${i}.html`,
				output: `${body}\n</script><!--${i}`,
				exitCode: 0,
				cancelled: false,
				truncated: false,
				timestamp: i,
			}),
		);
	}
	writeFileSync(path, `[${items.join(",\n")}]\n`);
	return statSync(path).size;
}

describe("convert-to-llm --html on a 46 MB history", () => {
	it("should write the report in bounded memory, with every message", () => {
		const history = join(dir, "history.json");
		expect(writeHistory(history, 460)).toBeGreaterThan(46_000_000);
		const out = join(dir, "history.html");
		const run = spawnSync(
			process.execPath,
			["--max-old-space-size=768", join(root, "dist/cli.js"), "--html", out, history],
			{ encoding: "utf8", timeout: 280_000 },
		);
		expect(run.stderr).toBe("");
		expect(run.status).toBe(0);
		expect(run.stdout).toMatch(/^wrote .*history\.html/);
		const data = reportDataOf(readFileSync(out, "utf8"));
		expect(data.history).toHaveLength(920);
		expect(data.output).toHaveLength(920);
		// A bash run's text is in the report once, with the model message it became.
		expect(data.history[1]?.within).toBe(1);
		expect(data.output[1]?.parts[0]?.text).toContain("</script><!--0");
	}, 300_000);
});
