/**
 * The real pi-agent-core 1.6.0 `Agent` (`@earendil-works/pi-agent-core`), run offline on pi-ai
 * 1.6.0's faux provider, with convert-to-llm's built package (dist/, imported by name:
 * `convert-to-llm`, `/preset`, `/hooks`, as ESM, and as CJS in one block) as its `convertToLlm`: the
 * provider must receive the system prompt and the tools (pi 1.x sends them only as `system` messages
 * in what `convertToLlm` returns), exactly the context pi's own `convertToLlm` gives, whatever `this`
 * the loop calls it with; a faulty extension must not break the turn. The 0.73.1 ideas of
 * test/e2e/agent.test.ts (tool turns, blockImages, an async redactor, strict mode) are ported to 1.6.0.
 *
 * pi 1.x runs on Node >= 22.19 only, so the Agent runs in the pi 1.x child
 * (test/support/pi1/agent.mjs); it reports the context of every provider call, the messages the
 * loop asked to convert and pi's `convertToLlm` of exactly those (taken at call time), the errors
 * the registry reported and the agent's state; all checks are made here. The child's clock is
 * constant during a run, so a run with pi's converter (the control) and one with ours can be
 * compared whole, timestamps included.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PI1_START_TIMEOUT, type Pi1Child, startPi1 } from "../support/pi1/client.js";
import { firstDifference, same, show } from "../support/pi1/compare.js";

const SYSTEM_PROMPT = "You are a careful coding agent.";
const SECRET = "sk-live-4f9a2c7e1b3d";
const FAULTY = "faulty-extension";

type Block = { type: string; text?: string; [key: string]: unknown };
type Message = {
	role: string;
	content: string | Block[];
	toolsAdded?: { name: string; description: string; parameters: unknown }[];
	sections?: Record<string, string | null>;
	customType?: string;
	[key: string]: unknown;
};
interface ReportedError {
	name: string;
	code: string;
	plugin?: string;
	role?: string;
	index?: number;
	message: string;
	isConvertToLlmError: boolean;
}
interface AgentRun {
	contexts: Message[][];
	loopInputs: Message[][];
	piOutputs: Message[][];
	piBlockImagesOutputs: Message[][];
	ourOutputsAfter?: (Message[] | { threw: string })[];
	errors: ReportedError[];
	thisSeen: string[];
	callCount: number;
	state: {
		errorMessage?: string;
		systemPrompt: string;
		roles: string[];
		lastText?: string;
		lastStopReason?: string;
		messages: Message[];
	};
	history: Message[];
}
interface RunOptions {
	converter: "pi" | "registry.convert" | "registry.convertAsync";
	handOver?: string;
	record?: boolean;
	blockImages?: boolean;
	fault?: string;
	redactor?: boolean;
	strict?: boolean;
	dropSystem?: boolean;
	staleLoadout?: boolean;
	build?: "esm" | "cjs";
	replies?: "answer" | "tool turn";
	prompt?: string;
}

let pi: Pi1Child;
let faultKinds: string[] = [];
const runs = { agentRuns: 0, providerCalls: 0, comparedContexts: 0 };

beforeAll(async () => {
	pi = await startPi1();
	faultKinds = await pi.call<string[]>("agent.faultKinds");
}, PI1_START_TIMEOUT);

afterAll(async () => {
	await pi?.close();
	console.log(
		`[pi1 agent] ${runs.agentRuns} runs of the pi-agent-core 1.6.0 Agent (child on Node ${pi?.nodeVersion}), ${runs.providerCalls} provider calls, ${runs.comparedContexts} provider contexts compared with pi's convertToLlm`,
	);
});

const controls = new Map<string, Promise<AgentRun>>();

async function runAgent(options: RunOptions): Promise<AgentRun> {
	const result = await pi.call<AgentRun>("agent.run", options);
	runs.agentRuns++;
	runs.providerCalls += result.callCount;
	return result;
}

/** The run with pi-coding-agent 1.6.0's own `convertToLlm` for the same scenario (made once per scenario). */
function control(options: Pick<RunOptions, "replies" | "prompt" | "staleLoadout">): Promise<AgentRun> {
	const key = JSON.stringify(options);
	if (!controls.has(key)) controls.set(key, runAgent({ converter: "pi", ...options }));
	return controls.get(key) as Promise<AgentRun>;
}

/** Asserts two values are deep-equal and byte-identical as JSON, naming the first difference. */
function expectSame(ours: unknown, theirs: unknown, what: string): void {
	runs.comparedContexts++;
	const diff = firstDifference(ours, theirs);
	expect(
		diff,
		diff && `${what}: first difference at ${diff.path}: pi ${show(diff.pi, 600)}, ours ${show(diff.ours, 600)}`,
	).toBeUndefined();
	expect(same(ours, theirs)).toBe(true);
}

/** Each provider context equals pi's `convertToLlm` of what the loop asked to convert at that call. */
function expectPiContexts(run: AgentRun, expected = run.piOutputs): void {
	expect(run.contexts.length).toBeGreaterThan(0);
	expect(run.loopInputs).toHaveLength(run.contexts.length);
	run.contexts.forEach((context, k) => {
		expectSame(context, expected[k], `provider call ${k}`);
	});
}

/** The leading system message the provider must see: the prompt and the tool declarations. */
function expectSystemPromptAndTools(context: Message[] | undefined): void {
	const head = context?.[0];
	expect(head, `provider context starts with ${show(head, 300)}`).toMatchObject({
		role: "system",
		content: SYSTEM_PROMPT,
	});
	expect(head?.toolsAdded?.map((tool) => tool.name)).toEqual(["echo"]);
	expect(head?.toolsAdded?.[0]?.parameters).toEqual({
		type: "object",
		properties: { text: { type: "string" } },
		required: ["text"],
	});
	// The mid-conversation patch of the history is sent in place too.
	expect(context?.filter((m) => m.role === "system")).toHaveLength(2);
	expect(context?.find((m) => m.sections)?.sections).toEqual({
		"<repo-notes>": "<repo-notes>The parser lives in src/parse.ts.</repo-notes>",
		skills: null,
	});
}

describe("pi-agent-core 1.6.0 Agent with convertToLlm: registry.convert (built package)", () => {
	it("should send the provider the system prompt and the tools, exactly as pi's convertToLlm does", async () => {
		const ours = await runAgent({ converter: "registry.convert" });
		const theirs = await control({});

		expect(ours.state.errorMessage).toBeUndefined();
		expect(ours.state.lastText).toBe("The parser drops nested brackets.");
		expect(ours.contexts).toHaveLength(1);
		expectSystemPromptAndTools(theirs.contexts[0]);
		expectSystemPromptAndTools(ours.contexts[0]);
		expectPiContexts(ours);
		expectSame(ours.contexts, theirs.contexts, "contexts of the run with pi's convertToLlm");
		// The `!!` run stays out of the model's context; the agent's own history keeps every message.
		expect(JSON.stringify(ours.contexts)).not.toContain("hunter2");
		// A custom message with `excludeFromContext` is sent, as by every pi version (the field is not pi's).
		expect(JSON.stringify(theirs.contexts)).toContain("Scratch note an extension marked excludeFromContext.");
		expect(ours.state.systemPrompt).toBe(theirs.state.systemPrompt);
		expect(ours.state.systemPrompt.startsWith(SYSTEM_PROMPT)).toBe(true);
		expect(ours.state.messages.slice(1, ours.history.length + 1)).toStrictEqual(ours.history);
		expect(ours.errors).toEqual([]);
	});

	it("should convert the agent's own tool turn the same way on every provider call", async () => {
		const ours = await runAgent({ converter: "registry.convert", replies: "tool turn" });
		const theirs = await control({ replies: "tool turn" });

		expect(ours.state.lastText).toBe("The build is green.");
		expect(ours.contexts).toHaveLength(2);
		// Call 2 also sees the tool call and its result (with the screenshot).
		expect(ours.contexts[1]?.map((m) => m.role).slice(-2)).toEqual(["assistant", "toolResult"]);
		expect(JSON.stringify(ours.contexts[1]?.at(-1))).toContain('"type":"image"');
		for (const context of ours.contexts) expectSystemPromptAndTools(context);
		expectPiContexts(ours);
		expectSame(ours.contexts, theirs.contexts, "contexts of the run with pi's convertToLlm");
		expect(ours.ourOutputsAfter).toStrictEqual(ours.contexts);
	});

	it("should send the system message the loop inserts when the tools changed (declareToolChanges), as pi does", async () => {
		const ours = await runAgent({ converter: "registry.convert", staleLoadout: true, replies: "tool turn" });
		const theirs = await control({ staleLoadout: true, replies: "tool turn" });

		expect(ours.state.errorMessage).toBeUndefined();
		expectPiContexts(ours);
		expectSame(ours.contexts, theirs.contexts, "contexts of the run with pi's convertToLlm");
		const context = ours.contexts[0] as Message[];
		expect(context[0]).toMatchObject({ role: "system", content: SYSTEM_PROMPT, toolsAdded: [{ name: "grep" }] });
		const inserted = context.filter((m) => m.role === "system" && (m.toolsAdded?.length || m.toolsRemoved));
		expect(inserted.map((m) => [m.toolsAdded?.map((t) => t.name), m.toolsRemoved])).toEqual([
			[["grep"], undefined],
			[["echo"], [{ name: "grep" }]],
		]);
	});

	it("should match pi's convertToLlmWithBlockImages (from a real createAgentSession) when the preset uses blockImages", async () => {
		const ours = await runAgent({ converter: "registry.convert", blockImages: true, replies: "tool turn" });

		expectPiContexts(ours, ours.piBlockImagesOutputs);
		const sent = JSON.stringify(ours.contexts);
		expect(sent).not.toContain('"type":"image"');
		expect(sent).toContain("Image reading is disabled.");
		expectSystemPromptAndTools(ours.contexts[0]);
	});
});

describe("pi-agent-core 1.6.0 Agent with the CJS build (require('convert-to-llm/preset'))", () => {
	it.each(["registry.convert", "registry.convertAsync"] as const)(
		"should send the provider exactly what pi's convertToLlm gives through %s",
		async (converter) => {
			const ours = await runAgent({ converter, build: "cjs", replies: "tool turn" });
			expect(ours.state.errorMessage).toBeUndefined();
			expectPiContexts(ours);
			expectSame(ours.contexts, (await control({ replies: "tool turn" })).contexts, "contexts of the control run");
			expectSystemPromptAndTools(ours.contexts[0]);
		},
	);
});

describe("the Agent harness", () => {
	it("should see it when the converted context lacks the system messages (the checks are not vacuous)", async () => {
		const ours = await runAgent({ converter: "registry.convert", dropSystem: true });
		expect(ours.contexts[0]?.some((m) => m.role === "system")).toBe(false);
		expect(() => expectSystemPromptAndTools(ours.contexts[0])).toThrow();
		expect(same(ours.contexts, (await control({})).contexts)).toBe(false);
	});
});

describe("pi-agent-core 1.6.0 Agent with convertToLlm: registry.convertAsync (built package)", () => {
	it("should send the provider exactly what pi's convertToLlm gives", async () => {
		const ours = await runAgent({ converter: "registry.convertAsync", replies: "tool turn" });
		expectPiContexts(ours);
		expectSame(ours.contexts, (await control({ replies: "tool turn" })).contexts, "contexts of the control run");
	});

	it("should send the provider the output of an async afterConvert redactor", async () => {
		const prompt = `Is ${SECRET} still valid?`;
		const ours = await runAgent({ converter: "registry.convertAsync", redactor: true, prompt });

		expect(ours.state.errorMessage).toBeUndefined();
		expectPiContexts(
			ours,
			ours.piOutputs.map((output) => output.map(redact)),
		);
		const sent = JSON.stringify(ours.contexts);
		expect(sent).not.toContain(SECRET);
		expect(sent).toContain("[redacted]");
		expectSystemPromptAndTools(ours.contexts[0]);
	});
});

describe("this is irrelevant: pi-agent-core calls config.convertToLlm(messages) with the loop config as this", () => {
	const handOvers = ["as is", "bound to another object", "as a method that passes the loop config on as this"];
	const table = handOvers.flatMap((handOver) =>
		(["registry.convert", "registry.convertAsync"] as const).map((converter) => ({ converter, handOver })),
	);

	it.each(table)("should send pi's context with $converter handed over $handOver", async ({ converter, handOver }) => {
		const ours = await runAgent({ converter, handOver, record: false, replies: "tool turn" });
		expect(ours.state.errorMessage).toBeUndefined();
		expect(ours.contexts).toHaveLength(2);
		expectSame(ours.contexts, (await control({ replies: "tool turn" })).contexts, "contexts of the control run");
		if (handOver.startsWith("as a method")) expect(ours.thisSeen).toEqual(["loop config", "loop config"]);
	});
});

/** Every text the model would see, with the secret replaced (as the child's redactor does). */
function redact(message: Message): Message {
	if (message.role === "assistant") return message;
	const text = (value: string): string => value.replaceAll(SECRET, "[redacted]");
	if (typeof message.content === "string") return { ...message, content: text(message.content) };
	return {
		...message,
		content: message.content.map((block) =>
			block.type === "text" ? { ...block, text: text(block.text as string) } : block,
		),
	};
}

/** Where in the loop's input the messages a fault hits are (an excluded `!!` run reaches no converter). */
function hitIndices(input: Message[], fault: string): number[] {
	const hit = (m: Message): boolean =>
		fault === "throws"
			? m.role === "bashExecution" && m.excludeFromContext !== true
			: fault === "returns an AgentMessage instead of a Message"
				? m.role === "branchSummary"
				: fault === "throws for its own customType"
					? m.role === "custom" && m.customType === "notes"
					: false;
	return input.flatMap((m, i) => (hit(m) ? [i] : []));
}

describe("a faulty extension in the pi-agent-core 1.6.0 loop", () => {
	it("should have a table of faults", () => {
		expect(faultKinds.length).toBeGreaterThanOrEqual(4);
	});

	it.each([
		"throws",
		"returns an AgentMessage instead of a Message",
		"throws for its own customType",
		"has an afterConvert tap that throws",
	])("should not break the turn when the extension %s", async (fault) => {
		expect(faultKinds).toContain(fault);
		const ours = await runAgent({ converter: "registry.convert", fault });

		// The turn completed normally…
		expect(ours.state.errorMessage).toBeUndefined();
		expect(ours.state.lastText).toBe("The parser drops nested brackets.");
		// …the faulty part was skipped (fell back to the built-in converter), so the model saw pi's conversion…
		expectPiContexts(ours);
		expectSame(ours.contexts, (await control({})).contexts, "contexts of the control run");
		expectSystemPromptAndTools(ours.contexts[0]);
		// …and each failure was reported once, naming the plugin, the role and the message.
		const expected = hitIndices(ours.loopInputs[0] as Message[], fault);
		expect(ours.errors.length).toBeGreaterThan(0);
		// As test/e2e/agent.test.ts expects: every message of the faulty converter's role is reported once,
		// except the `!!` bash run, which is excluded before any converter runs.
		if (expected.length > 0) {
			expect(
				ours.errors.map((e) => e.index),
				"history indices of the reported failures",
			).toEqual(expected);
		} else expect(ours.errors).toHaveLength(1);
		for (const error of ours.errors) {
			expect(error.isConvertToLlmError).toBe(true);
			expect(error.plugin).toBe(FAULTY);
			expect(error.message).toContain(FAULTY);
			if (expected.length > 0)
				expect(error.role).toBe((ours.loopInputs[0] as Message[])[error.index as number]?.role);
		}
	});

	it("should fail the turn before any provider call in strict mode (why lenient is the default)", async () => {
		const ours = await runAgent({ converter: "registry.convert", fault: "throws", strict: true });

		expect(ours.contexts).toHaveLength(0);
		expect(ours.callCount).toBe(0);
		expect(ours.state.errorMessage).toContain(FAULTY);
		expect(ours.state.lastStopReason).toBe("error");
		expect(ours.state.roles.at(-1)).toBe("assistant");
	});
});
