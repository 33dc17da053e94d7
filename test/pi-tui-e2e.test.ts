/**
 * `/llm-context` in the real pi CLI's interactive TUI: pi 1.6.0 (on the Node >= 22.19 that
 * scripts/pi-node.mjs provides) and pi 0.73.1 (on this Node), each started inside its own tmux
 * server with a fixed 60×30 terminal, HOME and pi's agent directory in a temporary directory, the
 * loopback provider in models.json and the extension loaded from this package's directory with
 * `-e`. The session holds what makes a length-based cut overflow a terminal: a Chinese prompt, an
 * English reply with two `✅` on one long line, an emoji ZWJ sequence and a combining mark. pi's TUI
 * stops with an error on a rendered line wider than the terminal, so the panel must open, fit, and
 * close with pi still running. Every wait is bounded; the tmux servers and the temp directory are
 * removed in afterAll.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import stringWidth from "string-width";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeProvider, startFakeProvider } from "./support/pi-cli/fake-provider.js";
import { type PiDirs, type PiLine, piCommand, piEnv } from "./support/pi-cli/rpc-client.js";
import { ROOT, script } from "./support/pi-cli/scenario.js";

const COLUMNS = 60;
const ROWS = 30;
const TITLE = "convert-to-llm · /llm-context";
const LINES: readonly PiLine[] = ["1.6.0", "0.73.1"];
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
/** The tmux servers (sockets under `-L`) started, killed in afterAll. */
const servers: string[] = [];

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
function prepareDirs(root: string, provider: FakeProvider): { dirs: PiDirs; session: string } {
	const dirs: PiDirs = { home: join(root, "home"), agentDir: join(root, "agent"), cwd: join(root, "cwd") };
	for (const dir of Object.values(dirs)) mkdirSync(dir, { recursive: true });
	const model = { id: "fake-model", input: ["text"], cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 } };
	const providers = { fake: { baseUrl: provider.baseUrl, api: "openai-completions", apiKey: "k", models: [model] } };
	writeFileSync(join(dirs.agentDir, "models.json"), JSON.stringify({ providers }));
	writeFileSync(join(dirs.agentDir, "settings.json"), JSON.stringify({}));
	const session = join(dirs.agentDir, "sessions", "wide.jsonl");
	mkdirSync(join(dirs.agentDir, "sessions"), { recursive: true });
	writeSession(session, dirs.cwd);
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
}

function startTuiPi(line: PiLine, dirs: PiDirs, session: string): TuiPi {
	const server = `convert-to-llm-tui-${process.pid}-${line}`;
	servers.push(server);
	const [node, cli] = piCommand(line);
	const env = Object.entries(piEnv(dirs)).flatMap(([key, value]) => ["-e", `${key}=${value ?? ""}`]);
	const pi = [node, cli, "--session", session, "--model", "fake/fake-model", "--no-extensions", "-e", ROOT];
	const base = ["-L", server, "-f", "/dev/null"];
	const started = tmux([
		...base,
		"new-session",
		"-d",
		"-s",
		"pi",
		"-x",
		String(COLUMNS),
		"-y",
		String(ROWS),
		"-c",
		dirs.cwd,
		...env,
		...pi,
	]);
	if (started.status !== 0) throw new Error(`tmux new-session failed: ${started.stderr}`);
	// Keep the pane after pi exits, so that a crash leaves its last screen to read.
	tmux([...base, "set-option", "-t", "pi", "remain-on-exit", "on"]);
	const display = (format: string): string =>
		tmux([...base, "display-message", "-p", "-t", "pi", format]).stdout.trim();
	const pid = Number(display("#{pane_pid}"));
	const capture = (): string[] => tmux([...base, "capture-pane", "-p", "-t", "pi"]).stdout.split("\n");
	const alive = (): boolean => {
		if (display("#{pane_dead}") !== "0") return false;
		try {
			process.kill(pid, 0);
			return true;
		} catch {
			return false;
		}
	};
	return {
		capture,
		alive,
		keys: (...keys) => void tmux([...base, "send-keys", "-t", "pi", ...keys]),
		literal: (text) => void tmux([...base, "send-keys", "-t", "pi", "-l", text]),
		async waitFor(test, timeoutMs, what) {
			const deadline = Date.now() + timeoutMs;
			let lines = capture();
			while (!test(lines)) {
				if (Date.now() > deadline || !alive()) {
					const state = alive() ? "still running" : "pi has exited";
					throw new Error(`${what}: not seen after ${timeoutMs} ms (${state}); pane:\n${lines.join("\n")}`);
				}
				await new Promise((resolve) => setTimeout(resolve, 200));
				lines = capture();
			}
			return lines;
		},
	};
}

const shows = (lines: readonly string[], text: string): boolean => lines.some((row) => row.includes(text));
/** The rows of a capture wider than the pane, by string-width (what a terminal counts). */
const tooWide = (lines: readonly string[]): string[] => lines.filter((row) => stringWidth(row) > COLUMNS);

beforeAll(async () => {
	if (TMUX_MISSING) return;
	fake = await startFakeProvider(script);
	base = mkdtempSync(join(tmpdir(), "convert-to-llm-pi-tui-"));
}, 20_000);

afterAll(async () => {
	for (const server of servers) tmux(["-L", server, "kill-server"]);
	await fake?.close();
	if (base !== undefined) rmSync(base, { recursive: true, force: true });
});

describe.skipIf(TMUX_MISSING).each(LINES)("/llm-context in pi %s's interactive TUI (tmux, 60×30)", (line) => {
	it("should open the panel on CJK, ✅, ZWJ emoji and combining marks with every row within the pane, and close it on q with pi still running", async () => {
		const { dirs, session } = prepareDirs(join(base as string, line), fake as FakeProvider);
		const pi = startTuiPi(line, dirs, session);
		// pi is ready when its footer names the model and the history is on screen.
		await pi.waitFor((rows) => shows(rows, "fake-model"), 25_000, "pi's editor");
		pi.literal("/llm-context");
		await new Promise((resolve) => setTimeout(resolve, 300));
		pi.keys("Enter");
		const panel = await pi.waitFor((rows) => shows(rows, TITLE), 15_000, "the panel's title");
		// Let pi render a few more frames: a row too wide throws in pi-tui's render, not in the command.
		await new Promise((resolve) => setTimeout(resolve, 1000));
		const settled = pi.capture();
		expect(pi.alive(), `pi exited; pane:\n${settled.join("\n")}`).toBe(true);
		expect(shows(settled, TITLE), settled.join("\n")).toBe(true);
		expect(shows(panel, "── Why: each history message"), panel.join("\n")).toBe(true);
		expect(settled.filter((row) => /^#\d+ /.test(row)).length, settled.join("\n")).toBeGreaterThan(0);
		expect(tooWide(settled)).toEqual([]);
		// The wide rows are on screen, cut to the pane: the Chinese prompt, the ✅ line, the ZWJ emoji.
		expect(shows(settled, "#0 user ← user c1000001"), settled.join("\n")).toBe(true);
		expect(shows(settled, CHINESE_PROMPT.slice(0, 8)), settled.join("\n")).toBe(true);
		expect(shows(settled, "Done ✅ the parser"), settled.join("\n")).toBe(true);
		expect(shows(settled, "Family: 👨"), settled.join("\n")).toBe(true);

		pi.keys("q");
		const back = await pi.waitFor((rows) => !shows(rows, TITLE), 10_000, "the panel closed");
		await new Promise((resolve) => setTimeout(resolve, 500));
		expect(pi.alive(), `pi exited after q; pane:\n${pi.capture().join("\n")}`).toBe(true);
		// The editor is back: its footer again names the model, and typed text lands in it.
		expect(shows(back, "fake-model"), back.join("\n")).toBe(true);
		pi.literal("still here");
		await pi.waitFor((rows) => shows(rows, "still here"), 5_000, "typed text in the editor");
		expect(tooWide(pi.capture())).toEqual([]);
	}, 45_000);
});
