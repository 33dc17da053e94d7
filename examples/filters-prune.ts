/**
 * Demonstrates `pruneMessages`, the Vercel AI SDK's `pruneMessages` on pi messages: thinking blocks
 * dropped before the last message, and tool calls (with their results) dropped outside the last two
 * messages, so a long session sends the model less of what it no longer needs.
 *
 * Run: npm run build && npx tsx examples/filters-prune.ts
 */
import assert from "node:assert/strict";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { pruneMessages } from "convert-to-llm/filters";
import { createDefaultRegistry } from "convert-to-llm/preset";

const usage = {
	input: 1,
	output: 1,
	cacheRead: 0,
	cacheWrite: 0,
	totalTokens: 2,
	cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
};
const reply = (content: unknown[]) =>
	({
		role: "assistant",
		content,
		api: "faux",
		provider: "faux",
		model: "faux-1",
		usage,
		stopReason: "toolUse",
		timestamp: 1,
	}) as AgentMessage;
const result = (id: string, text: string) =>
	({
		role: "toolResult",
		toolCallId: id,
		toolName: "read",
		content: [{ type: "text", text }],
		isError: false,
		timestamp: 2,
	}) as AgentMessage;

const history: AgentMessage[] = [
	{ role: "user", content: "Why does the build fail?", timestamp: 0 },
	reply([
		{ type: "thinking", thinking: "Look at the config first.", thinkingSignature: "sig-1" },
		{ type: "toolCall", id: "call-1", name: "read", arguments: { path: "tsup.config.ts" } },
	]),
	result("call-1", "export default defineConfig({ … 200 lines … })"),
	reply([{ type: "text", text: "The entry for src/cli is missing." }]),
	{ role: "user", content: "Fix it.", timestamp: 3 },
	reply([
		{ type: "thinking", thinking: "Add the entry.", thinkingSignature: "sig-2" },
		{ type: "toolCall", id: "call-2", name: "edit", arguments: { path: "tsup.config.ts" } },
	]),
	result("call-2", "ok"),
];

const registry = createDefaultRegistry().use(
	pruneMessages({ reasoning: "before-last-message", toolCalls: "before-last-2-messages" }),
);
const output = registry.convert(history);
for (const message of output) {
	const blocks = typeof message.content === "string" ? [message.content] : message.content.map((b) => b.type);
	console.log(`${message.role}: ${JSON.stringify(blocks)}`);
}

const sent = JSON.stringify(output);
assert.ok(!sent.includes("call-1"), "the first tool call and its result are gone");
assert.ok(sent.includes("call-2"), "the tool call of the last two messages stays");
assert.ok(
	!sent.includes("sig-1") && !sent.includes("Look at the config"),
	"the first thinking block went, signature and all",
);
assert.equal(output.length, 5, "the assistant message left empty was removed, with its result");
assert.equal(history.length, 7, "the history itself is unchanged");
console.log(
	`OK: ${history.length} history messages -> ${output.length} model messages; the old tool call went with its result.`,
);
