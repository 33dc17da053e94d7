/**
 * The CLI, run in-process through `main()` with a fake terminal: options, input detection, the
 * default view, `--json`, `--explain`, `--leaf`, `--strict`, plugins, and one clear line with exit
 * code 2 for each kind of bad input. `cli-e2e.test.ts` runs the built binary on the same cases.
 */
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import packageJson from "../package.json" with { type: "json" };
import { main } from "../src/cli/main.js";
import { blockImages } from "../src/hooks/block-images.js";
import { convertToLlm, createDefaultRegistry } from "../src/preset.js";
import { readSession } from "../src/session/index.js";

const root = fileURLToPath(new URL("..", import.meta.url));
const fixture = (name: string): string => join("test", "fixtures", "sessions", name);
const DEMO = join("examples", "sessions", "demo.jsonl");
const PLUGIN = join("examples", "plugins", "ticket-role.mjs");
const ESC = "\u001b[";
const tmp = mkdtempSync(join(tmpdir(), "ctl-cli-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

interface Run {
	code: number;
	stdout: string;
	stderr: string;
}

interface RunOptions {
	stdin?: string;
	isTTY?: boolean;
	env?: Record<string, string>;
	cwd?: string;
}

async function cli(argv: string[], options: RunOptions = {}): Promise<Run> {
	let stdout = "";
	let stderr = "";
	const code = await main({
		argv,
		cwd: options.cwd ?? root,
		env: options.env ?? {},
		stdout: { write: (text: string) => (stdout += text), isTTY: options.isTTY, columns: 100 },
		stderr: { write: (text: string) => (stderr += text) },
		readStdin: async () => options.stdin ?? "",
	});
	return { code, stdout, stderr };
}

const read = (path: string): string => readFileSync(resolve(root, path), "utf8");
const hash = (path: string): string =>
	createHash("sha256")
		.update(readFileSync(resolve(root, path)))
		.digest("hex");
const json = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;

/** Writes a module into the temporary directory and returns its path. */
function module(name: string, source: string): string {
	const path = join(tmp, name);
	writeFileSync(path, source);
	return path;
}

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
		[["--nope", DEMO], /^convert-to-llm: Unknown option '--nope'\. .*Run convert-to-llm --help for the options\.\n$/],
		[[], /^convert-to-llm: no input given\. Usage: convert-to-llm \[options\] <file \| ->/],
		[[DEMO, DEMO], /^convert-to-llm: one input at a time, got 2/],
		[["--leaf"], /^convert-to-llm: Option '--leaf <value>' argument missing/],
		[["--leaf", "", DEMO], /^convert-to-llm: --leaf needs an entry id/],
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

	it("should cut long lines and show control characters instead of sending them to the terminal", async () => {
		const message = { role: "user", content: `\u001b[2J${"x".repeat(300)}`, timestamp: 1 };
		const run = await cli(["-"], { stdin: JSON.stringify([message]) });
		expect(run.stdout).toContain(`   ␛[2J${"x".repeat(112)}…\n`);
		expect(run.stdout).not.toContain("\u001b");
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

describe("convert-to-llm --explain", () => {
	it("should tell what became of each history message and what the post-conversion hooks changed", async () => {
		const run = await cli(["--explain", "--block-images", DEMO]);
		expect(run.code).toBe(0);
		const why = run.stdout.slice(run.stdout.indexOf("── Why"));
		expect(why).toContain("[0] compactionSummary  entry a1000009  → #0 by convert-to-llm:compaction-summary");
		expect(why).toContain(
			"[4] bashExecution      entry a1000015  dropped, excluded from context (a !! command) by convert-to-llm:bash-execution",
		);
		expect(why).toMatch(/\[6\] ticket {13}entry a1000018 {2}dropped: No converter for role "ticket"/);
		expect(why).toContain(
			"── Post-conversion hooks, in the order they ran\n   afterConvert convert-to-llm:block-images: replaced #4",
		);
		expect(run.stderr).toMatch(/warning: No converter for role "ticket"/);
	});

	it("should name the plugin that converted an extension's role", async () => {
		const run = await cli(["--explain", "--plugin", PLUGIN, DEMO]);
		expect(run.stdout).toContain("[6] ticket             entry a1000018  → #5 by example:ticket-role");
		expect(run.stderr).toBe("");
	});

	it("should print the explanation as JSON with --json", async () => {
		const run = await cli(["--explain", "--json", DEMO]);
		const explanation = JSON.parse(run.stdout);
		expect(explanation.output).toStrictEqual(JSON.parse(json(convertToLlm(readSession(read(DEMO)).messages))));
		expect(explanation.messages[4]).toMatchObject({ role: "bashExecution", dropped: "converter", outputs: [] });
		expect(explanation.messages[6]).toMatchObject({ role: "ticket", dropped: "unknown-role" });
		expect(explanation.errors[0]).toMatchObject({
			name: "UnknownRoleError",
			code: "CONVERT_TO_LLM_UNKNOWN_ROLE",
			role: "ticket",
		});
	});
});

describe("convert-to-llm --strict", () => {
	it.each([
		["an unknown role", [DEMO], /No converter for role "ticket".* \(--strict\)$/],
		["an unknown role, as JSON", ["--json", DEMO], /No converter for role "ticket".* \(--strict\)$/],
		["a skipped line", [fixture("v1-no-version.jsonl")], /line 7 is not valid JSON.* \(--strict\)$/],
	])("should fail on %s with exit code 1 and no output", async (_what, argv, message) => {
		const run = await cli(["--strict", ...argv]);
		expect(run.code).toBe(1);
		expect(run.stdout).toBe("");
		expect(run.stderr.trim()).toMatch(message);
	});

	it("should still show the explanation with --explain, then exit with 1", async () => {
		const run = await cli(["--strict", "--explain", DEMO]);
		expect(run.code).toBe(1);
		expect(run.stdout).toContain("── Why");
	});

	it("should succeed on clean input", async () => {
		expect((await cli(["--strict", "--plugin", PLUGIN, DEMO])).code).toBe(0);
	});
});

describe("convert-to-llm --plugin", () => {
	it("should resolve a relative module from the current directory", async () => {
		const cwd = join(root, "examples", "plugins");
		const run = await cli(["--json", "--plugin", "./ticket-role.mjs", join(root, DEMO)], { cwd });
		expect(run).toMatchObject({ code: 0, stderr: "" });
		expect(run.stdout).toContain("[ticket TODO-42, in progress] Due dates without seconds are rejected");
	});

	const ticket = (name: string) =>
		`{ name: "${name}", apply(registry) { registry.register("ticket", (m) => ({ role: "user", content: "${name}", timestamp: m.timestamp }), { name: "${name}" }); } }`;

	it.each([
		["a default export", "default.mjs", `export default ${ticket("via-default")};`, "via-default"],
		["a named plugin export", "named.mjs", `export const plugin = ${ticket("via-plugin")};`, "via-plugin"],
		["a named plugins list", "list.mjs", `export const plugins = [${ticket("via-list")}];`, "via-list"],
		["module.exports (CommonJS)", "common.cjs", `module.exports = ${ticket("via-cjs")};`, "via-cjs"],
		[
			"module.exports.plugin (CommonJS)",
			"common-named.cjs",
			`module.exports = { plugin: ${ticket("via-cjs-named")} };`,
			"via-cjs-named",
		],
	])("should take the plugins of %s", async (_what, name, source, text) => {
		const run = await cli(["--json", "--plugin", module(name, source), DEMO]);
		expect(run).toMatchObject({ code: 0, stderr: "" });
		expect(run.stdout).toContain(`"content": "${text}"`);
	});

	it.each([
		[
			"a missing module",
			() => "./missing-plugin.mjs",
			/cannot load plugin module "\.\/missing-plugin\.mjs": no such file \(looked for .*missing-plugin\.mjs\)/,
		],
		[
			"a module that throws",
			() => module("throws.mjs", 'throw new Error("boom at load");'),
			/cannot load plugin module ".*throws\.mjs": boom at load\. Fix the module/,
		],
		[
			"a module importing a missing package",
			() => module("deps.mjs", 'import "no-such-package-ctl";'),
			/cannot load plugin module ".*deps\.mjs": Cannot find package 'no-such-package-ctl'/,
		],
		[
			"a module without plugins",
			() => module("none.mjs", "export const x = 1;"),
			/plugin module ".*none\.mjs" exports no plugin: give it a plugin \{ name, apply\(registry\) \}/,
		],
		[
			"a factory as default export",
			() => module("factory.mjs", "export default () => ({});"),
			/exports no plugin: .*Its default export is a function: export the plugin it makes instead/,
		],
		[
			"a list with a non-plugin",
			() => module("bad-list.mjs", `export default [${ticket("ok")}, { name: "x" }];`),
			/item 1 of the default export of plugin module ".*bad-list\.mjs" is not a plugin/,
		],
		["an empty list", () => module("empty-list.mjs", "export default [];"), /is an empty list/],
		[
			"a plugin whose apply throws",
			() =>
				module(
					"apply.mjs",
					'export default { name: "bad-apply", apply() { throw new Error("no registry for me"); } };',
				),
			/plugin "bad-apply" from ".*apply\.mjs" failed to apply: .*no registry for me/,
		],
		[
			"a duplicate converter",
			() =>
				module(
					"dup.mjs",
					'export default { name: "dup", apply(r) { r.register("user", (m) => m, { name: "dup" }); } };',
				),
			/plugin "dup" from ".*dup\.mjs" failed to apply: .*already converts/,
		],
	])("should fail on %s with one line and exit code 2", async (_what, spec, message) => {
		const before = hash(DEMO);
		const run = await cli(["--plugin", spec(), DEMO]);
		expect(run.code).toBe(2);
		expect(run.stdout).toBe("");
		expect(run.stderr).toMatch(message);
		expect(run.stderr.trim().split("\n")).toHaveLength(1);
		expect(hash(DEMO)).toBe(before);
	});

	it("should use several --plugin modules, in order", async () => {
		mkdirSync(join(tmp, "two"), { recursive: true });
		const a = module("two/a.mjs", `export default ${ticket("first")};`);
		const b = module(
			"two/b.mjs",
			'export default { name: "second", apply(r) { r.register("ticket", () => ({ role: "user", content: "second", timestamp: 0 }), { name: "second", override: true }); } };',
		);
		const run = await cli(["--json", "--plugin", a, "--plugin", b, DEMO]);
		expect(run.code).toBe(0);
		expect(run.stdout).toContain('"content": "second"');
	});
});
