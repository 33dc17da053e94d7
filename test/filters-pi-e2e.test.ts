/**
 * `redactSecrets` in the real pi CLI (RPC mode, pi 1.6.0 with settings.json and 0.73.1 with the flag),
 * against the loopback provider: a secret typed in a prompt and printed by a `!` bash run never
 * appears in any request body pi sends (without the switch, two of the three bodies carry them).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeProvider, startFakeProvider } from "./support/pi-cli/fake-provider.js";
import type { PiLine } from "./support/pi-cli/rpc-client.js";
import { piArgs, prepare, prompt, ROOT, script, withPi } from "./support/pi-cli/scenario.js";
import { SECRETS } from "./support/secret-corpus.js";

let fake: FakeProvider;
let base: string;

beforeAll(async () => {
	fake = await startFakeProvider(script);
	base = mkdtempSync(join(tmpdir(), "convert-to-llm-filters-e2e-"));
});

afterAll(async () => {
	await fake?.close();
	if (base !== undefined) rmSync(base, { recursive: true, force: true });
});

const github = SECRETS.find((s) => s.kind === "github-classic-token") as (typeof SECRETS)[number];
const aws = SECRETS.find((s) => s.kind === "aws-secret-access-key") as (typeof SECRETS)[number];

describe.each([
	["1.6.0", { settings: { convertToLlm: { redactSecrets: true } }, flags: [] as string[] }],
	["0.73.1", { settings: undefined, flags: ["--convert-to-llm", "redactSecrets"] }],
] as const)("redactSecrets in pi %s", (line, { settings, flags }) => {
	it("should send no planted secret in any request body", async () => {
		const { dirs, session } = prepare(join(base, line), fake, settings);
		const args = piArgs(session, [ROOT], flags);
		await withPi({ dirs, args, line: line as PiLine, lifetimeMs: 60_000 }, async (pi) => {
			await prompt(pi, `Deploy with ${github.text}`);
			const bash = await pi.request({ type: "bash", command: `echo '${aws.text}'` });
			if (bash.success !== true) throw new Error(`! failed: ${JSON.stringify(bash)}`);
			const compacted = await pi.request({ type: "compact" }, 30_000);
			if (compacted.success !== true) throw new Error(`compact failed: ${JSON.stringify(compacted)}`);
			await prompt(pi, "And now?");
		});
		const bodies = fake.bodies.splice(0);
		expect(bodies.length).toBeGreaterThanOrEqual(3);
		const leaked = bodies.filter((body) => body.includes(github.value) || body.includes(aws.value)).length;
		expect(leaked).toBe(0);
		expect(bodies.some((body) => body.includes("[REDACTED:github]"))).toBe(true);
	}, 120_000);
});
