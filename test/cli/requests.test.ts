/**
 * `convert-to-llm --requests`: the request ledger as a table fitted to the terminal in columns, with
 * every value from the session shown safely; `--requests --json` the ledger itself; what a
 * configuration would have cost; bad input and usage in one line with exit status 2.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import stringWidth from "string-width";
import { afterAll, describe, expect, it } from "vitest";
import { resolvePiNode } from "../../scripts/pi-node.mjs";
import { piModelTable, requestLedger } from "../../src/ledger/index.js";
import { cli, fixture, read, root } from "../fixtures/sessions/run-cli.js";
import { sessionText, smallSession } from "../ledger/small-session.js";

const dir = mkdtempSync(join(tmpdir(), "ctl-requests-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const write = (name: string, text: string): string => {
	const path = join(dir, name);
	writeFileSync(path, text);
	return path;
};
const SMALL = write("small.jsonl", sessionText(smallSession()));
const RECORDED = fixture("recorded/pi-mono-before-compaction.jsonl");
const SGR = new RegExp(`${String.fromCharCode(0x1b)}\\[[0-9;]*m`, "g");

describe("convert-to-llm --requests", () => {
	it("should print one line per request, the totals, and which counter made each figure", async () => {
		const run = await cli(["--requests", SMALL]);
		const lines = run.stdout.split("\n");

		expect(run).toMatchObject({ code: 0, stderr: "" });
		expect(lines[0]).toBe(SMALL);
		expect(lines[1]).toBe("4 requests (4 billed) · as sent (pi's default conversion)");
		expect(lines[2]).toBe("anthropic/claude-sonnet-4-5: cache 5m00s (pi-ai's model table), prices as billed");
		expect(lines.slice(4, 9)).toEqual([
			"#  entry  gap  msgs  estimated  calibrated  cache  prefix   read  write  input       $  miss",
			"0  a1             1        100         100  first              0    997      3  0.0039",
			"1  a2     10s     3        700       1,600  read   kept 1    997    720      3  0.0032",
			"2  a3     10s     5      1,300       2,440  read   kept 3  1,717    720      3  0.0034",
			"3  a4     10s     7      1,500       2,680  read   kept 5  2,437    240      3  0.0018",
		]);
		expect(run.stdout).toContain("billed:   read 5,151 · write 2,677 · input 12 · output 40 · $0.01");
		expect(run.stdout).toContain("estimated: pi estimate (chars/4)");
		expect(run.stdout).toContain("calibrated: calibratedCounter(), from the bills before the request");
	});

	it("should add what a configuration would have cost, and say how much against the bill", async () => {
		const run = await cli(["--requests", "--max-tokens", "800", SMALL]);

		expect(run.code).toBe(0);
		expect(run.stdout.split("\n")[1]).toBe("4 requests (4 billed) · → modeled with trim-to-tokens (800)");
		expect(run.stdout).toMatch(/→read +→write +→input +→\$/);
		expect(run.stdout).toMatch(/break@0 trim-to-tokens/);
		expect(run.stdout).toMatch(/^modeled: {2}read .* \$0\.\d\d \([−+]\d+\.\d% against the bill\)$/m);
	});

	it("should fit every line to a narrow terminal, leaving out the least needed columns first", async () => {
		for (const columns of [60, 100]) {
			let stdout = "";
			const { main } = await import("../../src/cli/main.js");
			const code = await main({
				argv: ["--requests", "--max-tokens", "40k", RECORDED],
				cwd: process.cwd(),
				env: { FORCE_COLOR: "1" },
				stdout: { write: (text: string) => (stdout += text), isTTY: true, columns },
				stderr: { write: () => true },
				readStdin: async () => "",
			});
			expect(code).toBe(0);
			for (const line of stdout.split("\n")) expect(stringWidth(line.replace(SGR, ""))).toBeLessThanOrEqual(columns);
			// The figures that say what the configuration saves are the last to go.
			const header = stdout.split("\n").find((line) => line.replace(SGR, "").startsWith("  #")) ?? "";
			expect(header.replace(SGR, "")).toMatch(columns >= 80 ? /→write +→\$/ : /cache +prefix/);
		}
	});

	it("should show every value from the session as the view does: controls replaced, invisible characters marked", async () => {
		const hostile = smallSession({ a2: { model: "claude\u001b[2J\u202eevil" } });
		const entries = hostile.map((entry) => (entry.id === "a3" ? { ...entry, id: "a3\u001b]0;x\u0007" } : entry));
		const run = await cli(["--requests", write("hostile.jsonl", sessionText(entries))]);

		expect(run.code).toBe(0);
		// No control character but the line breaks, and no bidi override, is left.
		const controls = [...run.stdout].filter(
			(c) => (c < " " && c !== "\n") || (c >= "\u007f" && c <= "\u009f") || c === "\u202e",
		);
		expect(controls).toEqual([]);
		expect(run.stdout).toContain("anthropic/claude␛[2J⟨U+202E⟩evil");
		expect(run.stdout).toContain("a3␛]0;x�");
	});

	it("should print the ledger itself with --json", async () => {
		const run = await cli(["--requests", "--json", RECORDED]);
		const expected = await requestLedger({ text: read(RECORDED), file: RECORDED }, { models: piModelTable() });

		expect(run.code).toBe(0);
		expect(JSON.parse(run.stdout)).toEqual(JSON.parse(JSON.stringify(expected)));
		expect(run.stderr).toContain(
			"convert-to-llm: warning: the usage is all zeros: the provider reported none (e.g. the request was aborted before it answered) (13 requests, e.g.",
		);
	});

	it("should print with the built binary what it prints in-process, on the Node pi 1.x needs", async () => {
		const bin = join(root, "dist/cli.js");
		for (const argv of [
			["--requests", "--json", RECORDED],
			["--requests", "--max-tokens", "40k", SMALL],
		]) {
			const run = spawnSync(resolvePiNode(), [bin, ...argv], { cwd: root, encoding: "utf8" });
			const inProcess = await cli(argv);

			expect(run.status).toBe(0);
			expect(run.stdout).toBe(inProcess.stdout);
			expect(run.stderr).toBe(inProcess.stderr);
		}
	});

	it("should read the session from standard input", async () => {
		const run = await cli(["--requests", "--json", "-"], { stdin: sessionText(smallSession()) });

		expect(run.code).toBe(0);
		expect(JSON.parse(run.stdout)).toMatchObject({ file: "stdin", totals: { requests: 4, billed: 4 } });
	});

	it("should print nothing, exit 2, when a plugin's async tap does not settle within --timeout", async () => {
		const plugin = write(
			"never.mjs",
			'export default { name: "never", apply(registry) { registry.hooks.afterConvertAsync.tapPromise("never", () => new Promise(() => {})); } };',
		);
		// Long enough to load the module on a busy machine; each of the 4 requests then waits it out.
		const run = await cli(["--requests", "--plugin", plugin, "--timeout", "500", SMALL]);

		expect(run).toMatchObject({ code: 2, stdout: "" });
		expect(run.stderr).toMatch(
			/^convert-to-llm: 4 requests could not be converted, so the ledger would be wrong and is not printed: the conversion failed: .*never.*\. Fix the plugin, leave out its --plugin, or raise --timeout\.\n$/,
		);
	});

	it("should fail under --strict when the ledger has a problem", async () => {
		const run = await cli(["--requests", "--strict", RECORDED]);

		expect(run).toMatchObject({ code: 1, stdout: "" });
		expect(run.stderr).toMatch(/^convert-to-llm: the usage is all zeros: .* \(--strict\)\n$/);
	});

	it.each([
		[
			["--requests", fixture("messages.json")],
			/^convert-to-llm: --requests reads a pi session file \(\.jsonl\), and this is not one: /,
		],
		[
			["--requests", "--leaf", "a1", SMALL],
			/^convert-to-llm: --leaf does not apply to --requests: the ledger lists every request of the session\.\n$/,
		],
		[["--requests", "--html", SMALL], /^convert-to-llm: --requests and --html each choose the output: give one\.\n$/],
		[["--requests", "--explain", SMALL], /^convert-to-llm: --explain does not apply to --requests\.\n$/],
		[["--requests", "--diff", SMALL], /^convert-to-llm: --requests and --diff each choose the output: give one\.\n$/],
		[["--requests", join(dir, "none.jsonl")], /^convert-to-llm: cannot read ".*none\.jsonl": no such file/],
	])("should refuse %j in one line, exit 2", async (argv, message) => {
		const run = await cli(argv);

		expect(run).toMatchObject({ code: 2, stdout: "" });
		expect(run.stderr).toMatch(message);
	});
});
