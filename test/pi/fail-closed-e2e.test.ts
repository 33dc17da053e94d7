/**
 * The pi extension fails closed in the real pi CLI of both lines (RPC mode, the loopback provider):
 * a request is the whole conversion or nothing reaches the provider, pi's run is aborted, and an error
 * says why and what to change. `redactSecrets` whose scanner cannot load (a copy of the package
 * without secretlint), and a misspelled switch (`redactSecret`) in settings.json or the flag, each
 * keep a secret typed in a prompt off the wire; the fixed settings, after `/reload`, send it redacted.
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeProvider, startFakeProvider } from "../support/pi-cli/fake-provider.js";
import { type PiLine, type PiRpc, SETTLED } from "../support/pi-cli/rpc-client.js";
import { notices, piArgs, prepare, prompt, ROOT, script, withPi } from "../support/pi-cli/scenario.js";
import { SECRETS } from "../support/secret-corpus.js";

const LINES: readonly PiLine[] = ["1.6.0", "0.73.1"];
const RELOAD_EXTENSION = join(ROOT, "test/support/pi-cli/reload-extension.mjs");
const github = SECRETS.find((s) => s.kind === "github-classic-token") as (typeof SECRETS)[number];
const SECRET_PROMPT = `Deploy with ${github.text}`;

let fake: FakeProvider;
let base: string;

beforeAll(async () => {
	fake = await startFakeProvider(script);
	base = mkdtempSync(join(tmpdir(), "convert-to-llm-fail-closed-e2e-"));
});

afterAll(async () => {
	await fake?.close();
	if (base !== undefined) rmSync(base, { recursive: true, force: true });
});

/** Sends a prompt that the extension may withhold (pi then ends the run without an answer) and waits until pi has settled. */
async function attempt(pi: PiRpc, message: string): Promise<void> {
	const from = pi.events.length;
	const response = await pi.request({ type: "prompt", message });
	if (response.success !== true) throw new Error(`prompt failed: ${JSON.stringify(response)}`);
	await pi.waitFor((event) => event.type === SETTLED[pi.line], 20_000, from);
}

/** Runs pi on the scenario session with `extensions` and the given settings and flags; returns what the provider got. */
async function run(
	line: PiLine,
	extensions: readonly string[],
	steps: (pi: PiRpc, agentDir: string) => Promise<void>,
	options: { settings?: Record<string, unknown>; flags?: string[] } = {},
) {
	const { dirs, session } = prepare(join(base, line), fake, options.settings);
	fake.bodies.splice(0);
	const { events } = await withPi(
		{ dirs, args: piArgs(session, extensions, options.flags), line, lifetimeMs: 60_000 },
		(pi) => steps(pi, dirs.agentDir),
	);
	return { bodies: fake.bodies.splice(0), errors: notices(events, "error").join("\n") };
}

/** This package as pi would load it from a copy whose node_modules lacks secretlint: its scanner cannot load. */
function copyWithoutSecretlint(): string {
	const copy = join(base, "without-secretlint");
	rmSync(copy, { recursive: true, force: true });
	mkdirSync(join(copy, "node_modules"), { recursive: true });
	cpSync(join(ROOT, "dist"), join(copy, "dist"), { recursive: true });
	cpSync(join(ROOT, "package.json"), join(copy, "package.json"));
	for (const name of ["tapable", "string-width"])
		symlinkSync(join(ROOT, "node_modules", name), join(copy, "node_modules", name), "dir");
	return copy;
}

describe.each(LINES)("the convert-to-llm pi extension's whole requests in pi %s (RPC mode)", (line) => {
	it("should withhold the request, abort pi's run and say to raise maxTokens, when maxTokens is below the newest prompt", async () => {
		const { bodies, errors } = await run(line, [ROOT], (pi) => attempt(pi, "And now?"), {
			flags: ["--convert-to-llm", "maxTokens=1"],
		});
		// Not a request of no messages (0.73.1) or of the system prompt alone (1.x): none at all.
		expect(bodies).toEqual([]);
		expect(errors).toContain("request withheld (fail closed): the conversion left nothing of the conversation");
		expect(errors).toContain("nothing but the system messages fits the budget of 1 tokens");
		expect(errors).toContain("raise maxTokens");
		// The switch's own reason and the switch that sets it, not a plugin crash for another extension to fix.
		expect(errors).toContain("It is set with the maxTokens switch (--convert-to-llm maxTokens=<n>");
		expect(errors).not.toMatch(/failed on a message|pi's own conversion was used|Report it to the extension/);
	}, 60_000);

	it("should withhold the request when redactSecrets' scanner cannot load, and say what to install", async () => {
		const { bodies, errors } = await run(line, [copyWithoutSecretlint()], (pi) => attempt(pi, SECRET_PROMPT), {
			flags: ["--convert-to-llm", "redactSecrets"],
		});
		expect(bodies.filter((body) => body.includes(github.value))).toEqual([]);
		expect(bodies).toEqual([]);
		expect(errors).toContain("request withheld (fail closed)");
		expect(errors).toContain("@secretlint/core");
	}, 60_000);

	it("should withhold every request, naming the misspelled switch of the flag and the one meant", async () => {
		const { bodies, errors } = await run(
			line,
			[ROOT],
			async (pi) => {
				await attempt(pi, SECRET_PROMPT);
				await attempt(pi, "And now?");
			},
			{ flags: ["--convert-to-llm", "redactSecret"] },
		);
		expect(bodies).toEqual([]);
		expect(errors).toContain('--convert-to-llm: unknown switch "redactSecret" (did you mean "redactSecrets"?)');
		expect(errors.split("request withheld (fail closed)")).toHaveLength(3);
	}, 60_000);

	it("should withhold every request while settings.json misspells a switch, and send them redacted once it is fixed and reloaded", async () => {
		const { bodies, errors } = await run(
			line,
			[ROOT, RELOAD_EXTENSION],
			async (pi, agentDir) => {
				await attempt(pi, SECRET_PROMPT);
				expect(fake.bodies).toEqual([]);
				writeFileSync(
					join(agentDir, "settings.json"),
					JSON.stringify({ compaction: { keepRecentTokens: 50 }, convertToLlm: { redactSecrets: true } }),
				);
				const from = pi.events.length;
				const reload = await pi.request({ type: "prompt", message: "/test-reload" });
				if (reload.success !== true) throw new Error(`/test-reload failed: ${JSON.stringify(reload)}`);
				await pi.waitFor((event) => event.message === "test-reload: reloaded", 20_000, from);
				await prompt(pi, "And now?");
			},
			{ settings: { convertToLlm: { redactSecret: true } } },
		);
		expect(errors).toContain('settings "convertToLlm" has no switch "redactSecret" (did you mean "redactSecrets"?)');
		expect(errors).toContain("then /reload");
		expect(bodies).toHaveLength(1);
		expect(bodies[0]?.includes(github.value)).toBe(false);
		expect(bodies[0]).toMatch(/\[REDACTED:github[\w-]*#1\]/);
	}, 90_000);
});
