/**
 * What the built `convert-to-llm` binary imports before it converts: `--json` (the path a script or
 * the session bench takes) leaves the terminal view, string-width, `--explain`'s JSON and the HTML
 * report unloaded; the runs that show them load them. Each run logs the modules it resolves through
 * module hooks (test/support/module-log).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));
const bin = join(root, "dist", "cli.js");
const register = join(root, "test", "support", "module-log", "register.mjs");
const DEMO = join("examples", "sessions", "demo.jsonl");
const tmp = mkdtempSync(join(tmpdir(), "ctl-cli-startup-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** The modules a run of the binary with `args` resolved (URLs), after checking that it converted (exit 0). */
function modulesOf(args: string[]): string[] {
	const log = join(tmp, `modules-${args.join("_").replace(/\W/g, "")}.txt`);
	const run = spawnSync(process.execPath, ["--import", register, bin, ...args], {
		cwd: root,
		encoding: "utf8",
		env: { ...process.env, MODULE_LOG: log, NO_COLOR: "1" },
	});
	expect(run.status, run.stderr).toBe(0);
	return readFileSync(log, "utf8").trim().split("\n");
}

const VIEW_ONLY = ["string-width", "/view-", "/terminal-columns-", "/html-report-", "/explain-view-"];
const loaded = (modules: readonly string[], part: string): boolean => modules.some((url) => url.includes(part));

describe("convert-to-llm startup", () => {
	it("should convert --json without loading the view, string-width, --explain's JSON or the HTML report", () => {
		const modules = modulesOf(["--json", DEMO]);
		expect(loaded(modules, "/dist/cli.js")).toBe(true);
		expect(VIEW_ONLY.filter((part) => loaded(modules, part))).toEqual([]);
	});

	it("should load the view and string-width to show a history, and the HTML report for --html", () => {
		const shown = modulesOf([DEMO]);
		expect(["string-width", "/view-", "/terminal-columns-"].every((part) => loaded(shown, part))).toBe(true);
		const report = modulesOf([`--html=${join(tmp, "report.html")}`, DEMO]);
		expect(loaded(report, "/html-report-")).toBe(true);
		const explained = modulesOf(["--json", "--explain", DEMO]);
		expect(loaded(explained, "/explain-view-")).toBe(true);
	});
});
