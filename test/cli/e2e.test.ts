/**
 * End to end: the built `convert-to-llm` binary (`dist/cli.js`, built when stale by the globalSetup,
 * test/support/build.ts), spawned on fixture files (legacy v1/v2 sessions, JSON, JSONL, stdin, each
 * bad input), with the example plugin, and on a generated 100,000-entry session, whose timings are
 * printed.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
	closeSync,
	existsSync,
	mkdirSync,
	openSync,
	readdirSync,
	readFileSync,
	rmSync,
	statSync,
	writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import packageJson from "../../package.json" with { type: "json" };
import { resolvePiNode } from "../../scripts/pi-node.mjs";
import { blockImages } from "../../src/hooks/block-images.js";
import { convertToLlm, createDefaultRegistry } from "../../src/preset.js";
import type { Plugin } from "../../src/registry/types.js";
import { readSession, readSessionFile } from "../../src/session/index.js";
import { writeLargeSession } from "../fixtures/sessions/large-session.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
/** Scratch space for the generated 100,000-entry session and its output. */
const work = join(root, ".tmp", `cli-e2e-${process.pid}`);
const bin = join(root, "dist", "cli.js");
const fixture = (name: string): string => join("test", "fixtures", "sessions", name);
const DEMO = join("examples", "sessions", "demo.jsonl");
const PLUGIN = join("examples", "plugins", "ticket-role.mjs");

interface Spawned {
	status: number | null;
	stdout: string;
	stderr: string;
}

function spawn(
	args: string[],
	options: { input?: string; env?: Record<string, string>; timeout?: number } = {},
): Spawned {
	const result = spawnSync(process.execPath, [bin, ...args], {
		cwd: root,
		input: options.input,
		encoding: "utf8",
		env: { PATH: process.env.PATH ?? "", ...options.env },
		maxBuffer: 256 * 1024 * 1024,
		timeout: options.timeout,
	});
	return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** A shell pipeline around the binary (the function `cli`), with its status (`pipefail`) and stderr. */
function shell(script: string): Spawned {
	const result = spawnSync("bash", ["-c", `set -o pipefail; cli() { "$NODE" "$BIN" "$@"; }; ${script}`], {
		cwd: root,
		encoding: "utf8",
		env: { PATH: process.env.PATH ?? "", NODE: process.execPath, BIN: bin },
		// A socket on stdin makes bash read ~/.bashrc (as under rshd): the scripts give their own stdin.
		stdio: ["ignore", "pipe", "pipe"],
		timeout: 30_000,
	});
	return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

const hash = (path: string): string =>
	createHash("sha256")
		.update(readFileSync(join(root, path)))
		.digest("hex");

beforeAll(() => {
	mkdirSync(work, { recursive: true });
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("the convert-to-llm binary", () => {
	it("should be the package's bin: an executable file starting with a node shebang", () => {
		expect(packageJson.bin).toEqual({ "convert-to-llm": "./dist/cli.js" });
		expect(readFileSync(bin, "utf8").startsWith("#!/usr/bin/env node\n")).toBe(true);
		expect(statSync(bin).mode & 0o111).not.toBe(0);
		const direct = spawnSync(bin, ["--version"], { encoding: "utf8", env: { PATH: process.env.PATH ?? "" } });
		expect(direct.stdout).toBe(`${packageJson.version}\n`);
	});

	it("should run what npm start runs: the example session with the example plugin", () => {
		expect(packageJson.scripts.start).toBe("node scripts/pi-node.mjs scripts/start.mjs");
		const run = spawnSync(process.execPath, ["scripts/start.mjs"], { cwd: root, encoding: "utf8" });
		expect(run.status).toBe(0);
		expect(run.stderr).toBe("");
		expect(run.stdout).toContain("#5 user ← ticket a1000018 · 68 chars");
		expect(run.stdout).toContain("── 8 model messages from 9 history messages: 6 user · 2 assistant");
	});

	it.each(["v1-linear.jsonl", "v1-no-version.jsonl", "v2-tree.jsonl"])(
		"should print exactly the library's Message[] for the legacy file %s, leaving it untouched",
		(name) => {
			const before = hash(fixture(name));
			const run = spawn(["--json", fixture(name)]);
			expect(run.status).toBe(0);
			expect(JSON.parse(run.stdout)).toStrictEqual(
				JSON.parse(JSON.stringify(convertToLlm(readSessionFile(join(root, fixture(name))).messages))),
			);
			expect(hash(fixture(name))).toBe(before);
		},
	);

	it.each([
		["a JSON array", ["--json", fixture("messages.json")]],
		["JSONL of AgentMessages", ["--json", fixture("messages.jsonl")]],
	])("should read %s", (_what, args) => {
		const run = spawn(args);
		expect(run.status).toBe(0);
		const expected = convertToLlm(JSON.parse(readFileSync(join(root, fixture("messages.json")), "utf8")));
		expect(run.stdout).toBe(`${JSON.stringify(expected, null, 2)}\n`);
	});

	it("should keep its compiled modules in Node's compile cache on Node 22, and not where it is turned off", () => {
		const tmp = join(work, "compile-cache");
		const run = (env: Record<string, string>) =>
			spawnSync(resolvePiNode(), [bin, "--json", DEMO], {
				cwd: root,
				encoding: "utf8",
				env: { PATH: process.env.PATH ?? "", TMPDIR: tmp, ...env },
			});
		rmSync(tmp, { recursive: true, force: true });
		mkdirSync(tmp, { recursive: true });
		const off = run({ NODE_DISABLE_COMPILE_CACHE: "1" });
		expect(off.status).toBe(0);
		expect(existsSync(join(tmp, "node-compile-cache"))).toBe(false);
		const first = run({});
		expect(first.status).toBe(0);
		expect(first.stdout).toBe(off.stdout);
		const cached = readdirSync(join(tmp, "node-compile-cache"), { recursive: true });
		expect(cached.length).toBeGreaterThan(0);
		expect(run({}).stdout).toBe(off.stdout);
	});

	it("should say in one line, with no stack trace, when its own files fail to load", () => {
		// The entry alone, without the chunk it imports, in a directory whose name holds CJK, an emoji
		// and a right-to-left override: as a broken install is, wherever it is.
		const dir = join(work, "broken-安装-🙂-\u202e-install");
		mkdirSync(dir, { recursive: true });
		writeFileSync(join(dir, "cli.js"), readFileSync(bin));
		const run = spawnSync(process.execPath, [join(dir, "cli.js"), "--version"], { encoding: "utf8" });
		expect(run.status).toBe(2);
		expect(run.stdout).toBe("");
		expect(run.stderr).toMatch(
			/^convert-to-llm: cannot start: Cannot find module .*process-run-[^\n]*\. Reinstall convert-to-llm, or report it with the command you ran\.\n$/,
		);
		// The override is marked, never printed; the CJK and the emoji are shown as they are.
		expect(run.stderr).not.toContain("\u202e");
		expect(run.stderr).toContain("broken-安装-🙂-⟨U+202E⟩-install");
	});

	it.each([["--version"], ["--help"]])("should write %s to a file as it writes it to a pipe", (flag) => {
		// Both are written before the run first waits, while the binary's module is still being set up.
		const piped = spawn([flag]);
		expect(piped.status).toBe(0);
		expect(piped.stdout.length).toBeGreaterThan(0);
		const out = join(work, "flag.out");
		const written = shell(`cli ${flag} > "${out}"`);
		expect(written.status).toBe(0);
		expect(written.stderr).toBe("");
		expect(readFileSync(out, "utf8")).toBe(piped.stdout);
	});

	it.each([
		["--json", ["--json"]],
		["the view", []],
	])("should write to a file (%s) exactly what it writes to a pipe, text beyond ASCII included", (_what, args) => {
		// Long enough to be written in pieces; one of the two shifts puts a surrogate pair across a piece's end.
		for (const shift of ["", "x"]) {
			const input = join(work, "wide-text.json");
			const messages = [
				{ role: "user", content: "héllo ✓ 日本語 🙂", timestamp: 1 },
				{ role: "user", content: `${shift}${"🙂".repeat(300_000)}`, timestamp: 2 },
			];
			writeFileSync(input, JSON.stringify(messages));
			const piped = spawn([...args, input]);
			expect(piped.status).toBe(0);
			const out = join(work, "wide-text.out");
			const written = shell(`cli ${args.join(" ")} "${input}" > "${out}"`);
			expect(written.status).toBe(0);
			expect(written.stderr).toBe("");
			expect(readFileSync(out).equals(Buffer.from(piped.stdout))).toBe(true);
			if (args.length > 0)
				expect(piped.stdout).toBe(`${JSON.stringify(convertToLlm(messages as never), null, 2)}\n`);
		}
	});

	it("should read a session from stdin with -, and take --leaf, --block-images and --plugin", async () => {
		const text = readFileSync(join(root, DEMO), "utf8");
		const run = spawn(["--json", "--leaf", "a1000020", "--block-images", "--plugin", PLUGIN, "-"], { input: text });
		expect(run.status).toBe(0);
		expect(run.stderr).toBe("");
		const { default: ticketRole } = (await import(pathToFileURL(join(root, PLUGIN)).href)) as { default: Plugin };
		const registry = createDefaultRegistry()
			.use(ticketRole)
			.use(blockImages({ enabled: true }));
		const expected = registry.convert(readSession(text, { leafId: "a1000020" }).messages);
		expect(run.stdout).toBe(`${JSON.stringify(expected, null, 2)}\n`);
		expect(run.stdout).toContain("Image reading is disabled.");
		expect(run.stdout).toContain("[ticket TODO-42, in progress]");
	});

	it.each([
		["a pipe", {}, false],
		["FORCE_COLOR", { FORCE_COLOR: "1" }, true],
		["FORCE_COLOR and NO_COLOR", { FORCE_COLOR: "1", NO_COLOR: "1" }, false],
	])("should colour the view under %s: %s", (_what, env, coloured) => {
		expect(spawn([DEMO], { env }).stdout.includes("\u001b[")).toBe(coloured);
	});

	it.each([
		["a missing file", ["missing.jsonl"], /^convert-to-llm: cannot read "missing\.jsonl": no such file/],
		["a directory", ["examples"], /^convert-to-llm: "examples" is a directory/],
		["an empty file", [fixture("empty.jsonl")], /is empty\. Pass a pi session file/],
		["text that is not JSON", [fixture("not-json.txt")], /is not JSON \(no line of it parses\)/],
		["JSON that is no history", [fixture("object.json")], /is JSON but neither a pi session nor AgentMessages/],
		[
			"session entries without a header",
			[fixture("entries-only.jsonl")],
			/has session entries but no session header/,
		],
		["an unknown --leaf", ["--leaf", "nope", DEMO], /has no entry with id "nope"/],
		[
			"a missing plugin module",
			["--plugin", "./nowhere.mjs", DEMO],
			/cannot load plugin module "\.\/nowhere\.mjs": no such file/,
		],
		[
			"a module without plugins",
			["--plugin", "test/fixtures/sessions/v2-tree.jsonl", DEMO],
			/cannot load plugin module/,
		],
		[
			"a TypeScript plugin module Node cannot strip (an enum)",
			["--plugin", "test/fixtures/plugins/enum-role.ts", DEMO],
			/Node runs TypeScript only by stripping its types, and this module needs more/,
		],
		["an unknown option", ["--frobnicate", DEMO], /unknown option --frobnicate\. Run convert-to-llm --help/],
	])("should fail on %s with one line on stderr, no stack trace, exit code 2", (_what, args, message) => {
		const input = args.at(-1) as string;
		const before = existsSync(join(root, input)) && statSync(join(root, input)).isFile() ? hash(input) : undefined;
		const run = spawn(args);
		expect(run.status).toBe(2);
		expect(run.stdout).toBe("");
		expect(run.stderr).toMatch(message);
		expect(run.stderr.trim().split("\n")).toHaveLength(1);
		expect(run.stderr).not.toMatch(/\n\s+at /);
		if (before !== undefined) expect(hash(input)).toBe(before);
	});

	it("should load a TypeScript plugin module of erasable syntax as it is (Node strips its types)", () => {
		const run = spawn(["--plugin", "test/fixtures/plugins/typed-role.ts", DEMO]);
		expect(run.stderr).toBe("");
		expect(run.status).toBe(0);
		expect(run.stdout).toContain("#5 user ← ticket a1000018");
	});

	it("should exit with 1 under --strict when a message cannot be converted", () => {
		const run = spawn(["--strict", DEMO]);
		expect(run.status).toBe(1);
		expect(run.stderr).toMatch(/No converter for role "ticket".*\(--strict\)\n$/);
	});
});

describe("the convert-to-llm binary when a run cannot finish", () => {
	const MESSAGES = fixture("messages.json");
	const plugin = (name: string, source: string): string => {
		const path = join(work, name);
		writeFileSync(path, source);
		return path;
	};
	const oneLine = (run: Spawned, status: number, message: RegExp) => {
		expect(run.status).toBe(status);
		expect(run.stderr).toMatch(message);
		expect(run.stderr.trim().split("\n")).toHaveLength(1);
		expect(run.stderr).not.toMatch(/\n\s+at /);
	};

	it.each([
		[
			"a top-level await",
			'await new Promise(() => {});\nexport default { name: "t", apply() {} };',
			/plugin module ".*tla\.mjs" never finished loading/,
		],
		[
			"an afterConvertAsync tap",
			'export default { name: "t", apply(r) { r.hooks.afterConvertAsync.tapPromise("t", () => new Promise(() => {})); } };',
			/the conversion did not finish: an afterConvertAsync tap of plugin "t" did not settle within 1000 ms \(--timeout\)/,
		],
	])(
		"should exit 2 with a message, not 0 with no output, when a plugin's %s never settles",
		(what, source, message) => {
			const path = plugin(what.startsWith("a top") ? "tla.mjs" : "tap.mjs", source);
			for (const args of [["--json"], []]) {
				const run = spawn([...args, "--timeout", "1000", "--plugin", path, MESSAGES], { timeout: 20_000 });
				expect(run.stdout).toBe("");
				oneLine(run, 2, message);
			}
		},
	);

	/** A module that leaves a timer running for ever, as a plugin with a poller or a heartbeat does. */
	const TICKING = "setInterval(() => {}, 1000);\n";

	it("should exit when its work is done, whatever timer a plugin left running", () => {
		const path = plugin("ticking.mjs", `${TICKING}export default { name: "ticker", apply() {} };`);
		for (const args of [["--json"], [], ["--explain"]]) {
			const start = Date.now();
			const run = spawn([...args, "--plugin", path, MESSAGES], { timeout: 20_000 });
			expect(run.status).toBe(0);
			expect(run.stdout.length).toBeGreaterThan(0);
			expect(Date.now() - start).toBeLessThan(15_000);
		}
		const json = spawn(["--json", "--plugin", path, MESSAGES], { timeout: 20_000 });
		expect(JSON.parse(json.stdout)).toEqual(JSON.parse(spawn(["--json", MESSAGES]).stdout));
	});

	it.each([
		[
			"an afterConvertAsync tap",
			'export default { name: "stuck", apply(r) { r.hooks.afterConvertAsync.tapPromise("stuck", () => new Promise(() => {})); } };',
			/^convert-to-llm: the conversion did not finish: an afterConvertAsync tap of plugin "stuck" did not settle within 1000 ms \(--timeout\)\. Nothing was printed/,
		],
		[
			"a top-level await",
			'await new Promise(() => {});\nexport default { name: "t", apply() {} };',
			/^convert-to-llm: plugin module ".*ticking-tla\.mjs" did not finish loading within 1000 ms \(--timeout\)/,
		],
	])(
		"should fail with one line after --timeout, not hang, when %s never settles and a timer keeps the process alive",
		(what, source, message) => {
			const path = plugin(what.startsWith("a top") ? "ticking-tla.mjs" : "ticking-tap.mjs", `${TICKING}${source}`);
			for (const args of [["--json"], [], ["--explain"], ["--json", "--strict"], ["--strict"]]) {
				const run = spawn([...args, "--timeout", "1000", "--plugin", path, MESSAGES], { timeout: 20_000 });
				expect(run.stdout).toBe("");
				oneLine(run, 2, message);
			}
		},
	);

	it("should exit 2 with one line when a plugin's stray promise rejects outside the conversion", () => {
		const path = plugin(
			"stray.mjs",
			'setTimeout(() => Promise.reject(new Error("late")), 0);\nexport default { name: "s", apply() {} };\nawait new Promise((done) => setTimeout(done, 50));',
		);
		oneLine(spawn(["--json", "--plugin", path, MESSAGES]), 2, /a promise rejected outside the conversion: late\./);
	});

	it("should print no unhandled-rejection stack when a plugin's tap throws a Proxy whose traps throw", () => {
		const path = plugin(
			"bomb.mjs",
			'const bomb = () => new Proxy({}, { getPrototypeOf() { throw bomb(); }, get() { throw bomb(); } });\nexport default { name: "b", apply(r) { r.hooks.afterConvert.tap("b", () => { throw bomb(); }); } };',
		);
		for (const args of [["--json"], [], ["--strict"]]) {
			const run = spawn([...args, "--plugin", path, MESSAGES]);
			expect([0, 1, 2]).toContain(run.status);
			expect(run.stderr).toMatch(/^(convert-to-llm: [^\n]*\n)*$/);
			expect(run.stderr).not.toMatch(/\n\s+at |UnhandledPromiseRejection/);
		}
	});

	it.each([
		["ASCII, --json", "x", "--json"],
		["two-byte characters, --json --explain (one write)", "é", "--json --explain"],
		["two-byte characters, --html=- (one write)", "é", "--html=-"],
	])(
		"should exit 2 with one line, not 0, when a write to a file is cut short (a file size limit): %s",
		(_name, unit, args) => {
			const input = join(work, "long-text.json");
			writeFileSync(input, JSON.stringify([{ role: "user", content: unit.repeat(300_000), timestamp: 1 }]));
			const out = join(work, "long-text.out");
			// 100 blocks of 1 KiB; SIGXFSZ ignored, so the write past the limit fails with EFBIG.
			oneLine(
				shell(`ulimit -f 100; trap "" XFSZ; cli ${args} "${input}" > "${out}"`),
				2,
				/^convert-to-llm: cannot write the output: EFBIG: file too large, write\. The file would pass the largest file allowed here \(the shell.s `ulimit -f`/,
			);
			expect(statSync(out).size).toBe(100 * 1024);
		},
	);

	it("should exit 2 with one line, not a stack trace, when stdout is a full disk (/dev/full)", () => {
		for (const args of ["--json", "--explain", ""]) {
			oneLine(
				shell(`cli ${args} ${MESSAGES} > /dev/full`),
				2,
				/^convert-to-llm: cannot write the output: ENOSPC: no space left on device, write\. Free space/,
			);
		}
	});

	it.each([
		["/dev/zero as the file", "cli /dev/zero", /"\/dev\/zero" is not a regular file \(it is a character device\)/],
		[
			"a FIFO as the file",
			"cli <(cat test/fixtures/sessions/messages.json)",
			/is not a regular file \(it is a pipe\)/,
		],
		[
			"an endless pipe on stdin",
			"yes '[' | cli --max-input 1M -",
			/^convert-to-llm: "stdin" is larger than 1 MiB, the most that is read \(--max-input\)/,
		],
		["/dev/zero on stdin", "cli --max-input 4M - < /dev/zero", /^convert-to-llm: "stdin" is larger than 4 MiB/],
	])("should refuse %s in one line with exit code 2", (_what, script, message) => {
		const run = shell(script);
		expect(run.stdout).toBe("");
		oneLine(run, 2, message);
	});
});

describe("a 100,000-entry session", () => {
	const file = join(work, "large.jsonl");
	const timings: string[] = [];
	afterAll(() => console.log(`[cli 100k] ${timings.join("; ")}`));

	it("should convert, in-process and with the binary, to the library's output", () => {
		const { entries, bytes } = writeLargeSession(file, 100_000);
		expect(entries).toBe(100_000);

		let start = performance.now();
		const context = readSessionFile(file);
		const read = performance.now() - start;
		start = performance.now();
		const output = convertToLlm(context.messages);
		const convert = performance.now() - start;
		timings.push(
			`${entries} entries (${(bytes / 1e6).toFixed(1)} MB), ${context.messages.length} history messages → ${output.length} model messages: read ${read.toFixed(0)} ms + convert ${convert.toFixed(0)} ms in-process`,
		);
		expect(context.problems).toEqual([]);
		expect(context.messages.length).toBeGreaterThan(50_000);

		const out = join(work, "large.json");
		const fd = openSync(out, "w");
		start = performance.now();
		const run = spawnSync(process.execPath, [bin, "--json", file], {
			stdio: ["ignore", fd, "pipe"],
			encoding: "utf8",
		});
		const spawned = performance.now() - start;
		closeSync(fd);
		timings.push(
			`binary --json (node start-up, read, convert, write ${(statSync(out).size / 1e6).toFixed(0)} MB JSON) ${spawned.toFixed(0)} ms wall`,
		);
		expect(run.status).toBe(0);
		expect(run.stderr).toBe("");
		expect(JSON.parse(readFileSync(out, "utf8"))).toStrictEqual(JSON.parse(JSON.stringify(output)));

		start = performance.now();
		const view = spawnSync(process.execPath, [bin, file], { encoding: "utf8", maxBuffer: 512 * 1024 * 1024 });
		timings.push(`binary default view ${(performance.now() - start).toFixed(0)} ms wall`);
		expect(view.status).toBe(0);
		expect(view.stdout).toContain(`── ${output.length.toLocaleString("en-US")} model messages`);
	});

	it("should stop quietly when the reader of its output goes away (| head)", () => {
		const run = spawnSync(
			"bash",
			["-c", `set -o pipefail; "${process.execPath}" "${bin}" --json "${file}" | head -c 100 >/dev/null`],
			{
				encoding: "utf8",
			},
		);
		expect(run.stderr).toBe("");
		expect(run.status).toBe(0);
	});
});
