/**
 * `convert-to-llm --diff`: where two requests part, for two leaves of a session or for one leaf as
 * sent and with the options' filters and plugins; the first differing message on both sides with its
 * entry and plugin, then a line diff; usage mistakes in one line with exit status 2.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { resolvePiNode } from "../../scripts/pi-node.mjs";
import { cli, root } from "../fixtures/sessions/run-cli.js";
import { sessionText, smallSession, T0 } from "../ledger/small-session.js";

const dir = mkdtempSync(join(tmpdir(), "ctl-diff-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const entries = smallSession();
entries.push({
	type: "message",
	id: "u3",
	parentId: "t1",
	timestamp: new Date(T0 + 60_000).toISOString(),
	message: { role: "user", content: "line one\nanother way\u202e", timestamp: T0 + 60_000 },
});
const SESSION = join(dir, "branched.jsonl");
writeFileSync(SESSION, sessionText(entries));

describe("convert-to-llm --diff", () => {
	it("should show where two leaves part: both messages with their entry and plugin, then a line diff", async () => {
		const run = await cli(["--diff", "u2", "u3", SESSION]);

		expect(run).toMatchObject({ code: 0, stderr: "" });
		expect(run.stdout).toBe(
			[
				`${SESSION} · leaf u2 vs leaf u3`,
				"A: as sent · leaf u2 · 7 messages",
				"B: as sent · leaf u3 · 4 messages",
				"",
				"They send 3 messages alike, then part at message #3: branch",
				"A #3 assistant ← entry a2 · convert-to-llm:model-roles",
				"B #3 user ← entry u3 · convert-to-llm:model-roles",
				"",
				`- ${"b".repeat(400)}`,
				"+ line one",
				"+ another way⟨U+202E⟩",
				"",
			].join("\n"),
		);
	});

	it("should show where a configuration parts from what was sent on one leaf", async () => {
		const run = await cli(["--diff", "--max-tokens", "800", "--leaf", "u2", SESSION]);

		expect(run.code).toBe(0);
		expect(run.stdout.split("\n").slice(0, 5)).toEqual([
			`${SESSION} · as sent vs trim-to-tokens (800)`,
			"A: as sent · leaf u2 · 7 messages",
			"B: trim-to-tokens (800) · leaf u2 · 1 message",
			"",
			"They send 0 messages alike, then part at message #0: convert-to-llm:trim-to-tokens",
		]);
	});

	it("should print with the built binary what it prints in-process", async () => {
		for (const argv of [
			["--diff", "u2", "u3", SESSION],
			["--diff", "--json", "--max-tokens", "800", SESSION],
		]) {
			const run = spawnSync(resolvePiNode(), [join(root, "dist/cli.js"), ...argv], { cwd: root, encoding: "utf8" });

			expect(run.status).toBe(0);
			expect(run.stdout).toBe((await cli(argv)).stdout);
		}
	});

	it("should say when the later request repeats the earlier one", async () => {
		const run = await cli(["--diff", "t1", "u2", SESSION]);

		expect(run.stdout).toContain("B repeats all 3 messages of A, then adds 4 messages: no break.");
	});

	it("should give the diff as JSON with --json", async () => {
		const run = await cli(["--diff", "--json", "u2", "u3", SESSION]);

		expect(JSON.parse(run.stdout)).toMatchObject({
			kept: 3,
			breakAt: 3,
			cause: "branch",
			sides: [{ leafId: "u2" }, { leafId: "u3" }],
		});
	});

	it.each([
		[
			["--diff", SESSION],
			/^convert-to-llm: --diff with one session compares the request as sent with the one your options make: /,
		],
		[
			["--diff", "u2", SESSION],
			/^convert-to-llm: --diff takes a session file, or two entry ids and a session file; got 2 arguments/,
		],
		[
			["--diff", "u2", "nope", SESSION],
			/^convert-to-llm: ".*branched\.jsonl" has no entry with id "nope"\. Pick the "id" of one of its lines \(the last one is "u3"\)\.\n$/,
		],
		[
			["--diff", "--leaf", "u2", "u2", "u3", SESSION],
			/^convert-to-llm: --diff with two entry ids takes no --leaf: the ids are the two leaves\.\n$/,
		],
		[
			["--diff", "--html", "u2", "u3", SESSION],
			/^convert-to-llm: --diff and --html each choose the output: give one\.\n$/,
		],
	])("should refuse %j in one line, exit 2", async (argv, message) => {
		const run = await cli(argv);

		expect(run).toMatchObject({ code: 2, stdout: "" });
		expect(run.stderr).toMatch(message);
	});
});
