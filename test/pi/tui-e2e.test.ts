/**
 * `/llm-context` in the real pi CLI's interactive TUI: pi 1.6.0 (on the Node >= 22.19 that
 * scripts/pi-node.mjs provides) and pi 0.73.1 (on this Node), each started inside its own tmux
 * server with a fixed 60×30 terminal, HOME and pi's agent directory in a temporary directory, the
 * loopback provider in models.json and the extension loaded from this package's directory with
 * `-e`. The session holds what makes a length-based cut overflow a terminal: a Chinese prompt, an
 * English reply with two `✅` on one long line, an emoji ZWJ sequence and a combining mark. pi's
 * regular TUI (0.73.1's only one, 1.6.0's `--tui-mode regular`) stops with an error on a rendered
 * line wider than the terminal, and 1.6.0's default full-screen one cuts such a line itself, losing
 * the panel's rows; so the panel must open with its own cut rows on screen, fit, and close with pi
 * still running. Every wait is bounded; each test stops its tmux server and pi, afterAll any left,
 * and removes the temp directory (the tmux sockets are in it).
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import stringWidth from "string-width";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeProvider, startFakeProvider } from "../support/pi-cli/fake-provider.js";
import { type PiDirs, type PiLine, piCommand, piEnv } from "../support/pi-cli/rpc-client.js";
import { ROOT, script } from "../support/pi-cli/scenario.js";

const COLUMNS = 60;
const ROWS = 30;
const TITLE = "convert-to-llm · /llm-context";
/**
 * The pi runs: pi 1.6.0 in its default full-screen TUI (which cuts an overlong row itself) and in its
 * regular one (`--tui-mode regular`, which stops with an error on one, as 0.73.1's only TUI does).
 */
const RUNS: readonly (readonly [line: PiLine, mode: string, flags: readonly string[]])[] = [
	["1.6.0", "full-screen", []],
	["1.6.0", "regular", ["--tui-mode", "regular"]],
	["0.73.1", "regular", []],
];
/** The session's wide text: CJK, two ✅ on one long line, a family emoji (ZWJ sequence), a combining mark. */
const CHINESE_PROMPT = "请帮我检查一下解析器为什么在处理没有秒数的日期时会失败，并给出修复建议。";
const REPLY =
	"Done ✅ the parser now accepts dates without seconds, and the tests pass ✅ for every case we tried so far today";
const ZWJ = "Family: 👨‍👩‍👧‍👦 and café (e\u0301) noted.";

const tmux = (args: readonly string[]) => spawnSync("tmux", args, { encoding: "utf8", timeout: 10_000 });
const TMUX_MISSING = tmux(["-V"]).status !== 0;
if (TMUX_MISSING) console.warn("pi-tui-e2e: skipped, tmux is not installed (apt-get install -y tmux)");

let fake: FakeProvider | undefined;
let base: string | undefined;
/** The pis started, stopped by their test and again (if still running) in afterAll. */
const started: TuiPi[] = [];

/** A session file of `pairs` short questions and answers: a view far taller than one page. */
function writeLongSession(file: string, cwd: string, pairs: number): void {
	const at = "2025-01-31T09:00:00.000Z";
	const entries: object[] = [
		{ type: "session", version: 3, id: "0194b6a2-7c1e-7d3a-9f10-2b8c4e5a6d98", timestamp: at, cwd },
	];
	let parentId: string | null = null;
	for (let i = 0; i < pairs; i++) {
		const user = `u${String(i).padStart(7, "0")}`;
		const reply = `a${String(i).padStart(7, "0")}`;
		entries.push({
			type: "message",
			id: user,
			parentId,
			timestamp: at,
			message: { role: "user", content: `question ${i}`, timestamp: 1738314000000 },
		});
		entries.push({
			type: "message",
			id: reply,
			parentId: user,
			timestamp: at,
			message: {
				role: "assistant",
				content: [{ type: "text", text: `answer ${i}` }],
				api: "openai-completions",
				provider: "fake",
				model: "fake-model",
				usage: {
					input: 1,
					output: 1,
					cacheRead: 0,
					cacheWrite: 0,
					totalTokens: 2,
					cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
				},
				stopReason: "stop",
				timestamp: 1738314000000,
			},
		});
		parentId = reply;
	}
	writeFileSync(file, `${entries.map((entry) => JSON.stringify(entry)).join("\n")}\n`);
}

/** A session file: a Chinese prompt, then an English reply whose long line holds two ✅, then a ZWJ emoji and a combining mark. */
function writeSession(file: string, cwd: string): void {
	const at = "2025-01-31T09:00:00.000Z";
	const assistant = (id: string, parentId: string, text: string) => ({
		type: "message",
		id,
		parentId,
		timestamp: at,
		message: {
			role: "assistant",
			content: [{ type: "text", text }],
			api: "openai-completions",
			provider: "fake",
			model: "fake-model",
			usage: {
				input: 10,
				output: 10,
				cacheRead: 0,
				cacheWrite: 0,
				totalTokens: 20,
				cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
			},
			stopReason: "stop",
			timestamp: 1738314000000,
		},
	});
	const user = (id: string, parentId: string, content: string) => ({
		type: "message",
		id,
		parentId,
		timestamp: at,
		message: { role: "user", content, timestamp: 1738314000000 },
	});
	const entries = [
		{ type: "session", version: 3, id: "0194b6a2-7c1e-7d3a-9f10-2b8c4e5a6d99", timestamp: at, cwd },
		user("c1000001", null as unknown as string, CHINESE_PROMPT),
		assistant("c1000002", "c1000001", REPLY),
		user("c1000003", "c1000002", ZWJ),
		assistant("c1000004", "c1000003", `${REPLY} — ${ZWJ}`),
	];
	writeFileSync(file, `${entries.map((entry) => JSON.stringify(entry)).join("\n")}\n`);
}

/** Fresh directories for one line and its session file, with the loopback provider in models.json. */
function prepareDirs(
	root: string,
	provider: FakeProvider,
	write: (file: string, cwd: string) => void = writeSession,
): { dirs: PiDirs; session: string } {
	const dirs: PiDirs = { home: join(root, "home"), agentDir: join(root, "agent"), cwd: join(root, "cwd") };
	for (const dir of Object.values(dirs)) mkdirSync(dir, { recursive: true });
	const model = { id: "fake-model", input: ["text"], cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 } };
	const providers = { fake: { baseUrl: provider.baseUrl, api: "openai-completions", apiKey: "k", models: [model] } };
	writeFileSync(join(dirs.agentDir, "models.json"), JSON.stringify({ providers }));
	writeFileSync(join(dirs.agentDir, "settings.json"), JSON.stringify({}));
	const session = join(dirs.agentDir, "sessions", "wide.jsonl");
	mkdirSync(join(dirs.agentDir, "sessions"), { recursive: true });
	write(session, dirs.cwd);
	return { dirs, session };
}

/** One pi in a detached tmux session of its own server: capture, keys, liveness. */
interface TuiPi {
	capture(): string[];
	keys(...keys: string[]): void;
	literal(text: string): void;
	/** Whether pi's process is still running (its pane is not dead and the process answers signal 0). */
	alive(): boolean;
	/** Polls the pane until `test` accepts it; throws with the last capture after `timeoutMs`. */
	waitFor(test: (lines: string[]) => boolean, timeoutMs: number, what: string): Promise<string[]>;
	/** Kills the tmux server and waits (at most 5 s, then SIGKILL) until pi's process is gone. */
	stop(): Promise<void>;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Whether process `pid` still runs. */
function running(pid: number): boolean {
	if (!(pid > 0)) return false;
	try {
		process.kill(pid, 0);
		return true;
	} catch {
		return false;
	}
}

function startTuiPi(
	line: PiLine,
	flags: readonly string[],
	dirs: PiDirs,
	session: string,
	size: { columns: number; rows: number } = { columns: COLUMNS, rows: ROWS },
): TuiPi {
	// A tmux server of its own, its socket in the temp directory (removed with it).
	const socket = join(base as string, `tmux-${started.length}.sock`);
	const [node, cli] = piCommand(line);
	// pi's environment exactly (the tmux server's own is not passed on), with the terminal tmux emulates.
	const env = Object.entries({ ...piEnv(dirs), TERM: "screen", LANG: "C.UTF-8" }).map(
		([key, value]) => `${key}=${value ?? ""}`,
	);
	const command = [
		"env",
		"-i",
		...env,
		node,
		cli,
		"--session",
		session,
		"--model",
		"fake/fake-model",
		"--no-extensions",
		"-e",
		ROOT,
		...flags,
	];
	// Keep the pane after pi exits, so that a crash leaves its last screen to read.
	const config = join(base as string, "tmux.conf");
	writeFileSync(config, "set-option -g remain-on-exit on\n");
	const server = ["-S", socket, "-f", config];
	const created = tmux([
		...server,
		"new-session",
		"-d",
		"-s",
		"pi",
		"-x",
		String(size.columns),
		"-y",
		String(size.rows),
		"-c",
		dirs.cwd,
		...command,
	]);
	if (created.status !== 0) throw new Error(`tmux new-session failed: ${created.stderr}`);
	const display = (format: string): string =>
		tmux([...server, "display-message", "-p", "-t", "pi", format]).stdout.trim();
	const pid = Number(display("#{pane_pid}"));
	const capture = (): string[] => tmux([...server, "capture-pane", "-p", "-t", "pi"]).stdout.split("\n");
	const alive = (): boolean => pid > 0 && display("#{pane_dead}") === "0" && running(pid);
	const pi: TuiPi = {
		capture,
		alive,
		async stop() {
			tmux([...server, "kill-server"]);
			const deadline = Date.now() + 5000;
			while (running(pid) && Date.now() < deadline) await pause(100);
			if (running(pid)) process.kill(pid, "SIGKILL");
		},
		keys: (...keys) => void tmux([...server, "send-keys", "-t", "pi", ...keys]),
		literal: (text) => void tmux([...server, "send-keys", "-t", "pi", "-l", text]),
		async waitFor(test, timeoutMs, what) {
			const deadline = Date.now() + timeoutMs;
			let lines = capture();
			while (!test(lines)) {
				if (Date.now() > deadline || !alive()) {
					const state = alive() ? "still running" : "pi has exited";
					throw new Error(`${what}: not seen after ${timeoutMs} ms (${state}); pane:\n${lines.join("\n")}`);
				}
				await pause(200);
				lines = capture();
			}
			return lines;
		},
	};
	started.push(pi);
	return pi;
}

const shows = (lines: readonly string[], text: string): boolean => lines.some((row) => row.includes(text));
/** The rows of a capture wider than the pane, by string-width (what a terminal counts). */
const tooWide = (lines: readonly string[], columns = COLUMNS): string[] =>
	lines.filter((row) => stringWidth(row) > columns);

beforeAll(async () => {
	if (TMUX_MISSING) return;
	fake = await startFakeProvider(script);
	base = mkdtempSync(join(tmpdir(), "convert-to-llm-pi-tui-"));
}, 20_000);

afterAll(async () => {
	for (const pi of started) await pi.stop();
	await fake?.close();
	if (base !== undefined) rmSync(base, { recursive: true, force: true, maxRetries: 3 });
});

describe.skipIf(TMUX_MISSING).each(RUNS)(
	"/llm-context in pi %s's %s interactive TUI (tmux, 60×30)",
	(line, mode, flags) => {
		it("should open the panel on CJK, ✅, ZWJ emoji and combining marks with every row within the pane, and close it on q with pi still running", async () => {
			const { dirs, session } = prepareDirs(join(base as string, `${line}-${mode}`), fake as FakeProvider);
			const pi = startTuiPi(line, flags, dirs, session);
			try {
				// pi is ready when its footer names the model and the history is on screen.
				await pi.waitFor((rows) => shows(rows, "fake-model"), 25_000, "pi's editor");
				pi.literal("/llm-context");
				await pause(300);
				pi.keys("Enter");
				const panel = await pi.waitFor((rows) => shows(rows, TITLE), 15_000, "the panel's title");
				// Let pi render a few more frames: a row too wide throws in pi-tui's render, not in the command.
				await pause(1000);
				const settled = pi.capture();
				expect(pi.alive(), `pi exited; pane:\n${settled.join("\n")}`).toBe(true);
				expect(shows(settled, TITLE), settled.join("\n")).toBe(true);
				// pi 0.73.1's first page opens with the prompt and tools it sends beside the messages; pi 1.x's reaches the "why".
				const landmark =
					line === "0.73.1" ? "── The system prompt and tools, which pi 0.73.1" : "── Why: each history message";
				expect(shows(panel, landmark), panel.join("\n")).toBe(true);
				expect(settled.filter((row) => /^#\d+ /.test(row)).length, settled.join("\n")).toBeGreaterThan(0);
				expect(tooWide(settled)).toEqual([]);
				// The panel's own rows for the wide messages (indented bodies under "#N" headers), cut by the
				// panel to the pane with its "…", not by pi's renderer (pi 1.x's full-screen TUI cuts an
				// overlong row itself, and its mark would be lost).
				const body = (start: string): string | undefined => settled.find((row) => row.startsWith(`   ${start}`));
				expect(shows(settled, "#0 user ← user c1000001"), settled.join("\n")).toBe(true);
				expect(shows(settled, "#2 user ← user c1000003"), settled.join("\n")).toBe(true);
				expect(body(CHINESE_PROMPT.slice(0, 8))?.endsWith("…"), settled.join("\n")).toBe(true);
				expect(body("Done ✅ the parser")?.endsWith("…"), settled.join("\n")).toBe(true);
				expect(body("Family: 👨"), settled.join("\n")).toBeDefined();

				pi.keys("q");
				const back = await pi.waitFor((rows) => !shows(rows, TITLE), 10_000, "the panel closed");
				await pause(500);
				expect(pi.alive(), `pi exited after q; pane:\n${pi.capture().join("\n")}`).toBe(true);
				// The editor is back: its footer again names the model, and typed text lands in it.
				expect(shows(back, "fake-model"), back.join("\n")).toBe(true);
				pi.literal("still here");
				await pi.waitFor((rows) => shows(rows, "still here"), 5_000, "typed text in the editor");
				expect(tooWide(pi.capture())).toEqual([]);
			} finally {
				await pi.stop();
			}
		}, 45_000);
	},
);

/** The long session's pairs: 60 messages, a view of about 130 lines. */
const PAIRS = 30;
/** Terminal sizes: the classic 80×24, a narrow one, a tall one. */
const SIZES: readonly (readonly [columns: number, rows: number])[] = [
	[80, 24],
	[30, 40],
	[120, 60],
];
/** The panel's title row as the capture shows it: the first and last line shown and the total, by either form of the title. */
function titleRange(lines: readonly string[]): { row: number; first: number; last: number; total: number } | undefined {
	for (let row = 0; row < lines.length; row++) {
		const text = lines[row] ?? "";
		if (!text.includes("q to close")) continue;
		const found = /(\d+)–(\d+)(?: of |\/)(\d+) · /.exec(text);
		if (found) return { row, first: Number(found[1]), last: Number(found[2]), total: Number(found[3]) };
	}
	return undefined;
}

/** The screen once it stops changing (two captures 100 ms apart alike): a capture can catch a page half drawn. */
async function steady(pi: { capture(): string[] }, lines: string[]): Promise<string[]> {
	let before = lines.join("\n");
	for (let tries = 0; tries < 30; tries++) {
		await pause(100);
		const now = pi.capture();
		const text = now.join("\n");
		if (text === before) return now;
		before = text;
	}
	return pi.capture();
}

describe.skipIf(TMUX_MISSING).each(RUNS)(
	"/llm-context's page in pi %s's %s interactive TUI (tmux)",
	(line, mode, flags) => {
		it.each(SIZES)(
			"should show the title with q to close and a page that fits a %i×%i terminal beside pi's footer, and page down to the view's last line",
			async (columns, rows) => {
				const root = join(base as string, `${line}-${mode}-${columns}x${rows}`);
				const write = (file: string, cwd: string) => writeLongSession(file, cwd, PAIRS);
				const { dirs, session } = prepareDirs(root, fake as FakeProvider, write);
				// The session has no system message yet: pi 1.x's next request adds one with its prompt and tools.
				const sent = 2 * PAIRS + (line === "0.73.1" ? 0 : 1);
				const pi = startTuiPi(line, flags, dirs, session, { columns, rows });
				try {
					await pi.waitFor((lines) => shows(lines, "answer 29"), 25_000, "pi's history");
					pi.literal("/llm-context");
					await pause(300);
					pi.keys("Enter");
					const opened = await steady(
						pi,
						await pi.waitFor((lines) => titleRange(lines) !== undefined, 15_000, "the panel's title"),
					);
					const first = titleRange(opened);
					const page = rows - 5;
					// The title row is on screen, the page is the terminal's rows less pi's four and the title, and all of it is shown.
					expect(first, opened.join("\n")).toMatchObject({ first: 1, last: page });
					const total = first?.total ?? 0;
					expect(total).toBeGreaterThan(2 * PAIRS);
					const at = first?.row ?? 0;
					expect(opened[at + 1], opened.join("\n")).toMatch(/^next request/);
					// The whole page is above pi's two footer rows.
					expect(at + page, opened.join("\n")).toBeLessThanOrEqual(rows - 3);
					expect(tooWide(opened, columns)).toEqual([]);
					// Page down until the title says the last line is shown: it, the title and the footer totals are on screen together.
					let range = first;
					for (let presses = 0; presses < 20 && range?.last !== total; presses++) {
						pi.keys("Space");
						const before = range?.first;
						const moved = await pi.waitFor(
							(lines) => titleRange(lines)?.first !== before,
							5_000,
							"the panel scrolled a page",
						);
						range = titleRange(moved);
					}
					expect(range).toMatchObject({ first: total - page + 1, last: total });
					// The screen as drawn once the last page is complete (a capture can catch a page half drawn).
					const end = await pi.waitFor(
						(lines) => titleRange(lines)?.last === total && shows(lines, `── ${sent} model messages`),
						5_000,
						"the view's last page, its footer totals shown",
					);
					const last = end.findIndex((row) => row.includes(`── ${sent} model messages`));
					expect(end[last + 1], end.join("\n")).toMatch(/^ {3}\d/);
					expect(tooWide(end, columns)).toEqual([]);
					expect(pi.alive()).toBe(true);
					pi.keys("q");
					await pi.waitFor((lines) => titleRange(lines) === undefined, 10_000, "the panel closed");
					expect(pi.alive()).toBe(true);
				} finally {
					await pi.stop();
				}
			},
			60_000,
		);
	},
);
