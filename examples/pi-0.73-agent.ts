/**
 * Demonstrates the default preset plugged into a real pi-agent-core `Agent`:
 * `createDefaultRegistry().use(blockImages({ enabled: () => settings.blockImages }))` as the agent's
 * `convertToLlm`, with pi-ai's faux provider standing in for a model (offline, no API key). It prints
 * what the model received on each turn: the app roles converted as pi does, the `!!` command left
 * out, and images blocked or not as the live setting says.
 *
 * Run: npm run build && npx tsx examples/pi-0.73-agent.ts
 */
import assert from "node:assert/strict";
import { Agent, type AgentMessage } from "@mariozechner/pi-agent-core";
import { type Context, fauxAssistantMessage, type Message, registerFauxProvider } from "@mariozechner/pi-ai";
import {
	type ConvertToLlmError,
	createBranchSummaryMessage,
	createCompactionSummaryMessage,
	createCustomMessage,
} from "convert-to-llm/pi-0.73";
import { blockImages } from "convert-to-llm/pi-0.73/hooks";
import { createDefaultRegistry } from "convert-to-llm/pi-0.73/preset";

/** A live setting, as pi's settings manager has: read on every conversion. */
const settings = { blockImages: true };

const registry = createDefaultRegistry().use(blockImages({ enabled: () => settings.blockImages }));
const problems: ConvertToLlmError[] = [];
registry.hooks.error.tap("example:log", (error) => {
	problems.push(error);
});

const history: AgentMessage[] = [
	createCompactionSummaryMessage("We set up the repo and wrote the parser.", 48_000, "2025-01-31T12:00:00.000Z"),
	createBranchSummaryMessage("Tried a regex parser; it could not handle nesting.", "a1b2c3d4", "2025-01-31T12:05:00Z"),
	{
		role: "bashExecution",
		command: "npm test",
		output: "1 failing: parses [[a]]",
		exitCode: 1,
		cancelled: false,
		truncated: false,
		timestamp: Date.parse("2025-01-31T12:06:00Z"),
	},
	{
		role: "bashExecution",
		command: "cat ~/.netrc",
		output: "machine example.com password hunter2",
		exitCode: 0,
		cancelled: false,
		truncated: false,
		excludeFromContext: true, // run with `!!`: for the user's eyes only
		timestamp: Date.parse("2025-01-31T12:07:00Z"),
	},
	createCustomMessage("notes", "CI runs on Node 20.", true, undefined, "2025-01-31T12:08:00Z"),
];

const screenshot = { type: "image" as const, data: "iVBORw0KGgoAAAANSUhEUg==", mimeType: "image/png" };

const faux = registerFauxProvider();
const received: Context[] = [];
const reply = (text: string) => (context: Context) => {
	received.push({ ...context, messages: [...context.messages] });
	return fauxAssistantMessage(text);
};
faux.setResponses([reply("The parser drops nested brackets."), reply("Now I can see the screenshot.")]);

const agent = new Agent({
	initialState: { systemPrompt: "You are a careful coding agent.", model: faux.getModel(), messages: history },
	convertToLlm: registry.convert,
});

const describe = (m: Message): string => {
	const blocks = typeof m.content === "string" ? [{ type: "text" as const, text: m.content }] : m.content;
	const text = blocks
		.map((b) => (b.type === "text" ? b.text : b.type === "image" ? "[image]" : `[${b.type}]`))
		.join(" | ");
	return `${m.role}: ${text.length > 110 ? `${text.slice(0, 107)}...` : text}`.replaceAll("\n", "\\n");
};

try {
	await agent.prompt({
		role: "user",
		content: [{ type: "text", text: "Why does the test fail? Screenshot attached." }, screenshot],
		timestamp: Date.parse("2025-01-31T12:09:00Z"),
	});
	const afterFirst = agent.state.messages.length;
	settings.blockImages = false; // the user turns image reading on mid-session
	await agent.prompt({ role: "user", content: "Look again.", timestamp: Date.parse("2025-01-31T12:10:00Z") });

	received.forEach((context, turn) => {
		console.log(`--- turn ${turn + 1}: the model received ${context.messages.length} messages`);
		for (const m of context.messages) console.log(`  ${describe(m)}`);
	});
	console.log(`--- the agent's history keeps all ${agent.state.messages.length} messages, app roles included`);

	// Running this file is a check: it throws if the model saw anything but the registry's conversion.
	const [first, second] = received;
	assert.ok(first && second, "the provider was called once per prompt");
	const withImagesBlocked = createDefaultRegistry().use(blockImages({ enabled: true }));
	const plainPreset = createDefaultRegistry();
	const firstInput = agent.state.messages.slice(0, afterFirst - 1); // history + prompt 1
	const secondInput = agent.state.messages.slice(0, -1); // … + reply 1 + prompt 2
	assert.deepEqual(first.messages, withImagesBlocked.convert(firstInput), "turn 1: the preset with images blocked");
	assert.deepEqual(second.messages, plainPreset.convert(secondInput), "turn 2: the preset with images allowed");
	assert.ok(!JSON.stringify(received).includes("hunter2"), "the !! command never reached the model");
	assert.ok(!JSON.stringify(first.messages).includes('"type":"image"'), "turn 1: images blocked");
	assert.ok(JSON.stringify(second.messages).includes('"type":"image"'), "turn 2: images allowed");
	assert.equal(agent.state.errorMessage, undefined, "both turns completed");
	assert.deepEqual(problems, [], "no conversion problems were reported");
	console.log("OK: the model received exactly the default preset's conversion, on every turn.");
} finally {
	faux.unregister();
}
