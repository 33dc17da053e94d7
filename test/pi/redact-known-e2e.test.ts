/**
 * `redactSecrets` with values known to be secret in the real pi CLI of both lines (RPC mode, the
 * loopback provider; pi 1.6.0 with settings.json's `{ env, envFiles }`, 0.73.1 with the flag's
 * `redactSecrets=env`): a value planted in a `.env` file of pi's working directory and one in an
 * environment variable with a secret-like name, which no secretlint rule finds, never appear in any
 * request body, whether a tool prints them as they are or base64-encoded, or the project's AGENTS.md
 * puts them in the system prompt; without the switch they do.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeProvider, type FakeScript, startFakeProvider } from "../support/pi-cli/fake-provider.js";
import type { PiLine } from "../support/pi-cli/rpc-client.js";
import { notices, piArgs, prepare, prompt, ROOT, script, withPi } from "../support/pi-cli/scenario.js";

/** Values no secretlint rule knows: only their sources make them secrets. */
const FILE_SECRET = "staging-db-pass-7c41e0a9";
const ENV_SECRET = "acme-token-value-93b5d2f8";
const ENV_NAME = "ACME_API_TOKEN";
const FORMS = [FILE_SECRET, ENV_SECRET, ...[FILE_SECRET, ENV_SECRET].map((v) => Buffer.from(v).toString("base64"))];
const AGENTS_MD = `# Notes\nThe staging database password is ${FILE_SECRET}; the ACME token is ${ENV_SECRET}.\n`;
/** The shell commands the model runs, one per turn: the values as they are, and base64-encoded. */
const COMMANDS = [
	"cat .env",
	`echo "$${ENV_NAME}"`,
	`. ./.env && printf %s "$DB_PASSWORD" | base64`,
	`printf %s "$${ENV_NAME}" | base64`,
];
const RUN = /^run: (.*)$/s;

/** The fake model: runs `<command>` with bash for "run: <command>", the scenario's script otherwise. */
const runScript: FakeScript = (body, index) => {
	const last = body.messages.at(-1);
	const content = last?.content;
	const text =
		typeof content === "string"
			? content
			: Array.isArray(content)
				? (content as { text?: string }[]).map((block) => block.text ?? "").join("")
				: "";
	const asked = last?.role === "user" ? RUN.exec(text) : null;
	if (asked !== null)
		return { toolCalls: [{ id: `call_${index}`, name: "bash", arguments: { command: asked[1] as string } }] };
	return script(body, index);
};

let fake: FakeProvider;
let base: string;

beforeAll(async () => {
	fake = await startFakeProvider(runScript);
	base = mkdtempSync(join(tmpdir(), "convert-to-llm-redact-known-e2e-"));
});

afterAll(async () => {
	await fake?.close();
	if (base !== undefined) rmSync(base, { recursive: true, force: true });
});

describe.each([
	["1.6.0", { convertToLlm: { redactSecrets: { env: true, envFiles: [".env"] } } }, []],
	["0.73.1", undefined, ["--convert-to-llm", "redactSecrets=env"]],
] as const)("redactSecrets' known values in pi %s (RPC mode)", (line, settings, flags) => {
	/** Each command as a turn, then a last prompt; every body pi sent, and the errors it showed. */
	async function scenario(redact: boolean) {
		const { dirs, session } = prepare(join(base, line), fake, redact ? settings : undefined);
		writeFileSync(join(dirs.cwd, ".env"), `DB_PASSWORD=${FILE_SECRET}\nPORT=8080\n`);
		writeFileSync(join(dirs.cwd, "AGENTS.md"), AGENTS_MD);
		fake.bodies.splice(0);
		const { events } = await withPi(
			{
				dirs,
				args: piArgs(session, [ROOT], redact ? [...flags] : []),
				line: line as PiLine,
				lifetimeMs: 90_000,
				env: { [ENV_NAME]: ENV_SECRET },
			},
			async (pi) => {
				for (const command of COMMANDS) await prompt(pi, `run: ${command}`);
				await prompt(pi, "And now?");
			},
		);
		return { bodies: fake.bodies.splice(0), errors: notices(events, "error") };
	}

	it("should send neither value in any form, in tool results or in the system prompt", async () => {
		const { bodies, errors } = await scenario(true);
		expect(errors).toEqual([]);
		expect(bodies).toHaveLength(2 * COMMANDS.length + 1);
		for (const body of bodies) for (const form of FORMS) expect(body).not.toContain(form);
		const last = bodies.at(-1) as string;
		// The system prompt still says what AGENTS.md says, the values replaced, numbered as in the results.
		expect(last).toContain("The staging database password is [REDACTED:db-password#1]");
		expect(last).toContain("the ACME token is [REDACTED:acme-api-token#1]");
		expect(last).toContain("PORT=8080");
	}, 120_000);

	it("should send them without the switch (the test plants what the switch must catch)", async () => {
		const { bodies } = await scenario(false);
		const last = bodies.at(-1) as string;
		for (const form of FORMS) expect(last).toContain(form);
	}, 120_000);
});
