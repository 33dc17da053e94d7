/**
 * `/llm-context` before the first prompt of a run, in the real pi CLI of both lines (RPC mode, the
 * loopback provider): what it shows of the system prompt and tools is what the next request body
 * carries. pi 1.6.0 adds a system message before the prompt (all of the prompt and tools for a
 * session that has none yet; what changed, such as a new AGENTS.md, for a resumed one); pi 0.73.1
 * sends its prompt and tools beside the messages. pi-ai 1.6.0's own replay (`getCurrentSystemPrompt`,
 * `getCurrentTools`) is the oracle for what a transcript sends.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ChatBody, type FakeProvider, startFakeProvider } from "../support/pi-cli/fake-provider.js";
import { piAiReplay } from "../support/pi-cli/pi-ai-replay.js";
import { llmContext, piArgs, prepare, prompt, ROOT, script, withPi } from "../support/pi-cli/scenario.js";
import { SECRETS } from "../support/secret-corpus.js";

let fake: FakeProvider;
let base: string;

beforeAll(async () => {
	fake = await startFakeProvider(script);
	base = mkdtempSync(join(tmpdir(), "convert-to-llm-llm-context-system-"));
});

afterAll(async () => {
	await fake?.close();
	if (base !== undefined) rmSync(base, { recursive: true, force: true });
});

/** A line of the project's AGENTS.md, which pi puts in its system prompt. */
const AGENTS_NOTE = "Answer in haiku, and never touch the migrations folder.";

/** The system prompt and tool declarations of a request body (openai-completions: a leading system message, `tools`). */
function sent(raw: string | undefined): { prompt: unknown; tools: unknown[] } {
	const body = JSON.parse(raw ?? "{}") as Omit<ChatBody, "tools"> & {
		tools?: { function: Record<string, unknown> }[];
	};
	const head = body.messages[0];
	return {
		prompt: head?.role === "system" ? head.content : undefined,
		tools: (body.tools ?? []).map(({ function: { name, description, parameters } }) => ({
			name,
			description,
			parameters,
		})),
	};
}

/** A tool declaration without its `constrainedSampling`, which pi's extension API does not give. */
const withoutSampling = (tool: object): object => {
	const { constrainedSampling: _, ...rest } = tool as { constrainedSampling?: unknown };
	return rest;
};

/** The system messages of a session file, in order. */
function sessionSystemMessages(session: string): Record<string, unknown>[] {
	const messages: Record<string, unknown>[] = [];
	for (const line of readFileSync(session, "utf8").split("\n")) {
		if (line.trim() === "") continue;
		const entry = JSON.parse(line) as { type?: string; message?: Record<string, unknown> };
		if (entry.type === "message" && entry.message?.role === "system") messages.push(entry.message);
	}
	return messages;
}

describe("/llm-context before the first prompt in pi 1.6.0 (RPC mode)", () => {
	it.each([
		["a session pi 1.6.0 wrote before the project had an AGENTS.md", true],
		["a session with no system message yet", false],
	])(
		"should show the system prompt and tools the next request sends, AGENTS.md included, for %s",
		async (_name, resumed) => {
			const { dirs, session } = prepare(join(base, `pi1-${resumed}`), fake);
			if (resumed) {
				await withPi({ dirs, args: piArgs(session, [ROOT]), line: "1.6.0" }, (pi) => prompt(pi, "First."));
				expect(sessionSystemMessages(session)).toHaveLength(1);
			}
			writeFileSync(join(dirs.cwd, "AGENTS.md"), `# Notes\n${AGENTS_NOTE}\n`);
			fake.bodies.splice(0);
			const before = sessionSystemMessages(session).length;
			const { result } = await withPi({ dirs, args: piArgs(session, [ROOT]), line: "1.6.0" }, async (pi) => {
				const json = await llmContext(pi, "--json");
				const text = await llmContext(pi);
				await prompt(pi, "And now?");
				return { json, text };
			});
			const bodies = fake.bodies.splice(0);
			expect(bodies).toHaveLength(1);
			const shown = JSON.parse(result.json) as Record<string, unknown>[];
			// What pi-ai makes of the messages /llm-context showed is what the request carried.
			const replayed = piAiReplay(shown);
			const request = sent(bodies[0]);
			expect(typeof request.prompt).toBe("string");
			expect(replayed.prompt).toContain(AGENTS_NOTE);
			expect(replayed.prompt === request.prompt, "the prompt /llm-context showed is the one sent").toBe(true);
			expect(replayed.tools.map(withoutSampling)).toEqual(request.tools);
			// The message it showed is the one pi wrote at the prompt: the same sections and tools.
			const written = sessionSystemMessages(session).slice(before);
			expect(written).toHaveLength(1);
			const pending = shown.filter((message) => message.role === "system").at(-1);
			const { timestamp: _a, ...expected } = written[0] as Record<string, unknown>;
			const { timestamp: _b, ...actual } = pending as Record<string, unknown>;
			// pi gives extensions no tool's constrainedSampling: a tool the transcript declares already keeps its own.
			if (resumed) expect(actual).toEqual(expected);
			else
				expect(actual).toEqual({ ...expected, toolsAdded: (expected.toolsAdded as object[]).map(withoutSampling) });
			expect(result.text).toContain("← system (at the next prompt) · system update");
		},
		120_000,
	);
});

describe("/llm-context before the first prompt in pi 0.73.1 (RPC mode)", () => {
	const slack = SECRETS.find((s) => s.kind === "slack-bot-token") as (typeof SECRETS)[number];

	it.each([
		["as it is", [], AGENTS_NOTE],
		["redacted, with redactSecrets on", ["--convert-to-llm", "redactSecrets"], `Deploy note: ${slack.text}`],
	])(
		"should show the system prompt and tools it sends beside the messages, %s, of the size the request carries",
		async (_name, flags, note) => {
			const { dirs, session } = prepare(join(base, `pi0-${flags.length}`), fake);
			writeFileSync(join(dirs.cwd, "AGENTS.md"), `# Notes\n${note}\n`);
			fake.bodies.splice(0);
			const { result } = await withPi({ dirs, args: piArgs(session, [ROOT], flags), line: "0.73.1" }, async (pi) => {
				const text = await llmContext(pi);
				await prompt(pi, "And now?");
				return text;
			});
			const bodies = fake.bodies.splice(0);
			expect(bodies).toHaveLength(1);
			const request = sent(bodies[0]);
			expect(typeof request.prompt).toBe("string");
			const prompt0731 = request.prompt as string;
			expect(prompt0731).toContain(note.slice(0, 12));
			expect(prompt0731).not.toContain(slack.value);
			const names = request.tools.map((tool) => (tool as { name: string }).name).join(", ");
			expect(result).toContain("── The system prompt and tools, which pi 0.73.1 sends beside the messages");
			expect(result).toContain(
				`#0 system · system prompt · ${prompt0731.length.toLocaleString("en-US")} chars · tools: ${names}`,
			);
		},
		120_000,
	);
});
