/**
 * Every example runs against the built package (each asserts its own outcome and exits non-zero when
 * it is wrong); here we also check it exits 0 and prints what it is about. dist/ is built (when
 * stale) by the globalSetup, test/support/build.ts.
 */
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { exampleCommand } from "../../scripts/example-command.mjs";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const EXAMPLES = join(ROOT, "examples");

interface RunResult {
	code: number | null;
	stdout: string;
	stderr: string;
}

function run(command: string, args: readonly string[]): Promise<RunResult> {
	return new Promise((resolve) => {
		const child = spawn(command, args, { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
		let stdout = "";
		let stderr = "";
		child.stdout.on("data", (chunk: Buffer) => {
			stdout += chunk.toString();
		});
		child.stderr.on("data", (chunk: Buffer) => {
			stderr += chunk.toString();
		});
		child.on("error", (error) => resolve({ code: -1, stdout, stderr: `${stderr}${error.message}` }));
		child.on("close", (code) => resolve({ code, stdout, stderr }));
	});
}

/** Lines each example's output must contain (an example not listed here must still run and exit 0). */
const expectedOutput: Record<string, string[]> = {
	"extension-custom-role.ts": [
		"roles known to the registry: user, assistant, toolResult, system, bashExecution, custom, branchSummary, compactionSummary, artifact",
		"5 history messages -> 4 model messages:",
		'user: <artifact title="README.md" version="2" type="text/markdown">',
		'user: (The user saved the artifact "README.md".)',
		"OK: the artifact role and the extension's custom messages were converted by its plugin.",
	],
	"host-filters.ts": [
		"user: Deploy with key [redacted] and the db password, please.",
		"user: Ran `printenv DB_PASSWORD`\\n```\\n[vault]\\n```",
		"And here is the dashboard: Image reading is disabled.",
		"convert on the async registry: AsyncHookInSyncConvertError",
		"OK: both filters hid their secrets; the agent's history is untouched.",
	],
	"filters-prune.ts": [
		'assistant: ["toolCall"]',
		"OK: 7 history messages -> 5 model messages; the old tool call went with its result.",
	],
	"filters-trim.ts": [
		"trimmed to 300: 5 messages, ~250 tokens: system, user, assistant, user, assistant",
		"trimmed to 20: system; problem: trimToTokens: nothing but the system messages fits the budget of 20 tokens",
		"OK: the latest turns that fit were kept, with the system prompt.",
	],
	"filters-redact.ts": [
		"AWS_SECRET_ACCESS_KEY=[REDACTED:aws-secret-access-key#1]\\nDATABASE_URL=[REDACTED:postgresql-url#1]",
		'"command":"GITHUB_TOKEN=[REDACTED:github-token#1] gh release create v1"',
		"OK: every secret was replaced before the request left; the history is untouched.",
	],
	"default-preset-agent.ts": [
		"request 1: system, user, user, user, user, user",
		'  system prompt: "You are a careful coding agent."; tools: echo',
		"OK: the system prompt and the tools reached the provider, as with pi's own convertToLlm.",
	],
	"pi-0.73-agent.ts": [
		"--- turn 1: the model received 5 messages",
		"user: Why does the test fail? Screenshot attached. | Image reading is disabled.",
		"--- turn 2: the model received 7 messages",
		"user: Why does the test fail? Screenshot attached. | [image]",
		"OK: the model received exactly the default preset's conversion, on every turn.",
	],
};

const files = readdirSync(EXAMPLES)
	.filter((file) => file.endsWith(".ts"))
	.sort();

describe("examples", () => {
	it("should have one example per documented use, each opening with a “Demonstrates …” comment", () => {
		expect(files).toEqual(expect.arrayContaining(Object.keys(expectedOutput)));
		for (const file of files) {
			expect(readFileSync(join(EXAMPLES, file), "utf8"), file).toMatch(/^\/\*\*\n \* Demonstrates /);
		}
	});

	it.concurrent.for(files)("should run %s with tsx, exit 0 and print its outcome", async (file, { expect }) => {
		const [command, args] = exampleCommand(ROOT, file);
		const result = await run(command, args);
		expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
		expect(result.stdout.trim()).not.toBe("");
		for (const line of expectedOutput[file] ?? []) expect(result.stdout).toContain(line);
	});
});
