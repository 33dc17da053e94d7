/**
 * The prompt cache and the bill in the real pi CLI of both lines (RPC mode, the loopback provider,
 * which bills each request a token per 4 bytes of its body): `maxTokens` and `prune` move in
 * cache-stable steps by default, and without a step the extension says once per session that the
 * filter breaks the prompt prefix (which filter, what it costs, the step that avoids it), withholding nothing even under
 * strict; `/llm-context` says what the next request reuses of the last one sent and what breaks it,
 * and shows pi's estimate, the calibrated count and the bill side by side, starting over in a new
 * session and for another model.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeProvider, startFakeProvider } from "../support/pi-cli/fake-provider.js";
import type { PiLine, PiRpc, RpcEvent } from "../support/pi-cli/rpc-client.js";
import { llmContext, notices, piArgs, prepare, prompt, ROOT, script, withPi } from "../support/pi-cli/scenario.js";

const LINES: readonly PiLine[] = ["1.6.0", "0.73.1"];
const TICKET_EXTENSION = join(ROOT, "examples/pi-ticket-role");
/** A prompt of about 60 tokens by pi's estimate. */
const PROMPT = (n: number) => `prompt ${n}: ${"please look at the parser again ".repeat(7)}`;
/** How many prompts the trim test sends. */
const PROMPTS = 12;
const TRIM_NOTICE = '"convert-to-llm:trim-to-tokens" broke the prompt cache';
/**
 * The budget of the trim: pi 1.x counts its system prompt and tools in it (about 1,300 tokens, in the
 * transcript), pi 0.73.1 sends them beside the messages.
 */
const MAX_TOKENS: Record<PiLine, number> = { "1.6.0": 1700, "0.73.1": 500 };

let fake: FakeProvider;
let base: string;

beforeAll(async () => {
	fake = await startFakeProvider(script);
	base = mkdtempSync(join(tmpdir(), "convert-to-llm-prompt-cache-e2e-"));
});

afterAll(async () => {
	await fake?.close();
	if (base !== undefined) rmSync(base, { recursive: true, force: true });
});

/** Runs pi on the scenario session with the extensions and flags; returns the bodies, the events and `steps`' result. */
async function run<T>(
	line: PiLine,
	extensions: readonly string[],
	flags: string[],
	steps: (pi: PiRpc) => Promise<T>,
	settings?: Record<string, unknown>,
): Promise<{ bodies: string[]; events: RpcEvent[]; result: T }> {
	const { dirs, session } = prepare(join(base, line), fake, settings);
	// A second model, so that a test can switch to it.
	writeFileSync(
		join(dirs.agentDir, "models.json"),
		JSON.stringify({
			providers: {
				fake: {
					baseUrl: fake.baseUrl,
					api: "openai-completions",
					apiKey: "fake-key",
					models: ["fake-model", "other-model"].map((id) => ({
						id,
						input: ["text", "image"],
						cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
					})),
				},
			},
		}),
	);
	fake.bodies.splice(0);
	const { events, result } = await withPi(
		{ dirs, args: piArgs(session, extensions, flags), line, lifetimeMs: 90_000 },
		steps,
	);
	return { bodies: fake.bodies.splice(0), events, result };
}

/** Each body's messages, as JSON strings (what the provider caches as the prompt prefix). */
const wire = (body: string): string[] =>
	(JSON.parse(body) as { messages: unknown[] }).messages.map((message) => JSON.stringify(message));

/** How many requests do not start with the whole of the one before (a break the provider sees). */
function wireBreaks(bodies: readonly string[]): number {
	let breaks = 0;
	for (let i = 1; i < bodies.length; i++) {
		const before = wire(bodies[i - 1] as string);
		const now = wire(bodies[i] as string);
		if (before.some((message, k) => now[k] !== message)) breaks++;
	}
	return breaks;
}

/** The view's text with its folded lines joined. */
const unfolded = (view: string): string => view.split("\n   ").join(" ");

describe.each(LINES)("the prompt cache in pi %s (RPC mode)", (line) => {
	it("should trim in steps by default, and without a step say once that maxTokens breaks the prompt cache, sending every request under strict", async () => {
		const prompts = async (pi: PiRpc) => {
			for (let i = 0; i < PROMPTS; i++) await prompt(pi, PROMPT(i));
		};
		const max = MAX_TOKENS[line];
		const quarter = max / 4;
		const flag = (step: string) => ["--convert-to-llm", `maxTokens=${max}${step},strict`];
		const plain = await run(line, [TICKET_EXTENSION, ROOT], flag(",maxTokensStep=0"), prompts);
		const stepped = await run(line, [TICKET_EXTENSION, ROOT], flag(""), prompts);
		for (const { bodies, events } of [plain, stepped]) {
			expect(bodies).toHaveLength(PROMPTS);
			expect(notices(events, "error")).toEqual([]);
		}
		const plainBreaks = wireBreaks(plain.bodies);
		const steppedBreaks = wireBreaks(stepped.bodies);
		expect(plainBreaks).toBeGreaterThanOrEqual(4);
		expect(steppedBreaks).toBeLessThan(plainBreaks);
		const told = notices(plain.events, "warning").filter((text) => text.includes(TRIM_NOTICE));
		expect(told).toHaveLength(1);
		expect(told[0]).toMatch(
			/so the provider bills this request from there on \(~[\d,]+ tokens, calibrated on \d+ billed requests?\) as a cache write \(about 1\.25× the input price\) instead of a cache read \(about 0\.1×\)\./,
		);
		expect(told[0]).toContain(
			`leave maxTokensStep out (a quarter of maxTokens, ${quarter}) or set one, e.g. "maxTokensStep": ${quarter} under "convertToLlm" in settings.json, or maxTokensStep=${quarter} in --convert-to-llm`,
		);
		const steppedTold = notices(stepped.events, "warning").filter((text) => text.includes(TRIM_NOTICE));
		expect(steppedTold.length).toBeLessThanOrEqual(1);
		for (const text of steppedTold)
			expect(text).toContain(`maxTokens moves its window in steps of ${quarter} tokens`);
	}, 180_000);

	it("should prune in steps by default, and without a step say once that prune breaks the prompt cache", async () => {
		// Each "tool please" turn is two requests: the tool call, then the answer after its result.
		const turns = async (pi: PiRpc) => {
			for (let i = 0; i < 6; i++) await prompt(pi, "tool please");
		};
		const prune = (step: Record<string, number>) => ({
			convertToLlm: { prune: { toolCalls: "before-last-2-messages" }, ...step },
		});
		const plain = await run(line, [TICKET_EXTENSION, ROOT], [], turns, prune({ pruneStep: 0 }));
		const stepped = await run(line, [TICKET_EXTENSION, ROOT], [], turns, prune({}));
		for (const { bodies, events } of [plain, stepped]) {
			expect(bodies).toHaveLength(12);
			expect(notices(events, "error")).toEqual([]);
		}
		expect(wireBreaks(stepped.bodies)).toBeLessThan(wireBreaks(plain.bodies));
		const told = notices(plain.events, "warning").filter((text) =>
			text.includes('"convert-to-llm:prune-messages" broke the prompt cache'),
		);
		expect(told).toHaveLength(1);
		expect(told[0]).toContain(
			'prune moves its toolCalls windows with every message because pruneStep is 0: leave pruneStep out (10 messages) or set one, e.g. "pruneStep": 10 under "convertToLlm" in settings.json',
		);
	}, 180_000);

	it("should show in /llm-context pi's estimate, the calibrated count and the bill side by side, and what the next request reuses", async () => {
		const { bodies, result } = await run(line, [ROOT], [], async (pi) => {
			const before = await llmContext(pi);
			await prompt(pi, PROMPT(1));
			await prompt(pi, PROMPT(2));
			const after = await llmContext(pi);
			const json = await llmContext(pi, "--json");
			return { before: unfolded(before), after: unfolded(after), json };
		});
		expect(bodies).toHaveLength(2);
		expect(result.before).toContain(
			"reuse: the extension has sent no request in this session yet (or since /reload, or to this model), so it cannot say what the provider has cached.",
		);
		expect(result.before).toMatch(
			/next request: ~[\d,]+ tokens by pi's estimate \(chars\/4\)( of the messages)? · no calibrated count yet: no bill seen in this session/,
		);
		expect(result.before).toContain("last request: no bill seen in this session yet.");
		// The view's history is the last request and its answer: the request is its prefix.
		const sentLast = (JSON.parse(result.json) as unknown[]).length - 1;
		expect(result.after).toMatch(
			new RegExp(
				`reuse: the next request repeats the ${sentLast} messages the last one sent \\(~[\\d,]+ tokens, calibrated on 2 billed requests\\) as its prefix`,
			),
		);
		// The loopback provider bills a token per 4 bytes of the body: the bill shown is that of the last body.
		const billed = Math.ceil((bodies[1] as string).length / 4).toLocaleString("en-US");
		expect(result.after).toMatch(
			new RegExp(
				`last request \\(${sentLast} messages\\): billed ${billed} tokens \\(input \\+ cacheRead \\+ cacheWrite\\) · pi's estimate \\(chars/4\\) [\\d,]+ \\([+-][\\d.]+% from the bill\\) · calibrated [\\d,]+ \\([+-][\\d.]+% from the bill; calibrated on 1 billed request\\)`,
			),
		);
		expect(result.after).toMatch(
			/next request: ~[\d,]+ tokens by pi's estimate \(chars\/4\)( of the messages)? · ~[\d,]+ tokens, calibrated on 2 billed requests/,
		);
	}, 90_000);

	it("should say in /llm-context where the next request breaks the prefix and which filter breaks it, and start over for another model and in a new session", async () => {
		const flag = ["--convert-to-llm", `maxTokens=${MAX_TOKENS[line]},maxTokensStep=0`];
		const { result } = await run(line, [ROOT], flag, async (pi) => {
			for (let i = 0; i < 4; i++) await prompt(pi, PROMPT(i));
			const bang = await pi.request({ type: "bash", command: `echo ${"more output ".repeat(60)}` });
			if (bang.success !== true) throw new Error(`! failed: ${JSON.stringify(bang)}`);
			const broken = unfolded(await llmContext(pi));
			const model = await pi.request({ type: "set_model", provider: "fake", modelId: "other-model" });
			if (model.success !== true) throw new Error(`set_model failed: ${JSON.stringify(model)}`);
			const otherModel = unfolded(await llmContext(pi));
			const fresh = await pi.request({ type: "new_session" });
			if (fresh.success !== true) throw new Error(`new_session failed: ${JSON.stringify(fresh)}`);
			const newSession = unfolded(await llmContext(pi));
			return { broken, otherModel, newSession };
		});
		expect(result.broken).toMatch(
			/reuse: the next request repeats \d+ of the \d+ messages the last one sent \(~[\d,]+ tokens, calibrated on 4 billed requests\), then differs at #\d+ \("convert-to-llm:trim-to-tokens" changed it\): the rest \(~[\d,]+ tokens, calibrated on 4 billed requests\) goes as a cache write/,
		);
		expect(result.broken).toContain(`leave maxTokensStep out (a quarter of maxTokens, ${MAX_TOKENS[line] / 4})`);
		expect(result.otherModel).toContain(
			"reuse: the extension has sent no request in this session yet (or since /reload, or to this model)",
		);
		expect(result.otherModel).toContain(
			"no calibrated count (calibrated on fake/fake-model, not on fake/other-model)",
		);
		expect(result.newSession).toContain("reuse: the extension has sent no request in this session yet");
		expect(result.newSession).toContain("last request: no bill seen in this session yet.");
	}, 90_000);
});
