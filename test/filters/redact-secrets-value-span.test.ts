/**
 * `redactSecrets` replaces the value a rule reports wherever it is in the text, however far from the
 * name the rule matched it by (aligned `.env` columns, a YAML value on the next line), and leaves the
 * name, and text that merely names a variable, as it is.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { redactSecrets } from "../../src/filters/redact-secrets.js";
import { createDefaultRegistry } from "../../src/preset.js";
import { user } from "../support/fixtures.js";
import { SECRETS } from "../support/secret-corpus.js";

const awsKeys = SECRETS.filter((s) => s.kind === "aws-secret-access-key").map((s) => s.value);
const [key] = awsKeys as [string];

async function redacted(text: string): Promise<string> {
	const [message] = await createDefaultRegistry()
		.use(redactSecrets())
		.convertAsync([user(text)]);
	return message?.content as string;
}

describe("redactSecrets", () => {
	it.each([
		["an aligned .env column", `AWS_SECRET_ACCESS_KEY=${" ".repeat(45)}${key}`],
		["a YAML value on the next line", `aws:\n  aws_secret_access_key:\n    ${key}\n  region: eu-west-1`],
		["a quoted YAML value after a blank line", `aws_secret_access_key:\n\n  "${key}"`],
		["a tab-aligned column", `AWS_SECRET_ACCESS_KEY\t\t\t\t\t\t\t\t=\t\t\t\t\t\t${key}`],
	])("should replace the value far from its name in %s, and keep the name", async (_case, text) => {
		const out = await redacted(text);
		expect(out).not.toContain(key);
		expect(out.toLowerCase()).toContain("aws_secret_access_key");
		expect(out).toMatch(/\[REDACTED:aws-secret-access-key#1\]/);
	});

	it("should replace the value and nothing else for any gap between the name and the value", async () => {
		await fc.assert(
			fc.asyncProperty(
				fc.constantFrom(
					"AWS_SECRET_ACCESS_KEY",
					"aws_secret_access_key",
					'"AwsSecretAccessKey"',
					"SECRET_ACCESS_KEY",
				),
				fc.constantFrom("=", ":", "=>"),
				fc.array(fc.constantFrom(" ", "\t", "\n", "\r\n"), { maxLength: 120 }).map((ws) => ws.join("")),
				fc.array(fc.constantFrom(" ", "\t", "\n"), { maxLength: 120 }).map((ws) => ws.join("")),
				fc.constantFrom("", '"', "'"),
				fc.constantFrom(...awsKeys),
				async (name, connect, before, after, quote, value) => {
					const text = `config:\n${name}${before}${connect}${after}${quote}${value}${quote}\nnext line`;
					const out = await redacted(text);
					expect(out).not.toContain(value);
					// Exactly the value is gone: put it back and the text is whole again.
					expect(out.replace(/\[REDACTED:[a-z0-9-]+#\d+\]/, value)).toBe(text);
				},
			),
			{ numRuns: 150 },
		);
	}, 120_000);

	it.each([
		"Set AWS_SECRET_ACCESS_KEY in your shell before you run the deploy script, then check the logs.",
		"export AWS_SECRET_ACCESS_KEY=$AWS_SECRET_ACCESS_KEY",
		`aws_secret_access_key = ${"$"}{AWS_SECRET}\n# read from the environment at runtime, never committed`,
		`AWS_SECRET_ACCESS_KEY: see the vault entry ${"(rotated monthly) ".repeat(4)}`,
	])("should leave text that merely names a variable as it is: %s", async (text) => {
		expect(await redacted(text)).toBe(text);
	});
});
