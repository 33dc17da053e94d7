/**
 * Demonstrates `trimToTokens`, LangChain's `trimMessages` (strategy "last", system kept, start on a
 * user message) with pi's own token estimate: the most recent turns that fit a budget, the system
 * prompt always kept, and a problem reported instead of an empty request when nothing else fits.
 *
 * Run: npm run build && npx tsx examples/filters-trim.ts
 */
import assert from "node:assert/strict";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { Message } from "@earendil-works/pi-ai";
import { estimateTokens, trimToTokens } from "convert-to-llm/filters";
import { createDefaultRegistry } from "convert-to-llm/preset";

const usage = {
	input: 1,
	output: 1,
	cacheRead: 0,
	cacheWrite: 0,
	totalTokens: 2,
	cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
};
const system = { role: "system", content: "You are a careful coding agent.", timestamp: 0 } as unknown as AgentMessage;
const history: AgentMessage[] = [system];
for (let turn = 1; turn <= 6; turn++) {
	history.push({ role: "user", content: `Question ${turn}: ${"details ".repeat(20)}`, timestamp: turn });
	history.push({
		role: "assistant",
		content: [{ type: "text", text: `Answer ${turn}: ${"reasoning ".repeat(30)}` }],
		api: "faux",
		provider: "faux",
		model: "faux-1",
		usage,
		stopReason: "stop",
		timestamp: turn,
	} as AgentMessage);
}

const tokens = (messages: readonly Message[]) => messages.reduce((sum, m) => sum + estimateTokens(m), 0);
const full = createDefaultRegistry().convert(history);
const { output } = createDefaultRegistry()
	.use(trimToTokens({ maxTokens: 300 }))
	.run(history);
console.log(`full history: ${full.length} messages, ~${tokens(full)} tokens as pi estimates them`);
console.log(
	`trimmed to 300: ${output.length} messages, ~${tokens(output)} tokens: ${output.map((m) => m.role).join(", ")}`,
);

const tight = createDefaultRegistry()
	.use(trimToTokens({ maxTokens: 20 }))
	.run(history);
console.log(`trimmed to 20: ${tight.output.map((m) => m.role).join(", ")}; problem: ${tight.problems[0]?.message}`);

assert.ok(tokens(output) <= 300, "within budget");
assert.equal((output[0] as { role: string }).role, "system", "the system prompt is kept");
assert.equal(output[1]?.role, "user", "the kept turns start on a user message");
assert.deepEqual(
	output.slice(1),
	full.slice(full.length - (output.length - 1)),
	"the most recent messages are the ones kept",
);
assert.equal(tight.output.length, 1, "over budget: the system message alone");
assert.equal(tight.problems.length, 1, "and one problem saying so");
console.log("OK: the latest turns that fit were kept, with the system prompt.");
