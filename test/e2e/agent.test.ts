/**
 * The real pi-agent-core `Agent`, run offline on pi-ai's faux provider: what the provider receives is
 * exactly what the registry converts, a faulty extension does not break the turn, and the default
 * preset matches pi-coding-agent 0.73.1 inside a live agent loop.
 */
import { Agent, type AgentMessage, type AgentOptions, type AgentTool } from "@mariozechner/pi-agent-core";
import {
	type AssistantMessage,
	type Context,
	type FauxProviderRegistration,
	fauxAssistantMessage,
	fauxToolCall,
	type ImageContent,
	type Message,
	registerFauxProvider,
	Type,
	type UserMessage,
} from "@mariozechner/pi-ai";
import { convertToLlm as upstreamConvertToLlm } from "@mariozechner/pi-coding-agent";
import {
	AsyncHookInSyncConvertError,
	ConversionError,
	ConvertToLlmError,
	createBranchSummaryMessage,
	createCompactionSummaryMessage,
	createCustomMessage,
	type Registry,
} from "convert-to-llm/pi-0.73";
import { blockImages } from "convert-to-llm/pi-0.73/hooks";
import { createDefaultRegistry } from "convert-to-llm/pi-0.73/preset";
import { afterEach, describe, expect, it } from "vitest";
import { createUpstreamBlockImages } from "../support/upstream.js";

const T0 = 1_700_000_000_000;
const SYSTEM_PROMPT = "You are a careful coding agent.";
const SECRET = "sk-live-4f9a2c7e1b3d";
const IMAGE: ImageContent = { type: "image", data: "iVBORw0KGgoAAAANSUhEUg==", mimeType: "image/png" };

/** A pi history with every app role: two bash runs (one `!!`, excluded), custom, both summaries, images. */
function createHistory(): AgentMessage[] {
	return [
		createCompactionSummaryMessage("We set up the repo and wrote the parser.", 48_000, "2025-01-31T12:00:00.000Z"),
		{ role: "user", content: [{ type: "text", text: "Here is the screenshot:" }, IMAGE], timestamp: T0 + 1 },
		fauxAssistantMessage("I see one failing test.", { timestamp: T0 + 2 }),
		{
			role: "bashExecution",
			command: "npm test",
			output: `1 failing\nAPI_KEY=${SECRET}`,
			exitCode: 1,
			cancelled: false,
			truncated: true,
			fullOutputPath: "/tmp/npm-test.log",
			timestamp: T0 + 3,
		},
		{
			role: "bashExecution",
			command: "cat ~/.netrc",
			output: "machine example.com password hunter2",
			exitCode: 0,
			cancelled: false,
			truncated: false,
			timestamp: T0 + 4,
			excludeFromContext: true,
		},
		createCustomMessage("notes", "Remember: CI runs on Node 20.", true, { pinned: true }, T0 + 5),
		createCustomMessage("screens", [{ type: "text", text: "Latest screen:" }, IMAGE], false, undefined, T0 + 6),
		createBranchSummaryMessage("Tried a regex parser; it could not handle nesting.", "a1b2c3d4", T0 + 7),
	];
}

// The `!!` run (index 4) is excluded before any converter runs, so only index 3 reaches the faulty one.
const BASH_INDICES = [3];

function userPrompt(text: string, timestamp = T0 + 10): UserMessage {
	return { role: "user", content: text, timestamp };
}

const screenshotTool: AgentTool = {
	name: "screenshot",
	label: "Screenshot",
	description: "Takes a screenshot of the app.",
	parameters: Type.Object({}),
	execute: async () => ({ content: [{ type: "text", text: "Screenshot taken." }, IMAGE], details: {} }),
};

let faux: FauxProviderRegistration | undefined;

afterEach(() => {
	faux?.unregister();
	faux = undefined;
});

interface AgentRun {
	agent: Agent;
	/** The context each provider call received, in call order (messages copied at call time). */
	contexts: Context[];
}

/** Runs one prompt through a real `Agent` whose provider is the faux one, answering with `replies` in turn. */
async function runAgent(options: {
	convertToLlm: NonNullable<AgentOptions["convertToLlm"]>;
	history: AgentMessage[];
	prompt: AgentMessage;
	replies: AssistantMessage[];
	tools?: AgentTool[];
}): Promise<AgentRun> {
	faux = registerFauxProvider();
	const contexts: Context[] = [];
	faux.setResponses(
		options.replies.map((reply) => (context: Context) => {
			contexts.push({ ...context, messages: [...context.messages] });
			return reply;
		}),
	);
	const agent = new Agent({
		initialState: {
			systemPrompt: SYSTEM_PROMPT,
			model: faux.getModel(),
			messages: options.history,
			tools: options.tools ?? [],
		},
		convertToLlm: options.convertToLlm,
	});
	await agent.prompt(options.prompt);
	return { agent, contexts };
}

function lastText(agent: Agent): string | undefined {
	const last = agent.state.messages.at(-1);
	if (last?.role !== "assistant") return undefined;
	const block = last.content[0];
	return block?.type === "text" ? block.text : undefined;
}

const redactText = (text: string): string => text.replaceAll(SECRET, "[redacted]");

/** A post-conversion redactor: every text the model would see, with the secret replaced. */
function redact(message: Message): Message {
	if (message.role === "assistant") return message;
	if (message.role === "user" && typeof message.content === "string") {
		return { ...message, content: redactText(message.content) };
	}
	if (typeof message.content === "string") return message;
	const content = message.content.map((block) =>
		block.type === "text" ? { ...block, text: redactText(block.text) } : block,
	);
	return { ...message, content } as Message;
}

describe("Agent with convertToLlm: registry.convert", () => {
	it("should send the provider exactly registry.convert(history + prompt), as upstream convertToLlm does", async () => {
		const registry = createDefaultRegistry();
		const history = createHistory();
		const prompt = userPrompt("Why does the test fail?");

		const { agent, contexts } = await runAgent({
			convertToLlm: registry.convert,
			history,
			prompt,
			replies: [fauxAssistantMessage("The parser drops nested brackets.")],
		});

		expect(agent.state.errorMessage).toBeUndefined();
		expect(lastText(agent)).toBe("The parser drops nested brackets.");
		expect(contexts).toHaveLength(1);
		const sent = contexts[0]!;
		expect(sent.systemPrompt).toBe(SYSTEM_PROMPT);
		expect(sent.messages).toStrictEqual(registry.convert([...history, prompt]));
		expect(sent.messages).toStrictEqual(upstreamConvertToLlm([...history, prompt]));
		// The `!!` run stays out of the model's context; the agent's own history keeps every app message.
		expect(JSON.stringify(sent.messages)).not.toContain("hunter2");
		expect(sent.messages.map((m) => m.role)).toEqual([
			"user",
			"user",
			"assistant",
			"user",
			"user",
			"user",
			"user",
			"user",
		]);
		expect(agent.state.messages.slice(0, history.length)).toStrictEqual(history);
	});

	it("should convert the agent's own tool turn the same way on every provider call", async () => {
		const registry = createDefaultRegistry();
		const history = createHistory();
		const prompt = userPrompt("Take a screenshot and describe it.");

		const { agent, contexts } = await runAgent({
			convertToLlm: registry.convert,
			history,
			prompt,
			tools: [screenshotTool],
			replies: [
				fauxAssistantMessage(fauxToolCall("screenshot", {}, { id: "call-1" }), { stopReason: "toolUse" }),
				fauxAssistantMessage("The build is green."),
			],
		});

		expect(lastText(agent)).toBe("The build is green.");
		expect(contexts).toHaveLength(2);
		// Call 1 sees history + prompt; call 2 also sees the tool call and its result (with the image).
		const seen = agent.state.messages;
		const firstInput = seen.slice(0, history.length + 1);
		const secondInput = seen.slice(0, history.length + 3);
		expect(secondInput.at(-1)?.role).toBe("toolResult");
		expect(contexts[0]!.messages).toStrictEqual(registry.convert(firstInput));
		expect(contexts[1]!.messages).toStrictEqual(registry.convert(secondInput));
		expect(contexts[1]!.messages).toStrictEqual(upstreamConvertToLlm(secondInput));
	});

	it("should match upstream's blockImages wrapper when the preset uses blockImages", async () => {
		const registry = createDefaultRegistry().use(blockImages({ enabled: true }));
		const upstream = await createUpstreamBlockImages(true);
		try {
			const history = createHistory();
			const prompt = userPrompt("What is on the screen?");

			const { contexts } = await runAgent({
				convertToLlm: registry.convert,
				history,
				prompt,
				replies: [fauxAssistantMessage("A terminal.")],
			});

			const sent = contexts[0]!.messages;
			expect(sent).toStrictEqual(registry.convert([...history, prompt]));
			expect(sent).toStrictEqual(upstream.convert([...history, prompt] as never));
			expect(JSON.stringify(sent)).not.toContain('"type":"image"');
			expect(JSON.stringify(sent)).toContain("Image reading is disabled.");
		} finally {
			upstream.dispose();
		}
	});
});

describe("Agent with convertToLlm: registry.convertAsync", () => {
	it("should send the provider the output of the async afterConvert filter", async () => {
		const registry = createDefaultRegistry();
		const lookups: number[] = [];
		registry.hooks.afterConvertAsync.tapPromise("async-redactor", async (messages) => {
			// Stands in for an async secret scanner (a vault look-up, a remote DLP call).
			await new Promise<void>((resolve) => setImmediate(resolve));
			lookups.push(messages.length);
			return messages.map(redact);
		});
		const history = createHistory();
		const prompt = userPrompt(`Is ${SECRET} still valid?`);

		const { agent, contexts } = await runAgent({
			convertToLlm: registry.convertAsync,
			history,
			prompt,
			replies: [fauxAssistantMessage("Rotate it.")],
		});

		expect(agent.state.errorMessage).toBeUndefined();
		expect(lastText(agent)).toBe("Rotate it.");
		const sent = contexts[0]!.messages;
		expect(sent).toStrictEqual(await registry.convertAsync([...history, prompt]));
		expect(sent).toStrictEqual(upstreamConvertToLlm([...history, prompt]).map(redact));
		expect(JSON.stringify(sent)).not.toContain(SECRET);
		expect(JSON.stringify(sent)).toContain("[redacted]");
		expect(lookups[0]).toBe(sent.length);
		// The sync path refuses to skip the redactor.
		expect(() => registry.convert([...history, prompt])).toThrow(AsyncHookInSyncConvertError);
	});
});

const FAULTY = "faulty-extension";

/** Each kind of fault, the plugin that has it, and the history indices it must be reported for. */
const faults: { kind: string; install: (registry: Registry) => void; role: string; indices: number[] }[] = [
	{
		kind: "throws",
		install: (registry) =>
			registry.register(
				"bashExecution",
				() => {
					throw new Error("boom");
				},
				{ name: FAULTY, override: true },
			),
		role: "bashExecution",
		indices: BASH_INDICES,
	},
	{
		kind: "returns an AgentMessage instead of a Message",
		install: (registry) =>
			registry.register("branchSummary", (message) => message as unknown as Message, {
				name: FAULTY,
				override: true,
			}),
		role: "branchSummary",
		indices: [7],
	},
	{
		kind: "throws for its own customType",
		install: (registry) =>
			registry.register(
				"custom",
				() => {
					throw new TypeError("notes store is offline");
				},
				{ name: FAULTY, customType: "notes" },
			),
		role: "custom",
		indices: [5],
	},
];

describe("a faulty extension converter in the agent loop", () => {
	it.each(faults)("should not break the turn when the converter $kind", async ({ install, role, indices }) => {
		const registry = createDefaultRegistry();
		install(registry);
		const errors: ConvertToLlmError[] = [];
		registry.hooks.error.tap("collect", (error) => {
			errors.push(error);
		});
		const history = createHistory();
		const prompt = userPrompt("Carry on.");

		const { agent, contexts } = await runAgent({
			convertToLlm: registry.convert,
			history,
			prompt,
			replies: [fauxAssistantMessage("Carrying on.")],
		});

		// The turn completed normally…
		expect(agent.state.errorMessage).toBeUndefined();
		expect(lastText(agent)).toBe("Carrying on.");
		// …the faulty converter fell back to the built-in one, so the model saw pi's conversion…
		expect(contexts[0]!.messages).toStrictEqual(upstreamConvertToLlm([...history, prompt]));
		// …and each failure was reported once, naming the plugin, the role and the message.
		expect(errors.map((e) => e.index)).toEqual(indices);
		for (const error of errors) {
			expect(error).toBeInstanceOf(ConversionError);
			expect(error).toBeInstanceOf(ConvertToLlmError);
			expect(error.plugin).toBe(FAULTY);
			expect(error.role).toBe(role);
			expect(error.message).toContain(FAULTY);
		}
	});

	it("should fail the turn before any provider call in strict mode (why lenient is the default)", async () => {
		const registry = createDefaultRegistry({ strict: true });
		const fault = faults[0]!;
		fault.install(registry);

		const { agent, contexts } = await runAgent({
			convertToLlm: registry.convert,
			history: createHistory(),
			prompt: userPrompt("Carry on."),
			replies: [fauxAssistantMessage("never sent")],
		});

		expect(contexts).toHaveLength(0);
		expect(faux?.state.callCount).toBe(0);
		expect(agent.state.errorMessage).toContain(FAULTY);
		expect(agent.state.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "error" });
	});
});
