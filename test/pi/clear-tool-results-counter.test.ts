/**
 * What counting `clearToolResults` with the session's calibrated counter costs the prompt cache: the
 * cleared boundary is found by replaying the requests with today's counts, and a counter that learns
 * from every bill counts them a little differently each time. Over 120 tool turns billed at a fixed
 * multiple of pi's estimate, the calibrated counter breaks the prefix more often than a counter fixed
 * at the true ratio, but within a bound (docs/pi-extension.md quotes the counts this prints).
 */
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { Message } from "@earendil-works/pi-ai";
import { describe, expect, it } from "vitest";
import { calibratedCounter, estimateTokens } from "../../src/filters/index.js";
import type { Conversion } from "../../src/index.js";
import { createHost } from "../../src/pi/host.js";
import type { PiExtensionApi } from "../../src/pi/pi-api.js";
import { DEFAULT_HARDENING } from "../../src/pi/settings.js";

const pi = { getFlag: () => undefined } as unknown as PiExtensionApi;
const USAGE = {
	input: 0,
	output: 0,
	cacheRead: 0,
	cacheWrite: 0,
	totalTokens: 0,
	cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
};
const TURNS = 120;

/** Turn `t`: a prompt, a `read` call, its result of 400 to 4,000 characters, an answer. */
function turn(t: number): AgentMessage[] {
	const size = 400 + ((t * 7919) % 3600);
	const assistant = (content: unknown[], stopReason: string) =>
		({
			role: "assistant",
			content,
			api: "x",
			provider: "p",
			model: "m",
			usage: USAGE,
			stopReason,
			timestamp: t,
		}) as AgentMessage;
	return [
		{ role: "user", content: `prompt ${t}`, timestamp: t } as AgentMessage,
		assistant([{ type: "toolCall", id: `c${t}`, name: "read", arguments: { path: `f${t}` } }], "toolUse"),
		{
			role: "toolResult",
			toolCallId: `c${t}`,
			toolName: "read",
			content: [{ type: "text", text: "y".repeat(size) }],
			isError: false,
			timestamp: t,
		} as AgentMessage,
		assistant([{ type: "text", text: `answer ${t}` }], "stop"),
	];
}

/**
 * Prefix breaks over {@link TURNS} requests (each the history up to its last answer), each billed
 * `factor` × chars/4 of its messages + 500 tokens, with the host counting by `counter`.
 */
function breaks(factor: number, counter: "calibrated" | "fixed"): number {
	const calibrated = calibratedCounter();
	const tokenCounter =
		counter === "calibrated"
			? () => calibrated
			: () => (message: Message) => Math.ceil(factor * estimateTokens(message));
	const switches = { ...DEFAULT_HARDENING, clearToolResults: { trigger: { tokens: 20_000 } } };
	const registry = createHost(pi, switches, 10_000, { tokenCounter }).build().registry;
	let history: AgentMessage[] = [];
	let previous: Conversion | undefined;
	let count = 0;
	for (let t = 0; t < TURNS; t++) {
		history = [...history, ...turn(t)];
		const conversion = registry.run(history.slice(0, -1), { previous });
		if (previous !== undefined && conversion.prefix?.breakAt != null) count++;
		previous = conversion;
		const input = Math.ceil((factor * JSON.stringify(conversion.output).length) / 4) + 500;
		calibrated.observe(conversion.output, { input, output: 1, cacheRead: 0, cacheWrite: 0 });
	}
	return count;
}

describe("createHost's clearToolResults counted by the calibrated counter", () => {
	it.each([1, 1.3, 2])(
		"should break the prompt prefix at most twice as often as a counter fixed at the bill's ratio (bills of %s× chars/4)",
		(factor) => {
			const fixed = breaks(factor, "fixed");
			const calibrated = breaks(factor, "calibrated");
			console.log(
				`bills of ${factor}× chars/4: ${calibrated} breaks calibrated, ${fixed} with a fixed ratio, of ${TURNS} requests`,
			);
			expect(fixed).toBeGreaterThan(0);
			expect(calibrated).toBeLessThanOrEqual(2 * fixed);
		},
	);
});
