/**
 * Demonstrates `redactSecrets`: secretlint's recommended rules run over every string the model would
 * receive (a `cat .env` in a bash run, a tool result, tool-call arguments), and each secret value is
 * replaced by a numbered placeholder (`[REDACTED:<kind>#<n>]`) before the request leaves the machine;
 * `convertAsync` runs it.
 *
 * Run: npm run build && npx tsx examples/filters-redact.ts
 */
import assert from "node:assert/strict";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { redactSecrets } from "convert-to-llm/filters";
import { createDefaultRegistry } from "convert-to-llm/preset";

// Made-up values in the issuers' formats (split so that this file itself does not look like a leak).
const awsKey = ["wJalrXUtnFEMI", "K7MDENG", "bPxRfiCYzq8Tn2LQxy"].join("/");
const github = `ghp_${"wWPw5k4aXcaT4fNP0UcnZwJUVFk6LO0pINUx"}`;
const dbUrl = `postgres://app:${"Zq81mKd02jXbWq"}@db.internal:5432/orders`;

const usage = {
	input: 1,
	output: 1,
	cacheRead: 0,
	cacheWrite: 0,
	totalTokens: 2,
	cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
};
const history: AgentMessage[] = [
	{ role: "user", content: "Deploy the app, the creds are in .env", timestamp: 0 },
	{
		role: "bashExecution",
		command: "cat .env",
		output: `AWS_SECRET_ACCESS_KEY=${awsKey}\nDATABASE_URL=${dbUrl}\n`,
		exitCode: 0,
		cancelled: false,
		truncated: false,
		timestamp: 1,
	},
	{
		role: "assistant",
		content: [
			{
				type: "toolCall",
				id: "c1",
				name: "bash",
				arguments: { command: `GITHUB_TOKEN=${github} gh release create v1` },
			},
		],
		api: "faux",
		provider: "faux",
		model: "faux-1",
		usage,
		stopReason: "toolUse",
		timestamp: 2,
	},
	{
		role: "toolResult",
		toolCallId: "c1",
		toolName: "bash",
		content: [{ type: "text", text: "release v1 created" }],
		isError: false,
		timestamp: 3,
	},
];

const registry = createDefaultRegistry().use(redactSecrets());
const output = await registry.convertAsync(history);
for (const message of output) console.log(`${message.role}: ${JSON.stringify(message.content)}`);

const sent = JSON.stringify(output);
assert.ok(
	!sent.includes(awsKey) && !sent.includes(github) && !sent.includes("Zq81mKd02jXbWq"),
	"no secret reaches the model",
);
assert.ok(sent.includes("AWS_SECRET_ACCESS_KEY=[REDACTED:aws-secret-access-key#1]"), "the text around a secret stays");
assert.ok(
	sent.includes("[REDACTED:github-token#1]") && sent.includes("[REDACTED:postgresql-url#1]"),
	"each placeholder names its kind",
);
assert.ok(JSON.stringify(history).includes(awsKey), "the history itself is unchanged");
console.log("OK: every secret was replaced before the request left; the history is untouched.");
