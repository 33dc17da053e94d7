/**
 * The CLI's filter options: `--prune <spec>`, `--max-tokens <n>`, `--redact-secrets`, `--redact-env`
 * and `--redact-env-file <path>` add the plugins of `convert-to-llm/filters` (the same output as the
 * library), the header names them and `--explain` says what each removed or changed; bad values are
 * usage errors (exit 2).
 */

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { describe, expect, it } from "vitest";
import { CliError } from "../../src/cli/cli-error.js";
import { filterPlugins, parseCount, parsePruneSpec } from "../../src/cli/filter-options.js";
import { pruneMessages } from "../../src/filters/prune-messages.js";
import { redactSecrets } from "../../src/filters/redact-secrets.js";
import { trimToTokens } from "../../src/filters/trim-to-tokens.js";
import { createDefaultRegistry } from "../../src/preset.js";
import { cli, DEMO, PLUGIN } from "../fixtures/sessions/run-cli.js";
import { assistant, bashExecution, user } from "../support/fixtures.js";
import { SECRETS } from "../support/secret-corpus.js";

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

describe("parseCount", () => {
	it.each([
		["120000", 120_000],
		["120_000", 120_000],
		["120,000", 120_000],
		["1,200,000", 1_200_000],
		["120k", 120_000],
		["120K", 120_000],
		["1.5M", 1_500_000],
		["1.5m", 1_500_000],
		[".5k", 500],
		["1e3", 1_000],
		["1E5", 100_000],
		["2.5e4", 25_000],
		[" 40000 ", 40_000],
		["0", 0],
	])("should read %j as %i", (text, count) => {
		expect(parseCount(text, "--max-tokens", "tokens")).toBe(count);
	});

	it.each([
		["many", ""],
		["", ""],
		["-5", ""],
		["0x10", ""],
		["12kk", ""],
		["1,5M", ""],
		["12,34", ""],
		["1 000", ""],
		["1e3k", ""],
		["Infinity", ""],
		["1e400", ""],
		["1.5", ", which is not a whole number"],
		["1.2345k", ", which is not a whole number"],
		["1e-3", ", which is not a whole number"],
		["1e16", ", which is more than 9007199254740991"],
	])("should refuse %j with a message that names the flag and the forms it takes", (text, why) => {
		expect(() => parseCount(text, "--max-tokens", "tokens")).toThrow(CliError);
		expect(() => parseCount(text, "--max-tokens", "tokens")).toThrow(
			`--max-tokens takes a whole number of tokens (120000, 120_000, 120,000, 120k, 1.5M or 1e5), not ${JSON.stringify(text)}${why}.`,
		);
	});
});

describe("filterPlugins", () => {
	const none = { prune: undefined, maxTokens: undefined, redactSecrets: false };
	it.each([
		[{ trimStep: "10k" }, "--trim-step sets the step of --max-tokens: give --max-tokens too."],
		[{ pruneStep: "10" }, "--prune-step sets the step of --prune: give --prune too."],
		[{ maxTokens: "40k", trimStep: "0" }, "--trim-step takes from 1 token to --max-tokens (40000)"],
		[{ maxTokens: "40k", trimStep: "50k" }, "--trim-step takes from 1 token to --max-tokens (40000)"],
		[{ maxTokens: "40k", trimStep: "ten" }, "--trim-step takes a whole number of tokens"],
		[{ prune: "toolCalls=all", pruneStep: "0" }, "--prune-step takes 1 message or more"],
		[{ prune: "toolCalls=all", pruneStep: "1.5" }, "--prune-step takes a whole number of messages"],
	])("should refuse %j", (options, message) => {
		expect(() => filterPlugins({ ...none, ...options })).toThrow(CliError);
		expect(() => filterPlugins({ ...none, ...options })).toThrow(message);
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

	it("should read --max-tokens as a person types it and add the steps, as the library does", async () => {
		const run = await cli(
			[
				"--json",
				"--prune",
				"toolCalls=before-last-2-messages",
				"--prune-step",
				"3",
				"--max-tokens",
				"0.1k",
				"--trim-step",
				"25",
				"-",
			],
			{ stdin },
		);
		expect(run.code, run.stderr).toBe(0);
		const registry = createDefaultRegistry()
			.use(pruneMessages({ toolCalls: "before-last-2-messages", step: 3 }))
			.use(trimToTokens({ maxTokens: 100, step: 25 }));
		expect(JSON.parse(run.stdout)).toEqual(registry.convert(history));
		const header = await cli(["--max-tokens", "1.5M", "--trim-step", "375k", "-"], { stdin });
		expect(header.code, header.stderr).toBe(0);
		expect(header.stdout).toContain("trim-to-tokens (1.5M, step 375k)");
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
		[["--max-tokens", "12kk"], '(120000, 120_000, 120,000, 120k, 1.5M or 1e5), not "12kk".'],
		[["--trim-step", "10"], "give --max-tokens too"],
	])("should refuse %j with exit 2", async (argv, message) => {
		const run = await cli([...argv, "--plugin", PLUGIN, DEMO]);
		expect(run.code).toBe(2);
		expect(run.stderr).toContain(message);
	});
});
