/**
 * `convert-to-llm --html [file]` and `/llm-context --html`: where the report goes, what the command
 * line means, and that the page holds the same conversion as the view.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseCliArgs } from "../../src/cli/args.js";
import { runCommand } from "../../src/pi/command.js";
import { createHost } from "../../src/pi/host.js";
import type { PiContext, PiExtensionApi } from "../../src/pi/pi-api.js";
import { createReporter } from "../../src/pi/report.js";
import { DEFAULT_HARDENING } from "../../src/pi/settings.js";
import { besideSession, defaultReportPath } from "../../src/report/html-report.js";
import type { ReportData } from "../../src/report/report-data.js";
import { readSession } from "../../src/session/read.js";
import { cli, DEMO, fixture, PLUGIN, root } from "../fixtures/sessions/run-cli.js";
import { dataText } from "../support/report-page.js";

const dataOf = (page: string): ReportData => JSON.parse(dataText(page)) as ReportData;
const temp = (): string => mkdtempSync(join(tmpdir(), "report-cli-"));

describe("parseCliArgs --html", () => {
	it.each([
		[["--html", "s.jsonl"], "", "s.jsonl"],
		[["--html", "out.html", "s.jsonl"], "out.html", "s.jsonl"],
		[["s.jsonl", "--html", "OUT.HTM"], "OUT.HTM", "s.jsonl"],
		[["--html=report", "s.jsonl"], "report", "s.jsonl"],
		[["--html=-", "-"], "-", "-"],
		[["s.jsonl"], undefined, "s.jsonl"],
		[["--", "--html"], undefined, "--html"],
	])("should read %j as html %j, input %j", (argv, html, input) => {
		const options = parseCliArgs(argv);
		expect(options.html).toBe(html);
		expect(options.input).toBe(input);
	});

	it.each([
		[["--html=", "s.jsonl"], "--html= needs a file name"],
		[["--html", "--json", "s.jsonl"], "--html and --json each choose the output"],
	])("should refuse %j", (argv, message) => {
		expect(() => parseCliArgs(argv)).toThrow(message);
	});
});

describe("defaultReportPath and besideSession", () => {
	it("should name the report after the input, in the current directory, and after the session, beside it", () => {
		expect(defaultReportPath("a/b/demo.jsonl", "/w")).toBe("/w/demo.html");
		expect(defaultReportPath("-", "/w")).toBe("/w/convert-to-llm-report.html");
		expect(defaultReportPath("noext", "/w")).toBe("/w/noext.html");
		expect(besideSession("/s/2025_x.jsonl", "/w")).toBe("/s/2025_x.llm-context.html");
		expect(besideSession(undefined, "/w")).toBe("/w/llm-context.html");
	});
});

describe("convert-to-llm --html", () => {
	it("should write the report to the named file and say where, with the view's conversion and footer", async () => {
		const dir = temp();
		const out = join(dir, "demo.html");
		const run = await cli(["--html", out, "--plugin", PLUGIN, DEMO]);
		expect(run.code).toBe(0);
		expect(run.stdout).toMatch(/^wrote .*demo\.html \(\d+\.\d KB\); open it in a browser: file:\/\//);
		const data = dataOf(readFileSync(out, "utf8"));
		const json = JSON.parse((await cli(["--json", "--plugin", PLUGIN, DEMO])).stdout);
		expect(data.output).toHaveLength(json.length);
		const view = (await cli(["--plugin", PLUGIN, DEMO])).stdout.trimEnd().split("\n");
		expect(data.footer).toEqual(view.slice(-3));
		expect(data.footer[2]).toContain("calibrated on 5 billed requests");
		expect(data.facts[1]).toContain("example:ticket-role");
		expect(data.rows.some((row) => row.mark === "compaction")).toBe(true);
	});

	it("should write to the default name in the current directory, and to stdout with --html=-", async () => {
		const dir = temp();
		const run = await cli(["--html", join(root, DEMO)], { cwd: dir });
		expect(run.code).toBe(0);
		expect(existsSync(join(dir, "demo.html"))).toBe(true);
		const piped = await cli(["--html=-", "-"], { stdin: readFileSync(join(root, DEMO), "utf8"), cwd: dir });
		expect(piped.stdout.startsWith("<!doctype html>")).toBe(true);
		expect(dataOf(piped.stdout).output.length).toBeGreaterThan(0);
	});

	it("should give a role nothing converts the CLI's --plugin advice, as its warning does", async () => {
		const run = await cli(["--html=-", DEMO]);
		const data = dataOf(run.stdout);
		const advice = "load a plugin that converts this role with --plugin <module>";
		expect(data.problems.some((problem) => problem.includes(advice))).toBe(true);
		expect(data.history.some((item) => item.errors.some((error) => error.includes(advice)))).toBe(true);
		expect(run.stdout).not.toContain("registry.register");
	});

	it("should observe the taps of its own registry: the block-images diff is in the report", async () => {
		const dir = temp();
		const out = join(dir, "r.html");
		expect((await cli(["--html", out, "--block-images", DEMO])).code).toBe(0);
		const [tap] = dataOf(readFileSync(out, "utf8")).taps;
		expect(tap?.plugin).toBe("convert-to-llm:block-images");
		expect(tap?.changes?.[0]?.diff.some(([op]) => op === "+")).toBe(true);
	});

	it("should report the context at --leaf, and exit 1 under --strict when the conversion has problems", async () => {
		const dir = temp();
		const out = join(dir, "leaf.html");
		expect((await cli(["--html", out, "--leaf", "a1000004", DEMO])).code).toBe(0);
		expect(dataOf(readFileSync(out, "utf8")).output).toHaveLength(
			JSON.parse((await cli(["--json", "--leaf", "a1000004", DEMO])).stdout).length,
		);
		const strict = await cli(["--html", join(dir, "strict.html"), "--strict", DEMO]);
		expect(strict.code).toBe(1);
		expect(strict.stderr).toContain('No converter for role "ticket"');
	});

	it("should say in one line when the file cannot be written", async () => {
		const run = await cli(["--html", join(temp(), "missing", "x.html"), DEMO]);
		expect(run.code).toBe(2);
		expect(run.stderr).toMatch(/^convert-to-llm: cannot write the report to ".*x\.html": /);
	});
});

describe("/llm-context --html", () => {
	const pi = {
		getFlag: () => undefined,
		on() {},
		registerFlag() {},
		registerCommand() {},
		events: { on() {}, emit() {} },
	};

	it("should write the report beside the session file, with the session's path and context_edits, and say where", async () => {
		const dir = temp();
		const file = join(dir, "session.jsonl");
		writeFileSync(file, readFileSync(join(root, fixture("pi1-system-and-edits.jsonl"))));
		const read = readSession(readFileSync(file, "utf8"), { tree: true });
		const shown: string[] = [];
		const ctx = {
			hasUI: true,
			mode: "rpc",
			cwd: dir,
			ui: { notify: (text: string) => shown.push(text) },
			sessionManager: {
				getSessionFile: () => file,
				getLeafId: () => read.leafId,
				// pi's manager holds the entries it read: the report's history column comes from them.
				getEntries: () => read.tree?.session.entries,
				getHeader: () => read.header,
				buildSessionContext: () => ({ messages: read.messages }),
				buildSessionProjection: () => ({
					entries: read.entryIds.map((id, i) => ({ sourceEntry: { id }, messages: [read.messages[i]] })),
				}),
			},
			abort() {},
		} as unknown as PiContext;
		const host = createHost(pi as unknown as PiExtensionApi, DEFAULT_HARDENING);
		await runCommand(host, createReporter(), "--html", ctx);
		const path = join(dir, "session.llm-context.html");
		expect(shown).toEqual([expect.stringContaining(`wrote the HTML report to ${path}`)]);
		const data = dataOf(readFileSync(path, "utf8"));
		expect(data.title).toBe(file);
		expect(data.facts[0]).toContain("next request");
		expect(data.hidden).toEqual(["entry u0000001 (user) hidden by context_edit e0000001"]);
		expect(data.output[0]?.meta).toContain("system prompt");
		expect(data.rows.map((row) => row.entry)).toContain("e0000001");
	});

	it("should write an in-memory session's report in the working directory", async () => {
		const dir = temp();
		const shown: string[] = [];
		const ctx = {
			hasUI: false,
			cwd: dir,
			ui: { notify: (text: string) => shown.push(text) },
			sessionManager: {
				getSessionFile: () => undefined,
				buildSessionContext: () => ({ messages: [{ role: "user", content: "<b>hi</b>", timestamp: 1 }] }),
			},
			abort() {},
		} as unknown as PiContext;
		const write = process.stderr.write;
		let said = "";
		process.stderr.write = ((text: string) => {
			said += text;
			return true;
		}) as typeof process.stderr.write;
		try {
			await runCommand(
				createHost(pi as unknown as PiExtensionApi, DEFAULT_HARDENING),
				createReporter(),
				" --html ",
				ctx,
			);
		} finally {
			process.stderr.write = write;
		}
		expect(said).toContain(join(dir, "llm-context.html"));
		expect(dataOf(readFileSync(join(dir, "llm-context.html"), "utf8")).output[0]?.parts[0]?.text).toBe("<b>hi</b>");
	});
});
