/**
 * The CLI, run in-process: options, input detection, the default view, `--json`, `--leaf`, and one
 * clear line with exit code 2 for each kind of bad input. `test/cli/plugins.test.ts` covers `--plugin`,
 * `--explain` and `--strict`; `test/cli/e2e.test.ts` runs the built binary.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import stringWidth from "string-width";
import { describe, expect, it } from "vitest";
import packageJson from "../../package.json" with { type: "json" };
import { main } from "../../src/cli/main.js";
import { blockImages } from "../../src/hooks/block-images.js";
import { convertToLlm, createDefaultRegistry } from "../../src/preset.js";
import { readSession } from "../../src/session/index.js";
import { cli, DEMO, ESC, fixture, hash, json, PLUGIN, read } from "../fixtures/sessions/run-cli.js";

describe("convert-to-llm options", () => {
	it("should print the help with --help and -h, and the version with --version", async () => {
		for (const flag of ["--help", "-h"]) {
			const run = await cli([flag]);
			expect(run).toMatchObject({ code: 0, stderr: "" });
			expect(run.stdout).toContain("Usage: convert-to-llm [options] <file | ->");
			expect(run.stdout).toContain("--plugin <module>");
		}
		expect(await cli(["--version"])).toEqual({ code: 0, stdout: `${packageJson.version}\n`, stderr: "" });
	});

	it.each([
		[["--nope", DEMO], /^convert-to-llm: unknown option --nope\. Run convert-to-llm --help for the options\.\n$/],
		[[], /^convert-to-llm: no input given\. Usage: convert-to-llm \[options\] <file \| ->/],
		[[DEMO, DEMO], /^convert-to-llm: one input at a time, got 2/],
		[["--leaf"], /^convert-to-llm: Option '--leaf <value>' argument missing/],
		[["--leaf", "", DEMO], /^convert-to-llm: --leaf needs an entry id/],
		[
			["--max-tokens", "-1", DEMO],
			/^convert-to-llm: --max-tokens is followed by a value that starts with "-", which reads like another option; to give that value, write it as --max-tokens=<value>\./,
		],
		[["--leaf", "-x", DEMO], /^convert-to-llm: --leaf is followed by a value that starts with "-"/],
	])("should reject the usage %j with one line and exit code 2", async (argv, message) => {
		const run = await cli(argv);
		expect(run.code).toBe(2);
		expect(run.stdout).toBe("");
		expect(run.stderr).toMatch(message);
		expect(run.stderr.trim().split("\n")).toHaveLength(1);
	});
});

describe("convert-to-llm input", () => {
	it("should show the example session: a block per model message with its source, and the footer", async () => {
		const run = await cli(["--plugin", PLUGIN, DEMO]);
		expect(run.code).toBe(0);
		expect(run.stderr).toBe("");
		const lines = run.stdout.split("\n");
		expect(lines[0]).toBe(
			`${DEMO} · pi session v3 · leaf a1000022 (19 of 22 entries on its path) · anthropic/claude-sonnet-4-5 · thinking medium`,
		);
		expect(lines[1]).toBe(`converted with pi's default preset + example:ticket-role (${PLUGIN})`);
		for (const header of [
			"#0 user ← compactionSummary a1000009 · 351 chars",
			"#1 assistant ← assistant a1000008 · anthropic/claude-sonnet-4-5 · stop · 61 chars",
			"#2 user ← branchSummary a1000013 · 243 chars",
			"#3 user ← bashExecution a1000014 · 71 chars",
			"#4 user ← custom:ci-status a1000017 · 58 chars",
			"#5 user ← ticket a1000018 · 68 chars",
		]) {
			expect(lines).toContain(header);
		}
		expect(lines).toContain("   [image image/png · 72 B]");
		expect(run.stdout).not.toContain("npm_d3m0T0k3n");
		expect(run.stdout).toContain("── 8 model messages from 9 history messages: 6 user · 2 assistant\n");
		expect(run.stdout).toMatch(/1,027 characters · 1 image · ~1,460 tokens/);
		expect(run.stdout).not.toContain(ESC);
	});

	it("should print exactly the Message[] with --json, equal to the library's conversion", async () => {
		const expected = convertToLlm(readSession(read(DEMO)).messages);
		const run = await cli(["--json", DEMO]);
		expect(run.code).toBe(0);
		expect(run.stdout).toBe(json(expected));
		expect(run.stderr).toMatch(/^convert-to-llm: warning: No converter for role "ticket"/);
	});

	it("should add blockImages with --block-images", async () => {
		const { messages } = readSession(read(DEMO));
		const expected = createDefaultRegistry()
			.use(blockImages({ enabled: true }))
			.convert(messages);
		const run = await cli(["--json", "--block-images", DEMO]);
		expect(run.stdout).toBe(json(expected));
		expect(run.stdout).toContain("Image reading is disabled.");
		expect(run.stdout).not.toContain('"type": "image"');
	});

	it("should build the context at another entry with --leaf", async () => {
		const expected = convertToLlm(readSession(read(DEMO), { leafId: "a1000012" }).messages);
		const run = await cli(["--json", "--leaf", "a1000012", DEMO]);
		expect(run).toMatchObject({ code: 0, stderr: "" });
		expect(run.stdout).toBe(json(expected));
		expect(run.stdout).toContain("Date.parse accepts 2025-02-30");
	});

	it.each([
		["v1-linear.jsonl", 1],
		["v1-no-version.jsonl", 1],
		["v2-tree.jsonl", 2],
	])("should read the legacy file %s (version %i) without touching it", async (name, version) => {
		const before = hash(fixture(name));
		const count = convertToLlm(readSession(read(fixture(name))).messages).length;
		const run = await cli([fixture(name)]);
		expect(run.code).toBe(0);
		expect(run.stdout).toContain(`pi session v${version}`);
		expect(run.stdout).toContain(`── ${count} model messages`);
		expect(hash(fixture(name))).toBe(before);
	});

	it("should report a skipped line with its line number, on stderr", async () => {
		const run = await cli([fixture("v1-no-version.jsonl")]);
		expect(run.stderr).toBe(
			`convert-to-llm: warning: "${fixture("v1-no-version.jsonl")}", line 7 is not valid JSON; it was skipped, as pi skips it. Fix or remove that line.\n`,
		);
	});

	it.each([
		["a JSON array", fixture("messages.json"), "JSON of 5 AgentMessages"],
		["JSONL of AgentMessages", fixture("messages.jsonl"), "JSONL of 5 AgentMessages"],
	])("should read %s", async (_what, path, kind) => {
		const run = await cli([path]);
		expect(run.code).toBe(0);
		expect(run.stdout.split("\n")[0]).toBe(`${path} · ${kind}`);
		expect(run.stdout).toContain("── 4 model messages from 5 history messages: 3 user · 1 assistant");
		const expected = convertToLlm(JSON.parse(read(fixture("messages.json"))));
		expect((await cli(["--json", path])).stdout).toBe(json(expected));
	});

	it("should report a malformed JSONL line with its number", async () => {
		const run = await cli([fixture("messages.jsonl")]);
		expect(run.stderr).toBe(
			"convert-to-llm: warning: line 4 is not valid JSON; it was skipped. Fix or remove that line.\n",
		);
	});

	it("should read a single message object, and stdin with -", async () => {
		const message = { role: "user", content: "hello", timestamp: 1 };
		expect((await cli(["--json", "-"], { stdin: JSON.stringify(message, null, 2) })).stdout).toBe(json([message]));
		const run = await cli(["--json", "-"], { stdin: read(DEMO) });
		expect(run.stdout).toBe(json(convertToLlm(readSession(read(DEMO)).messages)));
		expect((await cli(["-"], { stdin: read(DEMO) })).stdout.split("\n")[0]).toMatch(/^stdin · pi session v3/);
	});

	it.each([
		[
			"a missing file",
			"nope.jsonl",
			/^convert-to-llm: cannot read "nope.jsonl": no such file \(looked for .*nope\.jsonl\)\. Check the path/,
		],
		["a directory", "examples", /^convert-to-llm: "examples" is a directory\. Pass one session file/],
		["an empty file", fixture("empty.jsonl"), /is empty\. Pass a pi session file \(\.jsonl\), a JSON array/],
		[
			"text that is not JSON",
			fixture("not-json.txt"),
			/is not JSON \(no line of it parses\)\. Pass a pi session file/,
		],
		[
			"a JSON object that is no message",
			fixture("object.json"),
			/is JSON but neither a pi session nor AgentMessages \(it is an object without a "role"\)/,
		],
		["a JSON array of numbers", fixture("numbers.json"), /is a JSON array, but none of its items is an AgentMessage/],
		["an invalid JSON array", fixture("broken-array.json"), /starts like a JSON array but is not valid JSON/],
		[
			"entries without a header",
			fixture("entries-only.jsonl"),
			/has session entries but no session header \(line 1 is a "message" entry/,
		],
		[
			"an unknown --leaf",
			["--leaf", "zzz", DEMO],
			/has no entry with id "zzz"\. Pick the "id" of one of its lines \(the last one is "a1000022"\)/,
		],
		[
			"--leaf on a JSON array",
			["--leaf", "a", fixture("messages.json")],
			/--leaf applies to pi session files, and ".*messages\.json" is a JSON array/,
		],
	])("should fail on %s with one line on stderr and exit code 2", async (_what, input, message) => {
		const argv = Array.isArray(input) ? input : [input];
		const file = argv.at(-1) as string;
		const before = file === "nope.jsonl" || file === "examples" ? undefined : hash(file);
		const run = await cli(argv);
		expect(run.code).toBe(2);
		expect(run.stdout).toBe("");
		expect(run.stderr).toMatch(message);
		expect(run.stderr.endsWith("\n")).toBe(true);
		expect(run.stderr.trim().split("\n")).toHaveLength(1);
		if (before !== undefined) expect(hash(file)).toBe(before);
	});

	it("should fail on an empty stdin", async () => {
		expect(await cli(["-"], { stdin: "  \n" })).toEqual({
			code: 2,
			stdout: "",
			stderr:
				"convert-to-llm: stdin is empty. Pass a pi session file (.jsonl), a JSON array of AgentMessages or JSONL of AgentMessages.\n",
		});
	});
});

describe("convert-to-llm view", () => {
	const long = {
		role: "user",
		content: Array.from({ length: 50 }, (_, i) => `line ${i + 1}`).join("\n"),
		timestamp: 1,
	};

	it("should fold long outputs, keeping the first and last lines", async () => {
		const run = await cli(["-"], { stdin: JSON.stringify([long]) });
		expect(run.stdout).toContain("   line 6\n   ⋯ 42 more lines (291 chars) ⋯\n   line 49\n   line 50\n");
		expect(run.stdout).not.toContain("line 7\n");
	});

	it("should fold a body of several blocks as if its lines were split one by one", async () => {
		/** The fold as the view once computed it: every line split, then all but the first 6 and last 2 hidden. */
		const expected = (texts: string[]): string[] => {
			const lines = texts.flatMap((text) => text.split("\n"));
			if (lines.length <= 9) return lines;
			const hidden = lines.slice(6, -2);
			const chars = hidden.reduce((sum, line) => sum + line.length, 0);
			const fold = `⋯ ${hidden.length.toLocaleString("en-US")} more lines (${chars.toLocaleString("en-US")} ${chars === 1 ? "char" : "chars"}) ⋯`;
			return [...lines.slice(0, 6), fold, ...lines.slice(-2)];
		};
		const text = fc.array(fc.stringMatching(/^[a-z ]{0,12}$/), { minLength: 1, maxLength: 14 });
		await fc.assert(
			fc.asyncProperty(fc.array(text, { minLength: 1, maxLength: 4 }), async (blocks) => {
				const texts = blocks.map((lines) => lines.join("\n"));
				const message = { role: "user", content: texts.map((t) => ({ type: "text", text: t })), timestamp: 1 };
				const run = await cli(["-"], { stdin: JSON.stringify([message]) });
				const body = run.stdout.split("\n").slice(4);
				const shown = expected(texts);
				expect(body.slice(0, shown.length)).toEqual(shown.map((line) => `   ${line}`));
				expect(body[shown.length]).toBe("");
			}),
			{ numRuns: 150 },
		);
	});

	it("should fold a multi-megabyte output of 500,000 lines to its first and last lines", async () => {
		const output = Array.from({ length: 500_000 }, (_, i) => `row ${i}\t\u001b[1m`).join("\n");
		const message = {
			role: "toolResult",
			toolCallId: "c",
			toolName: "bash",
			content: [{ type: "text", text: output }],
			isError: false,
			timestamp: 1,
		};
		const run = await cli(["-"], { stdin: JSON.stringify([message]) });
		expect(run.code).toBe(0);
		const hidden =
			output.length -
			499_999 -
			[0, 1, 2, 3, 4, 5, 499_998, 499_999].reduce((sum, i) => sum + `row ${i}\t\u001b[1m`.length, 0);
		expect(run.stdout).toContain(
			`#0 toolResult ← toolResult [0] · bash · ${output.length.toLocaleString("en-US")} chars\n   row 0  ␛[1m\n`,
		);
		expect(run.stdout).toContain(
			`   row 5  ␛[1m\n   ⋯ 499,992 more lines (${hidden.toLocaleString("en-US")} chars) ⋯\n   row 499998  ␛[1m\n   row 499999  ␛[1m\n\n`,
		);
		expect(run.stdout).not.toContain("\u001b");
	});

	it("should format the per-role counts of the footer like its other numbers", async () => {
		const history = Array.from({ length: 1_500 }, (_, i) => ({ role: "user", content: "m", timestamp: i }));
		history.push({
			role: "assistant",
			content: [],
			provider: "p",
			model: "m",
			api: "x",
			stopReason: "stop",
			usage: {},
			timestamp: 0,
		} as never);
		const run = await cli(["-"], { stdin: JSON.stringify(history) });
		expect(run.stdout).toContain("── 1,501 model messages from 1,501 history messages: 1,500 user · 1 assistant\n");
		expect(run.stdout).toContain("   1,500 characters · ~1,500 tokens");
	});

	it("should cut long lines and show control characters instead of sending them to the terminal", async () => {
		const message = { role: "user", content: `\u001b[2J${"x".repeat(300)}`, timestamp: 1 };
		const run = await cli(["-"], { stdin: JSON.stringify([message]) });
		expect(run.stdout).toContain(`   ␛[2J${"x".repeat(112)}…\n`);
		expect(run.stdout).not.toContain("\u001b");
	});

	it("should show, not send, control characters in every field that comes from the history", async () => {
		const T = "2025-01-31T12:00:00.000Z";
		const session = [
			{ type: "session", version: "3\u001b[2J", id: "s", timestamp: T, cwd: "/" },
			{
				type: "model_change",
				id: "m\u001b[31m",
				parentId: null,
				timestamp: T,
				provider: "p\u0007",
				modelId: ["\u001b[5m"],
			},
			{
				type: "thinking_level_change",
				id: "t",
				parentId: "m\u001b[31m",
				timestamp: T,
				thinkingLevel: "\u001b]0;x\u0007",
			},
			{
				type: "message",
				id: "u\u001b[1m",
				parentId: "t",
				timestamp: T,
				message: { role: "user", content: "hi", timestamp: 0 },
			},
			{
				type: "message",
				id: "a",
				parentId: "u\u001b[1m",
				timestamp: T,
				message: {
					role: "assistant",
					content: [],
					provider: "\u001b[2J",
					model: 7,
					api: "x",
					stopReason: "\u001b[8m",
					usage: {},
					timestamp: 0,
				},
			},
			{
				type: "message",
				id: "r\u0007",
				parentId: "a",
				timestamp: T,
				message: {
					role: "toolResult",
					toolCallId: "c",
					toolName: "\u001b]0;pwned\u0007",
					content: [],
					isError: false,
					timestamp: 0,
				},
			},
		];
		const run = await cli(["--explain", "-"], { stdin: session.map((line) => JSON.stringify(line)).join("\n") });
		expect(run.code).toBe(0);
		for (const text of [run.stdout, run.stderr]) {
			expect(text).not.toContain("\u001b");
			expect(text).not.toContain("\u0007");
		}
		const header = run.stdout.split("\n")[0];
		expect(header).toBe(
			"stdin · pi session v3␛[2J · leaf r� (5 of 5 entries on its path) · ␛[2J/7 · thinking ␛]0;x�",
		);
		expect(run.stdout).toContain("#0 user ← user u␛[1m · 2 chars");
		expect(run.stdout).toContain("#1 assistant ← assistant a · ␛[2J/7 · ␛[8m · 0 chars");
		expect(run.stdout).toContain("#2 toolResult ← toolResult r� · ␛]0;pwned� · 0 chars");
		expect(run.stdout).toContain("[1] assistant   entry a  → #1");
		expect(run.stdout).toContain("[0] user        entry u␛[1m  → #0");

		const entries = await cli(["-"], { stdin: JSON.stringify({ type: "\u001b[2J", id: "x", parentId: null }) });
		expect(entries.code).toBe(2);
		expect(entries.stderr).toContain('line 1 is a "␛[2J" entry');
	});

	it("should label content items that are not blocks instead of failing on them", async () => {
		const message = { role: "user", content: [null, 7, { type: "text", text: "kept" }], timestamp: 0 };
		const run = await cli(["-"], { stdin: JSON.stringify([message]) });
		expect(run).toMatchObject({ code: 0, stderr: "" });
		expect(run.stdout).toContain("#0 user ← user [0] · 4 chars\n   [null block]\n   [number block]\n   kept\n");
	});

	it.each([
		["a pipe", { isTTY: false }, false],
		["a terminal", { isTTY: true }, true],
		["a terminal under NO_COLOR", { isTTY: true, env: { NO_COLOR: "1" } }, false],
		["a pipe under FORCE_COLOR", { isTTY: false, env: { FORCE_COLOR: "1" } }, true],
		["a terminal under FORCE_COLOR=0", { isTTY: true, env: { FORCE_COLOR: "0" } }, false],
	])("should colour on %s: %s", async (_where, options, coloured) => {
		const run = await cli([DEMO], options);
		expect(run.stdout.includes(ESC)).toBe(coloured);
		expect((await cli(["--json", DEMO], options)).stdout.includes(ESC)).toBe(false);
	});
});

describe("convert-to-llm view on a terminal", () => {
	/** The CLI on a terminal `columns` wide (colours on), with `file` as its input. */
	async function onTerminal(file: string, columns: number, explain = false) {
		let stdout = "";
		let stderr = "";
		const code = await main({
			argv: explain ? ["--explain", file] : [file],
			cwd: process.cwd(),
			env: { FORCE_COLOR: "1" },
			stdout: { write: (text: string) => (stdout += text), isTTY: true, columns },
			stderr: { write: (text: string) => (stderr += text) },
			readStdin: async () => "",
		});
		return { code, stdout, stderr };
	}
	const visible = (line: string): string =>
		line.replace(new RegExp(`${String.fromCharCode(0x1b)}\\[[0-9;]*m`, "g"), "");

	it.each([24, 40, 61, 100])(
		"should fit every line, the header and footer too, in a terminal %i columns wide",
		async (columns) => {
			const dir = mkdtempSync(join(tmpdir(), "convert-to-llm-cli-width-"));
			try {
				// A long file name, with CJK, emoji (a ZWJ sequence) and an invisible character: the header names it whole.
				const file = join(dir, `東京😀\u200b👩‍💻-${"a-rather-long-session-name-".repeat(4)}.jsonl`);
				writeFileSync(file, read(DEMO));
				const run = await onTerminal(file, columns, true);
				expect(run.code).toBe(0);
				const lines = run.stdout.trimEnd().split("\n");
				expect(lines.length).toBeGreaterThan(20);
				for (const line of lines) expect(stringWidth(visible(line)), visible(line)).toBeLessThanOrEqual(columns);
				// What fits keeps its colours; the header that did not is cut with "…".
				expect(lines[0]).toMatch(/…$/);
				if (columns >= 40) expect(run.stdout).toContain("\x1b[");
			} finally {
				rmSync(dir, { recursive: true, force: true });
			}
		},
	);

	it("should tell a CLI user to load a plugin with --plugin for a role nothing converts", async () => {
		const run = await cli([DEMO]);
		expect(run.stderr).toContain(
			'No converter for role "ticket" (message 6). It was dropped; load a plugin that converts this role with --plugin <module> (see docs/custom-roles.md).',
		);
		expect(run.stderr).not.toContain("registry.register");
	});

	it("should give the same --plugin advice in the --explain view's reason for the drop", async () => {
		const run = await cli(["--explain", DEMO]);
		const line = run.stdout.split("\n").find((text) => text.includes("ticket") && text.includes("dropped"));
		expect(line).toContain("load a plugin that converts this role with --plugin <module>");
		expect(run.stdout).not.toContain("registry.register");
	});
});

describe("convert-to-llm view of a pi 1.x session", () => {
	const PI1 = fixture("pi1-system-and-edits.jsonl");

	it("should show the system prompt and its tools, a later system update, and count them in the footer", async () => {
		const run = await cli([PI1]);
		expect(run).toMatchObject({ code: 0, stderr: "" });
		const lines = run.stdout.split("\n");
		expect(lines).toContain(
			"#0 system ← system p0000001 · system prompt · 62 chars · tools: read, bash · sections: preamble, cwd",
		);
		expect(lines).toContain(
			"#2 system ← system p0000002 · system update · 18 chars · tools removed: bash · sections changed: skills · sections removed: cwd",
		);
		expect(lines).toContain("── 4 model messages from 4 history messages: 2 system · 1 assistant · 1 user");
		expect(run.stdout).toMatch(/ {3}96 characters · 2 tools declared \(128 schema characters\) · ~57 tokens/);
	});

	it("should show the prompt and the four tools of a session written by a real pi 1.6.0 AgentSession", async () => {
		// Written by createAgentSession (faux provider, persisted SessionManager) and two prompts.
		const run = await cli([fixture("pi1-agent-session.jsonl")]);
		expect(run).toMatchObject({ code: 0, stderr: "" });
		expect(run.stdout).toContain(
			"#0 system ← system ac372202 · system prompt · 2,238 chars · tools: read, bash, edit, write · sections: preamble, tools, rules, docs, cwd\n",
		);
		expect(run.stdout).toContain("── 5 model messages from 5 history messages: 1 system · 2 user · 2 assistant\n");
		expect(run.stdout).toContain("   2,283 characters · 4 tools declared (2,969 schema characters) · ~1,315 tokens");
	});

	it("should say which stored entry a context_edit hid and which content it replaced, and never show the hidden text", async () => {
		const run = await cli([PI1]);
		expect(run.stdout).toContain(
			"#1 assistant ← assistant a0000001 · anthropic/claude · stop · 8 chars · content replaced by context_edit e0000002\n   [elided]\n",
		);
		expect(run.stdout).toContain(
			"── Not sent: 1 stored entry hidden by context_edit (the file keeps them)\n   entry u0000001 (user) hidden by context_edit e0000001\n",
		);
		expect(run.stdout).not.toContain("sk-live-123");
		expect(run.stdout).not.toContain("A very long answer");
		const explained = await cli(["--explain", PI1]);
		expect(explained.stdout).toContain(
			"   [-] user       entry u0000001  hidden by context_edit e0000001, not sent\n",
		);
		expect(explained.stdout).toContain(
			"entry a0000001  → #1 by convert-to-llm:model-roles · content replaced by context_edit e0000002\n",
		);
	});

	it("should print the system messages as part of the Message[] with --json, as the same objects the file holds", async () => {
		const run = await cli(["--json", PI1]);
		const output = JSON.parse(run.stdout) as { role: string }[];
		expect(output.map((m) => m.role)).toEqual(["system", "assistant", "system", "user"]);
		expect(output[0]).toEqual(JSON.parse(read(PI1).split("\n")[1] as string).message);
		expect(run.stdout).not.toContain("sk-live-123");
	});

	it("should name the --leaf flag where the library names its leafId option, and warn of an unknown entry type", async () => {
		const text = `${read(PI1)}{"type":"future_thing","id":"f1","parentId":"u0000002","timestamp":"2025-01-31T12:00:00.000Z"}\n{"type":"message","id":"x1","parentId":"f1","timestamp":"2025-01-31T12:00:00.000Z"}\n`;
		const run = await cli(["-"], { stdin: text });
		expect(run.code).toBe(0);
		expect(run.stderr).toContain(
			'warning: entry "f1" (line 9) has type "future_thing", which this reader does not know;',
		);
		expect(run.stderr).toContain("or pick a leaf before it with --leaf.\n");
		expect(run.stderr).not.toContain("leafId");
	});

	it("should warn of a timestamp without a primitive value instead of failing with an unexpected error", async () => {
		const text = `${read(PI1)}{"type":"custom_message","id":"c1","parentId":"u0000002","timestamp":{"valueOf":0,"toString":0},"customType":"x","content":"c","display":true}\n`;
		const run = await cli(["-"], { stdin: text });
		expect(run.code).toBe(0);
		expect(run.stderr).toBe(
			`convert-to-llm: warning: entry "c1" (line 9) has a timestamp that is not a date (pi fails on it); its message gets timestamp NaN (null in JSON). Fix the entry's "timestamp" (ISO 8601).\n`,
		);
		expect((await cli(["--strict", "-"], { stdin: text })).code).toBe(1);
	});
});
