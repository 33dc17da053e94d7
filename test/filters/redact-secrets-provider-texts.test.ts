/**
 * `redactSecrets` scans what the provider receives: tool-call arguments as their JSON text (a key
 * and its value apart in the object, together in the JSON), text blocks joined as pi-ai's providers
 * join them, a system prompt with its sections, and maps what it finds back to the strings it came
 * from.
 */
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { redactSecrets } from "../../src/filters/redact-secrets.js";
import { createDefaultRegistry } from "../../src/preset.js";
import { assistant, T0, user } from "../support/fixtures.js";
import { SECRETS } from "../support/secret-corpus.js";

const aws = SECRETS.filter((s) => s.kind === "aws-secret-access-key").map((s) => s.value);
const [key] = aws as [string];

const convert = async (history: AgentMessage[]) =>
	JSON.stringify(await createDefaultRegistry().use(redactSecrets()).convertAsync(history));

const toolCall = (args: Record<string, unknown>) =>
	assistant([{ type: "toolCall", id: "c1", name: "deploy", arguments: args as never }]);

describe("redactSecrets", () => {
	it.each([
		["an env object", { env: { AWS_SECRET_ACCESS_KEY: key } }],
		[
			"a nested config",
			{ path: "config.json", content: { aws: { aws_secret_access_key: key, region: "eu-west-1" } } },
		],
		["a list of pairs", { pairs: [{ AWS_SECRET_ACCESS_KEY: key }] }],
	])("should find a key and its value apart in %s of a tool call's arguments", async (_case, args) => {
		const sent = await convert([user("deploy"), toolCall(args)]);
		expect(sent).not.toContain(key);
		expect(sent).toContain("[REDACTED:aws-secret-access-key#1]");
		expect(sent.toLowerCase()).toContain("aws_secret_access_key");
	});

	it("should find a key and its value at any depth and under any other keys", async () => {
		await fc.assert(
			fc.asyncProperty(
				fc.array(fc.constantFrom("env", "settings", "0", "nested", "x-y"), { maxLength: 6 }),
				fc.dictionary(fc.constantFrom("a", "b", "region", "user"), fc.string({ maxLength: 8 }), { maxKeys: 3 }),
				fc.constantFrom(...aws),
				async (path, siblings, value) => {
					let args: Record<string, unknown> = { ...siblings, AWS_SECRET_ACCESS_KEY: value };
					for (const name of path.reverse()) args = { [name]: args, ...siblings };
					const sent = await convert([user("go"), toolCall(args)]);
					expect(sent).not.toContain(value);
				},
			),
			{ numRuns: 60 },
		);
	}, 120_000);

	it("should find a value JSON-escaped in the arguments and replace it in the raw string", async () => {
		const body = SECRETS.find((s) => s.kind === "private-key") as (typeof SECRETS)[number];
		const sent = await convert([user("write it"), toolCall({ files: { id_rsa: body.text } })]);
		expect(sent).not.toContain(body.value);
	});

	it.each([
		[
			"a user's text blocks",
			(a: string, b: string) =>
				user([
					{ type: "text", text: a },
					{ type: "text", text: b },
				]),
		],
		[
			"an assistant's text blocks",
			(a: string, b: string) =>
				assistant([
					{ type: "text", text: a },
					{ type: "text", text: b },
				]),
		],
		[
			"a tool result's text blocks",
			(a: string, b: string) =>
				({
					role: "toolResult",
					toolCallId: "c1",
					toolName: "read",
					content: [
						{ type: "text", text: a },
						{ type: "text", text: b },
					],
					isError: false,
					timestamp: T0,
				}) as AgentMessage,
		],
	])(
		"should find a secret split across %s, which a provider joins",
		async (_case, make) => {
			for (const secret of SECRETS) {
				const at = secret.text.indexOf(secret.value) + Math.floor(secret.value.length / 2);
				const sent = await convert([make(secret.text.slice(0, at), secret.text.slice(at)) as AgentMessage]);
				const halves = [
					secret.value.slice(0, secret.value.length / 2),
					secret.value.slice(secret.value.length / 2),
				];
				expect(
					halves.every((half) => sent.includes(half)),
					secret.kind,
				).toBe(false);
			}
		},
		120_000,
	);

	it("should find a key name and its value in two text blocks that a provider joins with a line break", async () => {
		const sent = await convert([
			{
				role: "toolResult",
				toolCallId: "c1",
				toolName: "read",
				content: [
					{ type: "text", text: "aws_secret_access_key:" },
					{ type: "text", text: `  ${key}` },
				],
				isError: false,
				timestamp: T0,
			} as AgentMessage,
		]);
		expect(sent).not.toContain(key);
		expect(sent).toContain("aws_secret_access_key:");
	});

	it("should find a key name in a system prompt and its value in a section", async () => {
		const system = {
			role: "system",
			content: "Deploy with AWS_SECRET_ACCESS_KEY=",
			sections: { env: key },
			timestamp: T0,
		} as unknown as AgentMessage;
		const sent = await convert([system, user("go")]);
		expect(sent).not.toContain(key);
	});
});

describe("redactSecrets, with a getter", () => {
	it("should drop, and report, a message whose arguments read differently when a secret found in them is placed", async () => {
		let reads = 0;
		const args = {
			get env() {
				reads++;
				// The walk and JSON.stringify see the key with its value; the mapping back sees another.
				return reads <= 2 ? { AWS_SECRET_ACCESS_KEY: key } : { changed: "nothing here" };
			},
		};
		const registry = createDefaultRegistry().use(redactSecrets());
		const { output, problems } = await registry.runAsync([user("go"), toolCall(args)]);
		expect(JSON.stringify(output)).not.toContain(key);
		expect(output.map((m) => m.role)).toEqual(["user"]);
		expect(problems.map((p) => p.message)).toEqual([expect.stringContaining("read differently each time")]);
	});
});
