/**
 * Stable placeholders: the same secret gets the same numbered placeholder in every conversion of a
 * plugin (`[REDACTED:aws-secret-access-key#1]`), numbered by first occurrence in history order, so
 * the redacted prefix stays byte-stable from turn to turn; a plugin `use()`d on a second registry
 * (the report's texts) keeps the one numbering.
 */
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { describe, expect, it } from "vitest";
import { modelRoles } from "../../src/builtin-converters/model-roles.js";
import { redactSecrets } from "../../src/filters/redact-secrets.js";
import { createRegistry } from "../../src/index.js";
import { createDefaultRegistry } from "../../src/preset.js";
import { bashExecution, user } from "../support/fixtures.js";
import { SECRETS } from "../support/secret-corpus.js";

const [key1, key2, key3] = SECRETS.filter((s) => s.kind === "aws-secret-access-key").map((s) => s.value) as [
	string,
	string,
	string,
];
const line = (key: string) => `AWS_SECRET_ACCESS_KEY=${key}`;

describe("redactSecrets placeholders", () => {
	it("should number secrets of a kind by their first occurrence, and give a secret met again its number", async () => {
		const output = await createDefaultRegistry()
			.use(redactSecrets())
			.convertAsync([
				user(line(key2)),
				bashExecution({ command: "cat .env", output: `${line(key1)}\n${line(key2)}` }),
				user(`is ${key1} right?`),
			]);
		expect(output.map((m) => JSON.stringify(m.content))).toEqual([
			JSON.stringify("AWS_SECRET_ACCESS_KEY=[REDACTED:aws-secret-access-key#1]"),
			expect.stringContaining(
				"AWS_SECRET_ACCESS_KEY=[REDACTED:aws-secret-access-key#2]\\nAWS_SECRET_ACCESS_KEY=[REDACTED:aws-secret-access-key#1]",
			),
			JSON.stringify("is [REDACTED:aws-secret-access-key#2] right?"),
		]);
	});

	it("should keep every earlier message byte for byte as the history grows turn by turn", async () => {
		const registry = createDefaultRegistry().use(redactSecrets());
		const history: AgentMessage[] = [];
		let previous = "";
		for (const text of [line(key1), "ok", line(key2), `again ${key1}`, line(key3), `and ${key2}`]) {
			history.push(user(text));
			const sent = (await registry.convertAsync(history)).map((m) => JSON.stringify(m)).join("\n");
			expect(sent.startsWith(previous)).toBe(true);
			previous = sent;
		}
		expect(previous).toContain("again [REDACTED:aws-secret-access-key#1]");
		expect(previous).toContain("and [REDACTED:aws-secret-access-key#2]");
		expect(previous).toContain("[REDACTED:aws-secret-access-key#3]");
	});

	it("should keep one numbering for a plugin used on a second registry of synthetic messages", async () => {
		const plugin = redactSecrets();
		await createDefaultRegistry()
			.use(plugin)
			.convertAsync([user(line(key1)), user(line(key2))]);
		// What a report does with the same plugin: its own registry, its own texts.
		const report = createRegistry().use(modelRoles).use(plugin);
		const { output, problems } = await report.runAsync([user(`- ${line(key2)}`), user(`+ ${key1}`)]);
		expect(problems).toEqual([]);
		expect(output.map((m) => m.content)).toEqual([
			"- AWS_SECRET_ACCESS_KEY=[REDACTED:aws-secret-access-key#2]",
			"+ [REDACTED:aws-secret-access-key#1]",
		]);
	});

	it("should give the replacement function each secret's kind, value and number", async () => {
		const calls: [string, string, number][] = [];
		const plugin = redactSecrets({
			replacement: (kind, secret, n) => {
				calls.push([kind, secret, n]);
				return `<${kind} ${n}>`;
			},
		});
		const [message] = await createDefaultRegistry()
			.use(plugin)
			.convertAsync([user(`${line(key1)} ${line(key2)}`)]);
		expect(message?.content).toBe(
			"AWS_SECRET_ACCESS_KEY=<aws-secret-access-key 1> AWS_SECRET_ACCESS_KEY=<aws-secret-access-key 2>",
		);
		expect(calls).toEqual([
			["aws-secret-access-key", key1, 1],
			["aws-secret-access-key", key2, 2],
		]);
	});
});
