/**
 * The CLI's filter options: `--prune <spec>`, `--max-tokens <n>`, `--redact-secrets`, `--redact-env`
 * and `--redact-env-file <path>` add the plugins of `convert-to-llm/filters` (the same output as the
 * library), the header names them and `--explain` says what each removed or changed; bad values are
 * usage errors (exit 2).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { describe, expect, it } from "vitest";
import { parsePruneSpec } from "../src/cli/filter-options.js";
import { pruneMessages } from "../src/filters/prune-messages.js";
import { redactSecrets } from "../src/filters/redact-secrets.js";
import { trimToTokens } from "../src/filters/trim-to-tokens.js";
import { createDefaultRegistry } from "../src/preset.js";
import { cli, DEMO, PLUGIN } from "./fixtures/sessions/run-cli.js";
import { assistant, bashExecution, user } from "./support/fixtures.js";
import { SECRETS } from "./support/secret-corpus.js";

const history: AgentMessage[] = [
	user("deploy"),
	assistant([
		{ type: "thinking", thinking: "read the env first", thinkingSignature: "s1" },
		{ type: "toolCall", id: "c1", name: "read", arguments: { path: ".env" } },
	]),
	{
		role: "toolResult",
		toolCallId: "c1",
		toolName: "read",
		content: [{ type: "text", text: SECRETS[2]?.text ?? "" }],
		isError: false,
		timestamp: 1,
	},
	bashExecution({ command: "cat .npmrc", output: SECRETS[8]?.text ?? "" }),
	user("and now?"),
	assistant([{ type: "text", text: "done" }]),
];
const stdin = JSON.stringify(history);

describe("parsePruneSpec", () => {
	it.each([
		["reasoning=all", { reasoning: "all" }],
		["toolCalls=before-last-2-messages", { toolCalls: [{ type: "before-last-2-messages" }] }],
		[
			"toolCalls=all:read+bash,toolCalls=before-last-message,emptyMessages=keep",
			{
				toolCalls: [{ type: "all", tools: ["read", "bash"] }, { type: "before-last-message" }],
				emptyMessages: "keep",
			},
		],
		["toolCalls=none", { toolCalls: "none" }],
	])("should read %s", (spec, expected) => {
		expect(parsePruneSpec(spec)).toEqual(expected);
	});

	it.each([
		["toolCalls=all:", "names an empty tool"],
		["toolCalls=all:read+", "names an empty tool"],
		["toolCalls=all:read:bash", 'has more than one ":"'],
		["reasoning=all,reasoning=none", '"reasoning" is given twice'],
		["emptyMessages=keep,emptyMessages=remove", '"emptyMessages" is given twice'],
	])("should refuse %s, which would prune other than it says, and say why", (spec, why) => {
		expect(() => parsePruneSpec(spec)).toThrow(why);
		expect(() => parsePruneSpec(spec)).toThrow("Run convert-to-llm --help for the syntax.");
	});
});

describe("convert-to-llm filter options", () => {
	it("should print what the library's filters produce, with --json", async () => {
		const run = await cli(
			[
				"--json",
				"--prune",
				"reasoning=all,toolCalls=before-last-3-messages",
				"--max-tokens",
				"1000",
				"--redact-secrets",
				"-",
			],
			{ stdin },
		);
		expect(run.code, run.stderr).toBe(0);
		const registry = createDefaultRegistry()
			.use(pruneMessages({ reasoning: "all", toolCalls: "before-last-3-messages" }))
			.use(trimToTokens({ maxTokens: 1000 }))
			.use(redactSecrets());
		expect(JSON.parse(run.stdout)).toEqual(await registry.convertAsync(history));
		expect(run.stdout).not.toContain(SECRETS[8]?.value);
		expect(run.stdout).toContain("[REDACTED:npm-auth-token#1]");
	});

	it("should name the filters in the header and say what each did under --explain", async () => {
		const run = await cli(
			["--explain", "--prune", "toolCalls=before-last-2-messages", "--max-tokens", "20", "--redact-secrets", "-"],
			{ stdin },
		);
		expect(run.code, run.stderr).toBe(0);
		expect(run.stdout).toContain(
			"converted with pi's default preset + prune-messages (toolCalls=before-last-2-messages) + trim-to-tokens (20) + redact-secrets",
		);
		expect(run.stdout).toMatch(/afterConvert convert-to-llm:prune-messages: removed 2/);
		expect(run.stdout).toContain("afterConvert convert-to-llm:trim-to-tokens: removed");
		expect(run.stdout).toContain("removed after conversion by convert-to-llm:trim-to-tokens");
	});

	it("should redact a session's secrets in the view too", async () => {
		const run = await cli(["--redact-secrets", "-"], { stdin });
		expect(run.code, run.stderr).toBe(0);
		for (const secret of [SECRETS[2], SECRETS[8]]) expect(run.stdout).not.toContain(secret?.value);
		expect(run.stdout).toContain("[REDACTED:github-token#1]");
	});

	it("should replace the environment's and the .env files' secret values wherever they are, with --redact-env", async () => {
		const cwd = mkdtempSync(join(tmpdir(), "cli-redact-env-"));
		try {
			writeFileSync(join(cwd, ".env"), "SMTP_PASSWORD=mail-pass-3k2j1h\nPORT=3000\n");
			writeFileSync(join(cwd, ".env.example"), "SMTP_PASSWORD=changeme-please\n");
			const input = JSON.stringify([
				user("token dep-77f1e2d3c4b5, smtp mail-pass-3k2j1h, port 3000"),
				user("see changeme-please"),
			]);
			const run = await cli(["--redact-env", "-"], { stdin: input, cwd, env: { DEPLOY_TOKEN: "dep-77f1e2d3c4b5" } });
			expect(run.code, run.stderr).toBe(0);
			expect(run.stdout).toContain("+ redact-secrets (env, .env*)");
			for (const shown of [
				"[REDACTED:deploy-token#1]",
				"[REDACTED:smtp-password#1]",
				"port 3000",
				"changeme-please",
			])
				expect(run.stdout).toContain(shown);
			for (const secret of ["dep-77f1e2d3c4b5", "mail-pass-3k2j1h"]) expect(run.stdout).not.toContain(secret);
			const file = await cli(["--redact-env-file", ".env", "--json", "-"], { stdin: input, cwd });
			expect(file.stdout).not.toContain("mail-pass-3k2j1h");
			expect(file.stdout).toContain("dep-77f1e2d3c4b5");
		} finally {
			rmSync(cwd, { recursive: true, force: true });
		}
	});

	it.each([
		[["--redact-env", "--redact-env-file", ".env"], "leave out --redact-env-file"],
		[["--prune", "foo=1"], "unknown key"],
		[["--prune", "reasoning=some"], "reasoning"],
		[["--max-tokens", "many"], "--max-tokens takes a whole number"],
	])("should refuse %j with exit 2", async (argv, message) => {
		const run = await cli([...argv, "--plugin", PLUGIN, DEMO]);
		expect(run.code).toBe(2);
		expect(run.stderr).toContain(message);
	});
});
