/**
 * The CLI reads a long session file on two threads (src/session/parallel-read.ts): the start on a
 * worker, the rest on the main thread, joined as one reader would have read the file. Each file
 * must load exactly as the same bytes on stdin do (read on one thread, nothing slim), wherever it is
 * split; what cannot be joined is read again on one thread. The start runs in-process here (the
 * same code the worker runs), and in the built worker (dist/read-worker.js) at the end.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { type LoadedInput, loadInput } from "../src/cli/input.js";
import { SessionLineParser } from "../src/session/line-parser.js";
import { readStart, type StartResult } from "../src/session/read-start.js";
import { isSlim } from "../src/session/slim.js";
import { decodeStart, encodeStart } from "../src/session/start-codec.js";
import { writeLargeSession } from "./fixtures/sessions/large-session.js";
import { assistant, compaction, HEADER, jsonl, type Line, messageEntry, user } from "./support/session-lines.js";

const tmp = mkdtempSync(join(tmpdir(), "ctl-input-parallel-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

const MAX = 512 * 1024 * 1024;

/** Where the files are split: the start takes at most this share of the file. */
const SHARES = [0.05, 0.2, 0.35, 0.5, 0.65, 0.8, 0.95];

async function load(spec: string, text: string, share?: number): Promise<LoadedInput> {
	return loadInput({
		spec,
		cwd: tmp,
		readStdin: async () => text,
		leaf: undefined,
		maxBytes: MAX,
		parallel: { minBytes: 1, share, runStart: async (job) => readStart(job) },
	});
}

/** The file's load at each split, checked equal to the same text's on stdin; how many were joined. */
async function sameAsStdin(name: string, text: string): Promise<number> {
	writeFileSync(join(tmp, name), text);
	const stdin = JSON.parse(JSON.stringify(await load("-", text)));
	const joins = vi.spyOn(SessionLineParser.prototype, "withStart");
	for (const share of SHARES) {
		const file = await load(name, text, share);
		// Problems name the input: the file by its name, standard input as "stdin".
		const renamed = JSON.parse(JSON.stringify({ ...file, name: "stdin" }).replaceAll(`\\"${name}\\"`, '\\"stdin\\"'));
		expect(renamed, `split at ${share}`).toEqual(stdin);
	}
	return joins.mock.results.filter((result) => result.value !== undefined).length;
}

/** `count` user and assistant entries in a chain after `parent`, ids `<prefix>0`, `<prefix>1`, …. */
const chain = (prefix: string, parent: string | null, count: number): Line[] => {
	const lines: Line[] = [];
	for (let i = 0; i < count; i++) {
		const id = `${prefix}${i}`;
		lines.push(i % 2 === 0 ? user(id, parent, `text ${id}`) : assistant(id, parent, `m-${i}`));
		parent = id;
	}
	return lines;
};
const before = chain("a", null, 40);
const kept = chain("k", "a39", 6);
const after = chain("z", "c", 10);

/** The built CLI `cli` run on `args` (and stdin `input`), with Node's worker log on stderr. */
const runWithWorkerLog = (cli: string, args: string[], input?: string) =>
	spawnSync(process.execPath, [cli, ...args], {
		input,
		env: { ...process.env, NODE_DEBUG: "worker" },
		maxBuffer: 256 * 1024 * 1024,
		encoding: "utf8",
		timeout: 60_000,
	});

describe("loadInput of a session file read on two threads", () => {
	it.each([0.3, 0.9])("should load a long generated session (compaction at %d) as stdin does", async (at) => {
		const path = join(tmp, `large-${at}.jsonl`);
		writeLargeSession(path, 4000, 5, at);
		const joins = await sameAsStdin(`large-${at}.jsonl`, readFileSync(path, "utf8"));
		expect(joins).toBeGreaterThan(0);
	});

	it.each([
		[
			"pi's order (a chain, a compaction keeping its last entries)",
			[HEADER, ...before, ...kept, compaction("c", "k5", "k0"), ...after],
			true,
		],
		[
			"lines pi skips in the start (not JSON, null, a number)",
			[
				HEADER,
				"{not json",
				...before.slice(0, 20),
				"null",
				"7",
				...before.slice(20),
				...kept,
				compaction("c", "k5", "k0"),
				...after,
			],
			true,
		],
		[
			"lines pi skips in the rest (read again on one thread: their numbers are the start's to give)",
			[HEADER, ...before, ...kept, "{broken", compaction("c", "k5", "k0"), "0", ...after, "[1]"],
			false,
		],
		[
			"a byte order mark before the header",
			[`\uFEFF${JSON.stringify(HEADER)}`, ...before, ...kept, compaction("c", "k5", "k0"), ...after],
			true,
		],
		[
			"blank lines and whitespace at the end (the last line is trimmed as pi 0.73.1 trims it)",
			[
				HEADER,
				...before,
				...kept,
				compaction("c", "k5", "k0"),
				...after,
				`${JSON.stringify(user("e", "z9", "end"))}\u00a0`,
				"  ",
				"",
			],
			true,
		],
		[
			"a kept id that two entries have, one in the start (the start meets it: read on one thread)",
			[HEADER, user("k0", null, "early twin"), ...before.slice(1), ...kept, compaction("c", "k5", "k0"), ...after],
			false,
		],
		[
			"a leaf on a branch before the compaction (joined, then read again: its path sends slim entries)",
			[HEADER, ...before, ...kept, compaction("c", "k5", "k0"), ...after, user("leaf", "a10", "branch")],
			true,
		],
		[
			"a version 2 header (nothing slim: read on one thread)",
			[{ ...HEADER, version: 2 }, ...before, ...kept, compaction("c", "k5", "k0"), ...after],
			false,
		],
	])("should load a file with %s as stdin does", async (_what, lines, joined) => {
		const joins = await sameAsStdin("odd.jsonl", jsonl(...(lines as (Line | string)[])));
		if (joined) expect(joins).toBeGreaterThan(0);
		else expect(joins).toBe(0);
	});

	it("should refuse a file with entries but no session header as stdin does", async () => {
		const text = jsonl(...before, ...kept, compaction("c", "k5", "k0"), ...after);
		writeFileSync(join(tmp, "headless.jsonl"), text);
		const fromFile = await load("headless.jsonl", text, 0.5).catch((error: Error) => error.message);
		const fromStdin = await load("-", text).catch((error: Error) => error.message);
		expect(fromFile).toMatch(/no session header/);
		expect(fromFile).toBe((fromStdin as string).replace("stdin", '"headless.jsonl"'));
	});
});

describe("encodeStart and decodeStart", () => {
	it("should give back the start's values, slim entries slim again, whatever their fields hold", () => {
		const odd = [
			messageEntry("n", null, { role: "user", content: "x" }),
			messageEntry("o", 7 as unknown as string, { role: "assistant", provider: { p: 1 }, model: null }),
			messageEntry("p", "o", { role: "toolResult" }),
			{ type: "message", parentId: "p", message: { role: "user" } },
			{ type: "label", id: "l", parentId: "p", label: "x" },
			[1, 2] as unknown as Line,
		];
		const text = jsonl(HEADER, ...odd, user("kept", "p", "k"), "");
		const path = join(tmp, "codec.jsonl");
		writeFileSync(path, text);
		const end = Buffer.byteLength(text) - Buffer.byteLength(`${JSON.stringify(user("kept", "p", "k"))}\n\n`);
		const parser = new SessionLineParser({ slimUntil: "kept" });
		for (const [i, line] of text.slice(0, end).split("\n").slice(0, -1).entries()) parser.line(line, i + 1);
		const start = parser.start();
		expect(start).toBeDefined();
		const decoded = decodeStart(structuredClone(encodeStart(start as NonNullable<typeof start>)));
		expect(decoded).toEqual(start);
		expect(decoded.raw.map(isSlim)).toEqual(start?.raw.map(isSlim));
		expect(decoded.raw.filter(isSlim)).toHaveLength(4);
		expect(readStart({ path, end, slimUntil: "kept", file: "codec.jsonl" }).lineCount).toBe(odd.length + 1);
	});
});

describe("the built worker (dist/read-worker.js)", () => {
	const worker = join(import.meta.dirname, "../dist/read-worker.js");

	it.skipIf(!existsSync(worker))("should post the start readStart gives in-process", async () => {
		const path = join(tmp, "worker.jsonl");
		writeLargeSession(path, 2000, 7, 0.9);
		const size = readFileSync(path).length;
		const text = readFileSync(path, "utf8");
		const end = text.lastIndexOf("\n", Math.floor(size / 2)) + 1;
		const slimUntil = /"firstKeptEntryId":"([^"]+)"/.exec(text)?.[1] as string;
		const job = { path, end, slimUntil, file: "worker.jsonl" };
		const posted = await new Promise<StartResult>((resolve, reject) => {
			const thread = new Worker(worker, { workerData: job });
			thread.once("message", (message) => {
				resolve(message);
				void thread.terminate();
			});
			thread.once("error", reject);
		});
		const local = readStart(job);
		expect(posted.lineCount).toBe(local.lineCount);
		expect(decodeStart(posted.start as NonNullable<StartResult["start"]>)).toEqual(
			decodeStart(local.start as NonNullable<StartResult["start"]>),
		);
	});

	it.skipIf(!existsSync(join(import.meta.dirname, "../dist/cli.js")))(
		"should be started early for a long file, and ended unused when the file does not split (no compaction)",
		() => {
			const path = join(tmp, "uncompacted.jsonl");
			writeLargeSession(path, 20_000, 5, 2);
			expect(readFileSync(path).length).toBeGreaterThan(8 * 1024 * 1024);
			const cli = join(import.meta.dirname, "../dist/cli.js");
			const run = (args: string[], input?: string) => runWithWorkerLog(cli, args, input);
			const fromFile = run(["--json", path]);
			const fromStdin = run(["--json", "-"], readFileSync(path, "utf8"));
			expect(fromFile.status).toBe(0);
			expect(fromFile.stderr).toContain("read-worker.js");
			expect(fromFile.stdout).toBe(fromStdin.stdout);
		},
	);

	it.skipIf(!existsSync(join(import.meta.dirname, "../dist/cli.js"))).each(["cli.js", "cli.cjs"])(
		"should be started by the built CLI (dist/%s) on a long session, whose output is the one-thread read's",
		(bin) => {
			const path = join(tmp, "cli.jsonl");
			writeLargeSession(path, 20_000, 9, 0.5);
			const cli = join(import.meta.dirname, "../dist", bin);
			const run = (args: string[], input?: string) => runWithWorkerLog(cli, args, input);
			const fromFile = run(["--json", path]);
			const fromStdin = run(["--json", "-"], readFileSync(path, "utf8"));
			expect(fromFile.status).toBe(0);
			// Node's own debug log of worker threads names the script it starts.
			expect(fromFile.stderr).toContain("read-worker.js");
			expect(fromStdin.stderr).not.toContain("read-worker.js");
			expect(fromFile.stdout).toBe(fromStdin.stdout);
		},
	);
});
