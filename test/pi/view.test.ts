/**
 * `/llm-context`'s view against the CLI's: the same session gives the same body (message blocks
 * with their "content replaced by context_edit" notes, the "why" section, the "Not sent" list and
 * the footer), from the same code. pi's session manager is stood in for by one over the file's
 * entries (pi's in-memory form of a version 3 file) whose context is the session reader's, which
 * the pi 1.6.0 differential suites hold equal to pi's own.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { terminalColumns } from "../../src/cli/terminal-columns.js";
import { runCommand } from "../../src/pi/command.js";
import { createHost } from "../../src/pi/host.js";
import type { PiContext, PiExtensionApi } from "../../src/pi/pi-api.js";
import { createReporter } from "../../src/pi/report.js";
import { DEFAULT_HARDENING } from "../../src/pi/settings.js";
import { fold } from "../../src/pi/view.js";
import { readSession } from "../../src/session/index.js";
import { cli, root } from "../fixtures/sessions/run-cli.js";

const FIXTURE = join("test", "fixtures", "sessions", "pi1-system-and-edits.jsonl");
const pi = { getFlag: () => undefined, on() {}, events: { on() {}, emit() {} } } as unknown as PiExtensionApi;

/** pi's session manager over a version 3 session file, without `buildSessionProjection` (as 0.73.1). */
function sessionManagerOf(text: string) {
	const [header, ...entries] = text
		.trim()
		.split("\n")
		.map((line) => JSON.parse(line) as { id: string });
	return {
		getSessionFile: () => "/s.jsonl",
		getLeafId: () => entries.at(-1)?.id ?? null,
		getHeader: () => header,
		getEntries: () => entries,
		buildSessionContext: () => ({ messages: readSession(text).messages }),
	};
}

async function llmContext(sessionManager: object): Promise<string[]> {
	const shown: string[] = [];
	const ctx = {
		hasUI: true,
		mode: "rpc",
		cwd: "/",
		ui: { notify: (text: string) => shown.push(text) },
		sessionManager,
		abort() {},
	} as unknown as PiContext;
	await runCommand(createHost(pi, DEFAULT_HARDENING), createReporter(), "", ctx);
	expect(shown).toHaveLength(1);
	return (shown[0] as string).split("\n");
}

describe("the /llm-context view", () => {
	it("should show a session's context_edit notes and its Not sent list, line for line as convert-to-llm --explain does", async () => {
		const text = readFileSync(join(root, FIXTURE), "utf8");
		const lines = await llmContext(sessionManagerOf(text));
		const run = await cli(["--explain", FIXTURE]);
		expect(run.code).toBe(0);
		// Below their headers (what they read, and with what), the two views are one, but for the CLI's
		// last footer line: the figures of the session's bills, which pi shows in its own section.
		const body = run.stdout.trimEnd().split("\n").slice(3);
		expect(body.at(-1)).toMatch(/^ {3}pi's chars\/4 estimate only: /);
		expect(lines.slice(3)).toEqual(body.slice(0, -1));
		expect(lines).toContain(
			"#1 assistant ← assistant a0000001 · anthropic/claude · stop · 8 chars · content replaced by context_edit e0000002",
		);
		expect(lines).toContain("── Not sent: 1 stored entry hidden by context_edit (the file keeps them)");
		expect(lines).toContain("   entry u0000001 (user) hidden by context_edit e0000001");
	});

	it("should leave the edits out, and still show the conversion, where pi's entries do not line up with its messages", async () => {
		const text = readFileSync(join(root, FIXTURE), "utf8");
		const manager = { ...sessionManagerOf(text), getEntries: () => [] };
		const lines = await llmContext(manager);
		expect(lines.join("\n")).not.toContain("context_edit");
		expect(lines.some((line) => line.startsWith("── 4 model messages from 4 history messages"))).toBe(true);
	});
});

describe("fold", () => {
	const columns = terminalColumns();

	it("should break a line at spaces into lines of at most the width in columns, keeping every word", () => {
		const text = "settings 東京タワー must be true or false; it stays off and nothing is redacted";
		const lines = fold(text, 16, columns);
		for (const line of lines) expect(columns.width(line)).toBeLessThanOrEqual(16);
		expect(lines.join(" ")).toBe(text);
		expect(lines.length).toBeGreaterThan(3);
	});

	it("should cut a word wider than the width, and keep a line that fits as it is", () => {
		expect(fold("a 0123456789abcdef b", 8, columns)).toEqual(["a", "0123456…", "b"]);
		expect(fold("fits", 8, columns)).toEqual(["fits"]);
	});
});
