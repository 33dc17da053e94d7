/** A small history with one tool call and its result, for the tests of what clearing a result shows. */

const usage = {
	input: 0,
	output: 0,
	cacheRead: 0,
	cacheWrite: 0,
	totalTokens: 0,
	cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
};
const assistant = { api: "anthropic-messages", provider: "anthropic", model: "claude-sonnet-4-5", usage };

/** A prompt, a `read` of src/parse.ts whose result is `result`, an answer, and a last prompt (which nothing after is cleared). */
export function toolHistory(result: string): unknown[] {
	return [
		{ role: "user", content: "read the file", timestamp: 1 },
		{
			role: "assistant",
			content: [{ type: "toolCall", id: "c1", name: "read", arguments: { path: "src/parse.ts" } }],
			...assistant,
			stopReason: "toolUse",
			timestamp: 2,
		},
		{
			role: "toolResult",
			toolCallId: "c1",
			toolName: "read",
			content: [{ type: "text", text: result }],
			isError: false,
			timestamp: 3,
		},
		{ role: "assistant", content: [{ type: "text", text: "done" }], ...assistant, stopReason: "stop", timestamp: 4 },
		{ role: "user", content: "thanks", timestamp: 5 },
	];
}
