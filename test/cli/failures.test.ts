/**
 * The CLI against unbounded input and every way a run can fail, run in-process: only a regular file
 * or `-` is read, at most `--max-input`; a plugin module that throws anything, a history too deep
 * to serialize, output that cannot be written and a Proxy whose traps throw are each one line and a
 * non-zero status. `test/cli/e2e.test.ts` runs the cases that need a process (a plugin that never
 * settles, a full disk, an endless pipe) on the built binary.
 */
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseCliArgs } from "../../src/cli/args.js";
import { main } from "../../src/cli/main.js";
import { readStreamBounded } from "../../src/cli/read-input.js";
import { cli, DEMO, read, root, writeModule } from "../fixtures/sessions/run-cli.js";
import { bomb } from "../support/hostile.js";

const tmp = mkdtempSync(join(tmpdir(), "ctl-cli-failures-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const module = (name: string, source: string): string => writeModule(tmp, name, source);

const lines = (text: string): string[] => text.trim().split("\n");

const BOMB_SOURCE =
	"const bomb = () => new Proxy({}, { getPrototypeOf() { throw bomb(); }, get() { throw bomb(); } });\n";

describe("convert-to-llm input bounds", () => {
	it.each([
		["/dev/zero", "a character device"],
		["/dev/null", "a character device"],
	])("should refuse %s, which is not a regular file, with one line and exit code 2", async (path, kind) => {
		const run = await cli([path]);
		expect(run).toMatchObject({ code: 2, stdout: "" });
		expect(run.stderr).toBe(
			`convert-to-llm: "${path}" is not a regular file (it is ${kind}). Pass a session file, or - and send the history on standard input.\n`,
		);
	});

	it("should refuse a file larger than --max-input without reading it (a 600 MiB sparse file against 512 MiB)", async () => {
		const file = join(tmp, "huge.jsonl");
		writeFileSync(file, "");
		truncateSync(file, 600 * 1024 * 1024);
		const run = await cli([file]);
		expect(run).toMatchObject({ code: 2, stdout: "" });
		expect(lines(run.stderr)).toEqual([
			`convert-to-llm: "${file}" is larger than 512 MiB, the most that is read (--max-input). Pass a smaller input, or raise --max-input.`,
		]);
	});

	it("should read a file of exactly --max-input bytes, and refuse one byte more, from a file or stdin", async () => {
		const history = JSON.stringify([{ role: "user", content: "hi", timestamp: 0 }]);
		const file = join(tmp, "exact.json");
		writeFileSync(file, history);
		const size = String(Buffer.byteLength(history));
		expect((await cli(["--max-input", size, file])).code).toBe(0);
		expect((await cli(["--max-input", size, "-"], { stdin: history })).code).toBe(0);
		const smaller = String(Buffer.byteLength(history) - 1);
		for (const [argv, stdin] of [
			[["--max-input", smaller, file], undefined],
			[["--max-input", smaller, "-"], history],
		] as const) {
			const run = await cli([...argv], { stdin });
			expect(run.code).toBe(2);
			expect(run.stderr).toMatch(/is larger than \d+ bytes, the most that is read \(--max-input\)/);
		}
	});

	it.each(["", "0", "1.5M", "-1", "12Q", "M", "99999999999999999G"])(
		"should reject --max-input %j as bad usage",
		async (value) => {
			const run = await cli([`--max-input=${value}`, "-"]);
			expect(run.code).toBe(2);
			expect(run.stderr).toMatch(/^convert-to-llm: --max-input takes a size in bytes, or with K, M or G/);
		},
	);

	it("should stop reading a stream once it passes the limit (an endless stdin)", async () => {
		let pulled = 0;
		async function* endless() {
			for (;;) {
				pulled++;
				yield Buffer.alloc(64 * 1024, 0x20);
			}
		}
		await expect(readStreamBounded(endless(), 1024 * 1024)).rejects.toThrow(
			'"stdin" is larger than 1 MiB, the most that is read (maxBytes).',
		);
		expect(pulled).toBe(17);
	});

	it("should document --max-input in --help", async () => {
		expect((await cli(["--help"])).stdout).toContain(
			"--max-input <size>  read at most this much input (default 512M",
		);
	});
});

describe("convert-to-llm streamed input", () => {
	const session = read(DEMO);
	/** The CLI with standard input as a stream of `size`-byte chunks, counting the chunks it pulled. */
	async function streamed(argv: string[], bytes: Buffer, size: number) {
		let stdout = "";
		let stderr = "";
		let pulled = 0;
		async function* stdin() {
			for (let i = 0; i < bytes.length; i += size) {
				pulled++;
				yield bytes.subarray(i, i + size);
			}
		}
		const code = await main({
			argv,
			cwd: root,
			env: {},
			stdout: { write: (text: string) => (stdout += text) },
			stderr: { write: (text: string) => (stderr += text) },
			readStdin: async () => {
				throw new Error("the stream is read, not readStdin");
			},
			stdin: stdin(),
		});
		return { code, stdout, stderr, pulled };
	}

	it.each([1, 5, 4096])("should read a session from a stream of %i-byte chunks as from the file", async (size) => {
		const fromFile = await cli(["--json", DEMO]);
		const run = await streamed(["--json", "-"], Buffer.from(session), size);
		expect(run).toMatchObject({ code: 0, stdout: fromFile.stdout, stderr: fromFile.stderr });
	});

	it("should read JSONL and a JSON array of AgentMessages from a stream", async () => {
		const messages = [
			{ role: "user", content: "hi ✓", timestamp: 0 },
			{ role: "user", content: "again", timestamp: 1 },
		];
		const lines = await streamed(["--json", "-"], Buffer.from(messages.map((m) => JSON.stringify(m)).join("\n")), 3);
		const array = await streamed(["--json", "-"], Buffer.from(JSON.stringify(messages, null, 2)), 3);
		expect(lines.code).toBe(0);
		expect(array.stdout).toBe(lines.stdout);
		expect(JSON.parse(lines.stdout)).toHaveLength(2);
	});

	it("should stop pulling a stream once it passes --max-input", async () => {
		const run = await streamed(["--max-input", "1K", "-"], Buffer.alloc(64 * 1024, 0x20), 256);
		expect(run.code).toBe(2);
		expect(run.stderr).toBe(
			'convert-to-llm: "stdin" is larger than 1 KiB, the most that is read (--max-input). Pass a smaller input, or raise --max-input.\n',
		);
		expect(run.pulled).toBe(5);
	});

	it("should find a session header after 1,200 malformed lines, as pi's loader does, and summarise them", async () => {
		const junk = Array.from({ length: 1200 }, (_, i) => `not json ${i}`).join("\n");
		const file = join(tmp, "late-header.jsonl");
		writeFileSync(file, `${junk}\n${session}`);
		const run = await cli(["--json", file]);
		expect(run.code).toBe(0);
		expect(run.stdout).toBe((await cli(["--json", DEMO])).stdout);
		const warnings = lines(run.stderr);
		expect(warnings[0]).toBe(
			`convert-to-llm: warning: "${file}", line 1 is not valid JSON; it was skipped, as pi skips it (pi looks for the session header on the first line that parses). Fix or remove that line.`,
		);
		// Three of the malformed lines, how many more, and the demo's own warning (an unknown role).
		expect(warnings).toHaveLength(5);
		expect(warnings[3]).toBe("convert-to-llm: warning: … and 1,197 more lines like it: not valid JSON, skipped.");
		expect(warnings[4]).toMatch(/^convert-to-llm: warning: No converter for role "ticket"/);
	});

	it("should refuse an unknown --leaf with exit 2, where the library falls back to the last entry", async () => {
		const run = await cli(["--leaf", "nope", DEMO]);
		expect(run).toMatchObject({ code: 2, stdout: "" });
		expect(run.stderr).toBe(
			`convert-to-llm: "${DEMO}" has no entry with id "nope". Pick the "id" of one of its lines (the last one is "a1000022").\n`,
		);
	});
});

describe("convert-to-llm exit status", () => {
	const deep = "[".repeat(20_000) + "]".repeat(20_000);
	const history = JSON.stringify([{ role: "user", content: "hi", timestamp: 0 }]);

	it("should refuse a 40 KB history of 20,000-deep arrays with one line and exit code 2", async () => {
		expect(deep.length).toBe(40_000);
		const inMessage = `[{"role":"user","content":${deep},"timestamp":0}]`;
		for (const [argv, stdin] of [
			[["-"], deep],
			[["--json", "-"], inMessage],
			[["--json", "--explain", "-"], inMessage],
			[["--json", "-"], `{"role":"user","content":[{"type":"text","text":"x","extra":${deep}}],"timestamp":0}\n`],
		] as const) {
			const run = await cli([...argv], { stdin });
			expect(run.code).toBe(2);
			expect(run.stdout).toBe("");
			expect(lines(run.stderr)).toHaveLength(1);
			expect(run.stderr).not.toContain("unexpected error");
		}
		expect((await cli(["--json", "-"], { stdin: inMessage })).stderr).toBe(
			"convert-to-llm: the converted messages are nested too deeply to write as JSON (JavaScript ran out of stack). Flatten the deepest value, or leave that message out.\n",
		);
		// The view shows what it can: the message, its content unrendered.
		expect((await cli(["-"], { stdin: inMessage })).code).toBe(0);
	});

	it("should give a plugin's message with a toJSON its index in the whole output, as JSON.stringify does", async () => {
		// --json writes in pieces of 200 messages, except with --plugin: a toJSON is passed its key.
		const plugin = writeModule(
			tmp,
			"indexed.mjs",
			`export default { name: "indexed", apply(registry) { registry.register("ticket", () => ({ role: "user", content: "", timestamp: 0, toJSON: (key) => ({ role: "user", content: key, timestamp: 0 }) }), { name: "indexed" }); } };`,
		);
		const history = JSON.stringify(Array.from({ length: 1500 }, () => ({ role: "ticket", timestamp: 0 })));
		const run = await cli(["--json", "--plugin", plugin, "-"], { stdin: history });
		expect(run.code).toBe(0);
		const output = JSON.parse(run.stdout) as { content: string }[];
		expect(output.map((message) => message.content)).toEqual(Array.from({ length: 1500 }, (_, i) => String(i)));
	});

	it("should say where --json stopped when a message after the first piece is too deep to write", async () => {
		const messages = Array.from({ length: 1500 }, (_, i) => `{"role":"user","content":"m${i}","timestamp":0}`);
		messages[1200] = `{"role":"user","content":${deep},"timestamp":0}`;
		const run = await cli(["--json", "-"], { stdin: `[${messages.join(",")}]` });
		expect(run.code).toBe(2);
		expect(run.stderr).toBe(
			"convert-to-llm: a converted message at #1200 or after is nested too deeply to write as JSON (JavaScript ran out of stack). The output stops after the first 1,200 messages, and is not valid JSON. Flatten the deepest value, or leave that message out.\n",
		);
		// What was written is the pieces before the one that holds it (200 messages each), as the whole text starts.
		const first = JSON.parse(`[${messages.slice(0, 1200).join(",")}]`);
		expect(run.stdout).toBe(JSON.stringify(first, null, 2).slice(0, -2));
	});

	it.each([
		["throws null", "throw null;", /cannot load plugin module ".*": it threw null\. Fix the module/],
		["throws undefined", "throw undefined;", /: it threw undefined\. Fix the module/],
		["throws a string", 'throw "nope";', /: it threw a string \("nope"\)\. Fix the module/],
		["throws a Proxy whose traps throw", `${BOMB_SOURCE}throw bomb();`, /: it threw a value that is not an Error/],
		[
			"exports a throwing Proxy",
			'export default new Proxy({}, { get() { throw new Error("boom"); } });',
			/plugin module ".*" cannot be read: boom \(while its exports were read\)\. Fix the module/,
		],
		[
			"exports a Proxy whose traps throw Proxies",
			`${BOMB_SOURCE}export default bomb();`,
			/plugin module ".*" cannot be read: it threw a value that is not an Error/,
		],
		[
			"has a plugin whose apply throws a Proxy whose traps throw",
			`${BOMB_SOURCE}export default { name: "b", apply() { throw bomb(); } };`,
			/plugin "b" from ".*" failed to apply: /,
		],
	])("should fail on a plugin module that %s with one line and exit code 2", async (_what, source, message) => {
		const plugin = module(`bad-${_what.replaceAll(" ", "-")}.mjs`, source);
		const run = await cli(["--json", "--plugin", plugin, "-"], { stdin: history });
		expect(run.code).toBe(2);
		expect(run.stdout).toBe("");
		expect(lines(run.stderr)).toHaveLength(1);
		expect(run.stderr).toMatch(message);
	});

	it.each([
		["afterConvert", "messages"],
		["convert", "message"],
	])("should never throw when a %s tap throws a Proxy whose traps throw", async (hook) => {
		const plugin = module(
			`bomb-${hook}.mjs`,
			`${BOMB_SOURCE}export default { name: "b", apply(r) { ${
				hook === "convert"
					? 'r.register("user", () => { throw bomb(); }, { name: "b", override: true });'
					: 'r.hooks.afterConvert.tap("b", () => { throw bomb(); });'
			} } };`,
		);
		for (const argv of [["--json"], [], ["--explain"], ["--strict"]]) {
			const run = await cli([...argv, "--plugin", plugin, "-"], { stdin: history });
			expect([0, 1, 2]).toContain(run.code);
			expect(run.stderr).not.toMatch(/\n\s+at /);
			if (run.code !== 0) expect(lines(run.stderr)).toHaveLength(1);
		}
	});

	it("should classify anything main's callers could throw, without throwing (a Proxy on getPrototypeOf)", async () => {
		let stderr = "";
		const code = await main({
			argv: ["-"],
			cwd: tmp,
			env: {},
			stdout: { write: () => true },
			stderr: { write: (text: string) => (stderr += text) },
			readStdin: async () => {
				throw bomb();
			},
		});
		expect(code).toBe(1);
		expect(stderr).toMatch(/^convert-to-llm: unexpected error: it threw a value that is not an Error[^\n]*\n$/);
	});

	const ADVICE: Record<string, string> = {
		ENOSPC: "Free space on the device, or write somewhere else.",
		EFBIG: "The file would pass the largest file allowed here (the shell's `ulimit -f`, or the file system's): raise that limit, or write somewhere else.",
		EIO: "Check the device, or write somewhere else.",
	};

	it.each([
		["ENOSPC", ["--json", "-"], 2],
		["ENOSPC", ["-"], 2],
		["EFBIG", ["--json", "-"], 2],
		["EIO", ["-"], 2],
		["EPIPE", ["--json", "-"], 0],
	])(
		"should say in one line that the output cannot be written, and what to do (%s, %j)",
		async (code, argv, status) => {
			let stderr = "";
			const exit = await main({
				argv,
				cwd: tmp,
				env: {},
				stdout: {
					write: () => {
						throw Object.assign(new Error(`${code}: write failed`), { code });
					},
				},
				stderr: { write: (text: string) => (stderr += text) },
				readStdin: async () => history,
			});
			expect(exit).toBe(status);
			if (status === 0) expect(stderr).toBe("");
			else {
				expect(stderr).toBe(`convert-to-llm: cannot write the output: ${code}: write failed. ${ADVICE[code]}\n`);
			}
		},
	);
});

describe("convert-to-llm --timeout", () => {
	it.each(["abc", "0", "-5", "1.5", "1e3", "2147483648", ""])(
		"should refuse --timeout %j with one line naming the accepted values",
		async (value) => {
			const run = await cli([`--timeout=${value}`, "-"], { stdin: "[]" });
			expect(run).toMatchObject({ code: 2, stdout: "" });
			expect(run.stderr).toBe(
				`convert-to-llm: --timeout takes a whole number of milliseconds from 1 to 2147483647 (30000 is 30 s), not ${JSON.stringify(value)}.\n`,
			);
		},
	);

	it("should take whole milliseconds, 30 s by default", () => {
		expect(parseCliArgs(["in.json"]).timeout).toBe(30_000);
		expect(parseCliArgs(["--timeout", "250", "in.json"]).timeout).toBe(250);
		expect(parseCliArgs(["--timeout", "2147483647", "in.json"]).timeout).toBe(2_147_483_647);
	});

	it("should fail the run, strict or not, when an async tap never settles, and print nothing, however long its module took to load", async () => {
		// The tap never settles, so the run fails whatever the timeout; the module takes a while to load
		// (as on a busy machine) and the timeout is far above that, so only the tap can be what runs out.
		const path = module(
			"never-settles.mjs",
			'await new Promise((done) => setTimeout(done, 200));\nexport default { name: "slow", apply(r) { r.hooks.afterConvertAsync.tapPromise("slow", () => new Promise(() => {})); } };',
		);
		const history = JSON.stringify([{ role: "user", content: "hi", timestamp: 0 }]);
		const variants = [["--json"], [], ["--explain"], ["--strict", "--json"], ["--strict"]];
		const runs = await Promise.all(
			variants.map((args) => cli([...args, "--timeout", "3000", "--plugin", path, "-"], { stdin: history })),
		);
		for (const run of runs) {
			expect(run).toMatchObject({ code: 2, stdout: "" });
			expect(run.stderr).toBe(
				'convert-to-llm: the conversion did not finish: an afterConvertAsync tap of plugin "slow" did not settle within 3000 ms (--timeout). Nothing was printed, since that tap may be the one that redacts. Fix the plugin, leave out its --plugin, or raise --timeout.\n',
			);
		}
	});

	it("should let a tap that settles within it through", async () => {
		const path = module(
			"quick-tap.mjs",
			'export default { name: "quick", apply(r) { r.hooks.afterConvertAsync.tapPromise("quick", async (m) => m); } };',
		);
		const run = await cli(["--json", "--timeout", "5000", "--plugin", path, "-"], {
			stdin: JSON.stringify([{ role: "user", content: "hi", timestamp: 0 }]),
		});
		expect(run).toMatchObject({ code: 0, stderr: "" });
		expect(JSON.parse(run.stdout)).toHaveLength(1);
	});
});
