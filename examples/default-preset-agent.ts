/**
 * Demonstrates convert-to-llm on pi 1.x (`@earendil-works/*`): the default preset, typed through
 * `convert-to-llm/preset`, as the `convertToLlm` of a real pi-agent-core 1.x `Agent`, with
 * pi-ai's faux provider standing in for a model (offline, no API key). Since pi 0.86 the system prompt
 * and the tool list are `system` messages in the history, and the model gets only what `convertToLlm`
 * returns: the example checks that the provider received the system prompt and the tool, exactly as
 * with pi-coding-agent's own `convertToLlm`.
 *
 * Needs Node >= 22.19 (pi 1.x's own requirement). Run: npm run build && npx tsx examples/default-preset-agent.ts
 * (`npm run examples` runs every example on the Node that scripts/pi-node.mjs provides).
 */
import assert from "node:assert/strict";
import { Agent, type AgentMessage, type AgentTool } from "@earendil-works/pi-agent-core";
import {
	createModels,
	fauxAssistantMessage,
	fauxProvider,
	fauxToolCall,
	getCurrentSystemPrompt,
	getCurrentTools,
	type Message,
	type TranscriptContext,
} from "@earendil-works/pi-ai";
import { convertToLlm as piConvertToLlm } from "@earendil-works/pi-coding-agent";
import { createBranchSummaryMessage, createCustomMessage } from "convert-to-llm";
import { createDefaultRegistry } from "convert-to-llm/preset";

const echo: AgentTool = {
	name: "echo",
	label: "Echo",
	description: "Repeats its text",
	parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
	execute: async (_id, params) => ({
		content: [{ type: "text", text: String((params as { text?: unknown }).text) }],
		details: undefined,
	}),
} as AgentTool;

const history: AgentMessage[] = [
	{ role: "compactionSummary", summary: "We set up the repo.", tokensBefore: 48_000, timestamp: 1 },
	createBranchSummaryMessage("Tried a regex parser; it could not handle nesting.", "a1b2c3d4", 2),
	{
		role: "bashExecution",
		command: "npm test",
		output: "1 failing",
		exitCode: 1,
		cancelled: false,
		truncated: false,
		timestamp: 3,
	},
	createCustomMessage("notes", "CI runs on Node 22.", true, undefined, 4),
];

/** Runs one turn ("Fix the parser.") and returns every context the provider received. */
async function run(convertToLlm: (messages: AgentMessage[]) => Message[] | Promise<Message[]>) {
	const faux = fauxProvider();
	const models = createModels();
	models.setProvider(faux.provider);
	const received: TranscriptContext[] = [];
	const record = (answer: Message & { role: "assistant" }) => (context: TranscriptContext) => {
		received.push(structuredClone(context));
		return answer;
	};
	faux.setResponses([
		record(fauxAssistantMessage(fauxToolCall("echo", { text: "parser fixed" }), { stopReason: "toolUse" })),
		record(fauxAssistantMessage("Done: the parser handles nesting.")),
	]);
	const agent = new Agent({
		initialState: {
			systemPrompt: "You are a careful coding agent.",
			model: faux.getModel(),
			tools: [echo],
			messages: structuredClone(history),
		},
		convertToLlm,
		streamFn: models.streamSimple.bind(models),
	});
	await agent.prompt("Fix the parser.");
	return received;
}

const registry = createDefaultRegistry();
const problems: string[] = [];
registry.hooks.error.tap("example:log", (error) => {
	problems.push(error.message);
});

const ours = await run(registry.convert);
const theirs = await run(piConvertToLlm);

for (const [turn, context] of ours.entries()) {
	const roles = context.messages.map((m) => m.role).join(", ");
	const tools = getCurrentTools(context.messages).map((tool) => tool.name);
	console.log(`request ${turn + 1}: ${roles}`);
	console.log(
		`  system prompt: ${JSON.stringify(getCurrentSystemPrompt(context.messages))}; tools: ${tools.join(", ")}`,
	);
}

assert.equal(ours.length, 2, "the agent made two requests (tool call, then answer)");
for (const context of ours) {
	assert.equal(getCurrentSystemPrompt(context.messages), "You are a careful coding agent.");
	assert.deepEqual(
		getCurrentTools(context.messages).map((tool) => tool.name),
		["echo"],
	);
}
// Equal to pi's requests but for what differs between any two runs (clock, generated ids, durations).
const RUN_SPECIFIC = new Set(["timestamp", "id", "toolCallId", "api", "durationMs"]);
const stable = (contexts: TranscriptContext[]) =>
	JSON.stringify(contexts, (key, value) => (RUN_SPECIFIC.has(key) ? undefined : value));
assert.equal(stable(ours), stable(theirs), "the same requests as with pi-coding-agent's convertToLlm");
assert.deepEqual(problems, []);
console.log("OK: the system prompt and the tools reached the provider, as with pi's own convertToLlm.");
