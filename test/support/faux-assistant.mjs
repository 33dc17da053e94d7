/**
 * The assistant reply a session differential appends when its steps wrote none (pi writes a session
 * file only once an assistant message exists). Plain JavaScript: the pi 1.x child (Node 22) and the
 * vitest side share it.
 */
export const FAUX_ASSISTANT = {
	role: "assistant",
	content: [{ type: "text", text: "ok" }],
	api: "faux",
	provider: "faux",
	model: "faux-1",
	usage: {
		input: 1,
		output: 1,
		cacheRead: 0,
		cacheWrite: 0,
		totalTokens: 2,
		cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
	},
	stopReason: "stop",
	timestamp: 1,
};
