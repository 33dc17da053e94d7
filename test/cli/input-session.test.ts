/**
 * The CLI tells a session by its first lines, then hands it to the session reader: a file by its
 * path (read from its start again, with its slim pass), standard input as the stream it is, the
 * chunks read to tell its kind first. A session must load alike either way, however the stream is
 * cut, and standard input is read once.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { type LoadedInput, loadInput } from "../../src/cli/input.js";
import type { ReportData } from "../../src/report/report-data.js";
import { SessionLineParser } from "../../src/session/line-parser.js";
import { writeLargeSession } from "../fixtures/sessions/large-session.js";
import { cli, DEMO, root } from "../fixtures/sessions/run-cli.js";
import { dataText } from "../support/report-page.js";
import { assistant, compaction, HEADER, jsonl, user } from "../support/session-lines.js";

const tmp = mkdtempSync(join(tmpdir(), "ctl-input-session-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

const MAX = 512 * 1024 * 1024;

/** Standard input as `text` in chunks of `size` bytes, counting the chunks pulled. */
function stream(text: string, size: number) {
	const bytes = Buffer.from(text);
	const pulled = { chunks: 0, bytes: 0 };
	async function* chunks() {
		for (let at = 0; at < bytes.length; at += size) {
			pulled.chunks++;
			pulled.bytes += Math.min(size, bytes.length - at);
			yield bytes.subarray(at, at + size);
		}
	}
	return { chunks: chunks(), pulled };
}

async function load(spec: string, text: string, options: { leaf?: string; size?: number; tree?: boolean } = {}) {
	const stdin = spec === "-" && options.size !== undefined ? stream(text, options.size) : undefined;
	const loaded = await loadInput({
		spec,
		cwd: tmp,
		readStdin: async () => text,
		stdin: stdin?.chunks,
		leaf: options.leaf,
		maxBytes: MAX,
		tree: options.tree,
	});
	if (stdin !== undefined) expect(stdin.pulled.bytes).toBe(Buffer.byteLength(text));
	return loaded;
}

/** The file's load, checked equal to the same text's on stdin, whole and in chunks (but for the name). */
async function sameAsStdin(name: string, text: string, leaf?: string): Promise<LoadedInput> {
	writeFileSync(join(tmp, name), text);
	const file = await load(name, text, { leaf });
	// Problems name the input: the file by its name, standard input as "stdin".
	const renamed = JSON.parse(JSON.stringify({ ...file, name: "stdin" }).replaceAll(`\\"${name}\\"`, '\\"stdin\\"'));
	for (const size of [undefined, 1, 7, 4096]) {
		expect(JSON.parse(JSON.stringify(await load("-", text, { leaf, size }))), `chunks of ${size}`).toEqual(renamed);
	}
	return file;
}

describe("loadInput of a session", () => {
	it.each([0.3, 0.9])(
		"should load a long generated session (compaction at %d) from its path as from stdin",
		async (at) => {
			const path = join(tmp, `large-${at}.src.jsonl`);
			writeLargeSession(path, 3000, 3, at);
			const loaded = await sameAsStdin(`large-${at}.jsonl`, readFileSync(path, "utf8"));
			expect(loaded.problems).toEqual([]);
			expect(loaded.messages.length).toBeGreaterThan(0);
		},
	);

	it.each([
		["lines pi skips before the header", jsonl("{not json", "null", "", HEADER, user("a", null, "one"))],
		["a byte order mark before the header", `\ufeff${jsonl(HEADER, user("a", null, "one"))}`],
		[
			"a compaction, and a leaf before it",
			jsonl(
				HEADER,
				assistant("a", null, "m"),
				user("b", "a", "two"),
				compaction("c", "b", "b"),
				user("d", "c", "x"),
			),
		],
	])("should load a session with %s from its path as from stdin", async (_what, text) => {
		const loaded = await sameAsStdin("s.jsonl", text);
		expect(loaded.kind).toBe("session");
		expect(loaded.messages.length).toBeGreaterThan(0);
	});

	it("should give the tree, from stdin as from a file, when asked for it", async () => {
		const text = jsonl(HEADER, user("a", null, "one"), compaction("c", "a", "a"), user("b", "c", "two"));
		writeFileSync(join(tmp, "tree.jsonl"), text);
		for (const loaded of [
			await load("tree.jsonl", text, { tree: true }),
			await load("-", text, { tree: true, size: 5 }),
		]) {
			expect(loaded.session?.tree?.session.entries.map((entry) => entry.id)).toEqual(["a", "c", "b"]);
			expect(loaded.session?.tree?.leafId).toBe("b");
		}
		expect((await load("tree.jsonl", text)).session?.tree).toBeUndefined();
	});
});

describe("loadInput of standard input", () => {
	it("should end the stream where it refuses the input (--leaf on JSONL), reading no more of it", async () => {
		let pulled = 0;
		let ended = false;
		async function* endless() {
			try {
				for (;;) {
					pulled++;
					yield `${JSON.stringify({ role: "user", content: "x", timestamp: 0 })}\n`;
				}
			} finally {
				ended = true;
			}
		}
		const loading = loadInput({
			spec: "-",
			cwd: tmp,
			readStdin: async () => "",
			stdin: endless(),
			leaf: "a",
			maxBytes: MAX,
		});
		await expect(loading).rejects.toThrow("--leaf applies to pi session files");
		expect(ended).toBe(true);
		expect(pulled).toBe(1);
	});
});

describe("convert-to-llm --html", () => {
	it.each([
		["a file", [DEMO], undefined],
		["stdin", ["-"], readFileSync(join(root, DEMO), "utf8")],
	])("should read a session from %s once, its tree with its context", async (_what, input, stdin) => {
		const passes = vi.spyOn(SessionLineParser.prototype, "finish");
		const run = await cli(["--html=-", ...input], { stdin });
		expect(run.code, run.stderr).toBe(0);
		expect(passes).toHaveBeenCalledTimes(1);
		// The history column lists the session's entries (a compaction among them), not one row per message.
		const rows = (JSON.parse(dataText(run.stdout)) as ReportData).rows;
		expect(rows.some((row) => row.mark === "compaction")).toBe(true);
	});
});
