/**
 * A report never overwrites what the run reads: `--html` (and `/llm-context --html`) refuse, in one
 * line and with exit 2, a path that is the session by its name, through a symlink or a hard link, the
 * default name of an input that ends in `.html`, standard input's file, standard output redirected
 * onto the session, or a plugin module; the input is byte for byte as it was.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
	closeSync,
	copyFileSync,
	linkSync,
	mkdtempSync,
	openSync,
	readdirSync,
	readFileSync,
	symlinkSync,
	writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCommand } from "../../src/pi/command.js";
import { createHost } from "../../src/pi/host.js";
import type { PiContext, PiExtensionApi } from "../../src/pi/pi-api.js";
import { createReporter } from "../../src/pi/report.js";
import { DEFAULT_HARDENING } from "../../src/pi/settings.js";
import { readSession } from "../../src/session/read.js";
import { cli, DEMO, PLUGIN, root } from "../fixtures/sessions/run-cli.js";

const sha = (path: string): string => createHash("sha256").update(readFileSync(path)).digest("hex");

/** A fresh directory holding a copy of the demo session as `name`. */
function sessionCopy(name = "s.jsonl"): { dir: string; file: string; before: string } {
	const dir = mkdtempSync(join(tmpdir(), "report-file-"));
	const file = join(dir, name);
	copyFileSync(join(root, DEMO), file);
	return { dir, file, before: sha(file) };
}

describe("convert-to-llm --html and the files it reads", () => {
	it.each([
		["--html=<the session>", (s: { file: string }) => ({ argv: [`--html=${s.file}`, s.file] })],
		[
			"a symlink to the session",
			(s: { dir: string; file: string }) => {
				const link = join(s.dir, "report.html");
				symlinkSync(s.file, link);
				return { argv: ["--html", link, s.file] };
			},
		],
		[
			"a hard link to the session",
			(s: { dir: string; file: string }) => {
				const link = join(s.dir, "same.html");
				linkSync(s.file, link);
				return { argv: ["--html", link, s.file] };
			},
		],
		[
			"a symlink to the session's directory",
			(s: { dir: string; file: string }) => {
				const link = join(s.dir, "..", `${s.dir.split("/").at(-1)}-link`);
				symlinkSync(s.dir, link);
				return { argv: [`--html=${join(link, "s.jsonl")}`, s.file] };
			},
		],
	])("should refuse %s in one line, exit 2, and leave the session as it was", async (_what, setup) => {
		const session = sessionCopy();
		const { argv } = setup(session);
		const input = argv.at(-1) as string;
		const before = sha(input);
		const run = await cli(argv, { cwd: session.dir });
		expect(run.code).toBe(2);
		expect(run.stderr).toMatch(
			/^convert-to-llm: refusing to write the report to ".*": that is the file the report is made from \(".*"\), and writing it would destroy it\. Name another file for the report\.\n$/,
		);
		expect(run.stdout).toBe("");
		expect(sha(input)).toBe(before);
	});

	it("should refuse the default name of an input that ends in .html: the report would be the input itself", async () => {
		const { dir, file } = sessionCopy("chat.html");
		const before = sha(file);
		const run = await cli(["chat.html", "--html"], { cwd: dir });
		expect(run.code).toBe(2);
		expect(run.stderr).toContain('refusing to write the report to "');
		expect(sha(file)).toBe(before);
	});

	it("should refuse a plugin module as the report's file", async () => {
		const { dir, file } = sessionCopy();
		const plugin = join(dir, "ticket.mjs");
		copyFileSync(join(root, PLUGIN), plugin);
		const before = sha(plugin);
		const run = await cli([`--html=${plugin}`, "--plugin", plugin, file], { cwd: dir });
		expect(run.code).toBe(2);
		expect(run.stderr).toContain("refusing to write the report to");
		expect(sha(plugin)).toBe(before);
	});

	it("should refuse the file standard input is read from (the built CLI, stdin redirected from the session)", () => {
		const { dir, file, before } = sessionCopy();
		const stdin = openSync(file, "r");
		try {
			const run = spawnSync(process.execPath, [join(root, "dist/cli.js"), `--html=${file}`, "-"], {
				cwd: dir,
				stdio: [stdin, "pipe", "pipe"],
				encoding: "utf8",
			});
			expect(run.status).toBe(2);
			expect(run.stderr).toMatch(
				/^convert-to-llm: refusing to write the report to ".*": that is the file the report is made from \("stdin"\)/,
			);
		} finally {
			closeSync(stdin);
		}
		expect(sha(file)).toBe(before);
	});

	it("should refuse standard output redirected onto the session (--html=- s.jsonl >> s.jsonl)", () => {
		const { dir, file, before } = sessionCopy();
		const stdout = openSync(file, "a");
		try {
			const run = spawnSync(process.execPath, [join(root, "dist/cli.js"), "--html=-", file], {
				cwd: dir,
				stdio: ["ignore", stdout, "pipe"],
				encoding: "utf8",
			});
			expect(run.status).toBe(2);
			expect(run.stderr).toMatch(
				/^convert-to-llm: refusing to write the report to standard output: it is the file the report is made from \(".*s\.jsonl"\)/,
			);
		} finally {
			closeSync(stdout);
		}
		expect(sha(file)).toBe(before);
	});

	it("should still write beside the session under another name, and over an older report", async () => {
		const { dir, file, before } = sessionCopy();
		const out = join(dir, "s.html");
		writeFileSync(out, "an older report");
		const run = await cli(["--html", file], { cwd: dir });
		expect(run.code, run.stderr).toBe(0);
		expect(readFileSync(out, "utf8").startsWith("<!doctype html>")).toBe(true);
		expect(sha(file)).toBe(before);
		expect(readdirSync(dir).sort()).toEqual(["s.html", "s.jsonl"]);
	});
});

describe("/llm-context --html and the session file", () => {
	const pi = {
		getFlag: () => undefined,
		on() {},
		registerFlag() {},
		registerCommand() {},
		events: { on() {}, emit() {} },
	};

	it("should refuse a report path that leads to the session (a symlink beside it), say so, and leave the session as it was", async () => {
		const { dir, file, before } = sessionCopy("session.jsonl");
		symlinkSync(file, join(dir, "session.llm-context.html"));
		const read = readSession(readFileSync(file, "utf8"));
		const shown: string[] = [];
		const ctx = {
			hasUI: true,
			mode: "rpc",
			cwd: dir,
			ui: { notify: (text: string, level: string) => shown.push(`${level}: ${text}`) },
			sessionManager: {
				getSessionFile: () => file,
				getLeafId: () => read.leafId,
				buildSessionContext: () => ({ messages: read.messages }),
			},
			abort() {},
		} as unknown as PiContext;
		await runCommand(createHost(pi as unknown as PiExtensionApi, DEFAULT_HARDENING), createReporter(), "--html", ctx);
		expect(shown).toEqual([
			expect.stringMatching(
				/^error: convert-to-llm: \/llm-context failed: refusing to write the report to ".*session\.llm-context\.html": that is the file the report is made from/,
			),
		]);
		expect(sha(file)).toBe(before);
	});
});
