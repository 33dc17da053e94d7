/**
 * The pi extension in the real pi 1.6.0 CLI (`@earendil-works/pi-coding-agent`'s bin, RPC mode, on
 * the Node >= 22.19 that scripts/pi-node.mjs provides), loaded from this package's directory as
 * `pi -e <package>` loads it (its `pi` manifest names dist/pi.js), against a loopback
 * OpenAI-compatible endpoint configured in a temporary agent directory's models.json. No part of pi
 * is mocked; HOME, pi's agent directory and the working directory are temporary, and every pi run
 * and wait is bounded in time.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeProvider, startFakeProvider } from "./support/pi-cli/fake-provider.js";
import type { RpcEvent } from "./support/pi-cli/rpc-client.js";
import {
	INJECTED_SUMMARY,
	llmContext,
	notices,
	piArgs,
	prepare,
	prompt,
	ROOT,
	runScenario,
	script,
	withPi,
} from "./support/pi-cli/scenario.js";

const TICKET_EXTENSION = join(ROOT, "examples/pi-ticket-role");
const TICKET_PLUGIN = join(ROOT, "examples/plugins/ticket-role.mjs");
/** What the ticket plugin makes of the example session's ticket message. */
const TICKET_TEXT = "[ticket TODO-42, open] Due dates without seconds are rejected";
/** The requests one run of the scenario sends: a tool call and its answer, an image prompt, the compaction's summary, a last prompt. */
const SCENARIO_REQUESTS = 5;

let fake: FakeProvider;
let base: string;
/** The request bodies of the scenario without the extension: the reference for every other run. */
let reference: string[];

/** `convert-to-llm --json` (the built CLI, on this Node) for a session file. */
function cliJson(session: string, plugins: readonly string[] = []): string {
	const args = [join(ROOT, "dist/cli.js"), "--json"];
	for (const plugin of plugins) args.push("--plugin", plugin);
	const result = spawnSync(process.execPath, [...args, session], { encoding: "utf8", timeout: 20_000 });
	expect(result.status, result.stderr).toBe(0);
	return result.stdout;
}

/** Runs pi in a fresh `root` on the scenario session, then `steps`; returns the bodies the provider got. */
async function run<T>(
	name: string,
	extensions: readonly string[],
	steps: (pi: Parameters<Parameters<typeof withPi>[1]>[0], session: string) => Promise<T>,
	options: { flags?: string[]; settings?: Record<string, unknown> } = {},
): Promise<{ bodies: string[]; result: T; events: RpcEvent[]; stderr: string }> {
	const { dirs, session } = prepare(join(base, name), fake, options.settings);
	const outcome = await withPi({ dirs, args: piArgs(session, extensions, options.flags), lifetimeMs: 45_000 }, (pi) =>
		steps(pi, session),
	);
	return { ...outcome, bodies: fake.bodies.splice(0) };
}

const texts = (bodies: readonly string[]): string => bodies.join("\n");

beforeAll(async () => {
	fake = await startFakeProvider(script);
	base = mkdtempSync(join(tmpdir(), "convert-to-llm-pi-e2e-"));
	// Every run uses the same directory names (pi puts the working directory in its system prompt).
	reference = (await run("run", [], (pi) => runScenario(pi))).bodies;
}, 60_000);

afterAll(async () => {
	await fake?.close();
	if (base !== undefined) rmSync(base, { recursive: true, force: true });
});

describe("the convert-to-llm pi extension in pi 1.6.0 (RPC mode)", () => {
	it("should have sent the scenario's requests without the extension", () => {
		expect(reference).toHaveLength(SCENARIO_REQUESTS);
		expect(texts(reference)).toContain(INJECTED_SUMMARY.split("\n")[1]);
	});

	it(`should send byte-identical requests with its default configuration (${SCENARIO_REQUESTS} wire requests compared), load without warnings, and show in /llm-context --json what convert-to-llm --json gives`, async () => {
		const { bodies, result, events, stderr } = await run("run", [ROOT], async (pi, session) => {
			await runScenario(pi);
			const commands = await pi.request({ type: "get_commands" });
			return { commands, json: await llmContext(pi, "--json"), view: await llmContext(pi), cli: cliJson(session) };
		});
		expect(bodies).toHaveLength(SCENARIO_REQUESTS);
		for (let i = 0; i < SCENARIO_REQUESTS; i++) expect(bodies[i], `request ${i}`).toBe(reference[i]);
		expect(stderr).toBe("");
		expect(events.filter((event) => event.type === "extension_error")).toEqual([]);
		expect(JSON.stringify(result.commands)).toContain('"name":"llm-context"');
		expect(`${result.json}\n`).toBe(result.cli);
		expect(result.view).toContain("── Why: each history message, and what it became");
		expect(result.view).toMatch(/#0 system ← system \w+ · system prompt/);
	}, 60_000);
});
