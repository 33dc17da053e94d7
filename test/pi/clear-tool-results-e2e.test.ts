/**
 * `clearToolResults` in the real pi CLI of both lines (RPC mode, the loopback provider): with the
 * switch on and a small trigger, the requests pi sends hold the placeholder `[cleared: …]` where the
 * old tool results were, and the latest results whole; from settings.json on both lines, and from
 * the flag (`clearToolResults=<trigger>`).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeProvider, type FakeScript, startFakeProvider } from "../support/pi-cli/fake-provider.js";
import type { PiLine, PiRpc } from "../support/pi-cli/rpc-client.js";
import { notices, piArgs, prepare, prompt, ROOT, script, withPi } from "../support/pi-cli/scenario.js";

const LINES: readonly PiLine[] = ["1.6.0", "0.73.1"];
/** The tool turns each run sends: "tool <n> please" makes the model run bash printing `result-<n>` 80 times. */
const TURNS = 5;
const ASK = /^tool (\d+) please$/;

/** The fake model: a bash call for "tool <n> please" (about 720 characters of output), the scenario's script otherwise. */
const toolScript: FakeScript = (body, index) => {
	const last = body.messages.at(-1);
	const content = last?.content;
	const text =
		typeof content === "string"
			? content
			: Array.isArray(content)
				? (content as { text?: string }[]).map((block) => block.text ?? "").join("")
				: "";
	const asked = last?.role === "user" ? ASK.exec(text) : null;
	if (asked !== null)
		return {
			toolCalls: [
				{ id: `call_${index}`, name: "bash", arguments: { command: `yes result-${asked[1]} | head -n 80` } },
			],
		};
	return script(body, index);
};

let fake: FakeProvider;
let base: string;

beforeAll(async () => {
	fake = await startFakeProvider(toolScript);
	base = mkdtempSync(join(tmpdir(), "convert-to-llm-clear-e2e-"));
});

afterAll(async () => {
	await fake?.close();
	if (base !== undefined) rmSync(base, { recursive: true, force: true });
});

/** The tool turns, then one more prompt; every body pi sent. */
async function run(line: PiLine, flags: string[], settings?: Record<string, unknown>) {
	const { dirs, session } = prepare(join(base, line), fake, settings);
	fake.bodies.splice(0);
	const { events } = await withPi(
		{ dirs, args: piArgs(session, [ROOT], flags), line, lifetimeMs: 90_000 },
		async (pi: PiRpc) => {
			for (let n = 1; n <= TURNS; n++) await prompt(pi, `tool ${n} please`);
			await prompt(pi, "And now?");
		},
	);
	return { bodies: fake.bodies.splice(0), events };
}

/** The tool results of a request body (OpenAI chat completions: role "tool"), as texts. */
const toolResults = (body: string): string[] =>
	(JSON.parse(body) as { messages: { role: string; content: unknown }[] }).messages
		.filter((message) => message.role === "tool")
		.map((message) => (typeof message.content === "string" ? message.content : JSON.stringify(message.content)));
const whole = (n: number) => new RegExp(`^(result-${n}\\n){80}`);

describe.each(LINES)("clearToolResults in pi %s (RPC mode)", (line) => {
	it.each([
		[
			"settings.json",
			[],
			{ convertToLlm: { clearToolResults: { trigger: { messages: 8 }, keep: { messages: 2 }, clearAtLeast: 0 } } },
			2,
		],
		["the flag", ["--convert-to-llm", "clearToolResults=tokens:300"], undefined, 3],
	] as const)(
		"should send the placeholder for the old results and the latest results whole, switched on in %s",
		async (_where, flags, settings, keep) => {
			const { bodies, events } = await run(line, [...flags], settings);
			expect(notices(events, "error")).toEqual([]);
			// Each tool turn is two requests (the call, then the answer after its result), then the last prompt.
			expect(bodies).toHaveLength(2 * TURNS + 1);
			const last = toolResults(bodies.at(-1) as string);
			const mine = last.slice(-TURNS);
			for (let n = 1; n <= TURNS; n++) {
				const result = mine[n - 1] as string;
				if (n > TURNS - keep) expect(result).toMatch(whole(n));
				else {
					expect(result).toBe(`[cleared: bash yes result-${n} | head -n 80, 720 characters]`);
				}
			}
			// The demo session's older results are cleared as well: none of them is sent whole.
			expect(last.slice(0, -TURNS).every((result) => result.startsWith("[cleared:"))).toBe(true);
		},
		120_000,
	);
});
