/**
 * A small pi session whose figures are worked out by hand in the ledger's tests and docs/ledger.md:
 * four requests (a user prompt, two tool rounds, a second prompt), every message a multiple of four
 * characters so that pi's estimate is exact, billed at 1.2 billed tokens per estimated token over an
 * 880-token system prompt, priced as Claude Sonnet 4.5 (USD 3 / 15 / 0.30 / 3.75 per million input,
 * output, cache read, cache write tokens).
 */

/** USD per token. */
export const PRICE = { input: 3e-6, output: 15e-6, cacheRead: 0.3e-6, cacheWrite: 3.75e-6 } as const;

/** A usage as Anthropic bills it, with its cost. */
export function usage(input: number, cacheRead: number, cacheWrite: number, output = 10) {
	const cost = {
		input: input * PRICE.input,
		output: output * PRICE.output,
		cacheRead: cacheRead * PRICE.cacheRead,
		cacheWrite: cacheWrite * PRICE.cacheWrite,
		total: 0,
	};
	cost.total = cost.input + cost.output + cost.cacheRead + cost.cacheWrite;
	return { input, output, cacheRead, cacheWrite, totalTokens: input + cacheRead + cacheWrite + output, cost };
}

export const T0 = Date.parse("2026-02-01T09:00:00.000Z");

/** The entries (after the header) of the session; `overrides` replace fields of an assistant's message by its id. */
export function smallSession(overrides: Record<string, Record<string, unknown>> = {}): Record<string, unknown>[] {
	let parent: string | null = null;
	const entries: Record<string, unknown>[] = [];
	const add = (id: string, message: Record<string, unknown>, at: number) => {
		entries.push({
			type: "message",
			id,
			parentId: parent,
			timestamp: new Date(at).toISOString(),
			message: { ...message, timestamp: at, ...(overrides[id] ?? {}) },
		});
		parent = id;
	};
	const assistant = (text: string, stopReason: string, billed: ReturnType<typeof usage>) => ({
		role: "assistant",
		content: [{ type: "text", text }],
		api: "anthropic-messages",
		provider: "anthropic",
		model: "claude-sonnet-4-5",
		usage: billed,
		stopReason,
	});
	const result = (id: string, text: string) => ({
		role: "toolResult",
		toolCallId: id,
		toolName: "read",
		content: [{ type: "text", text }],
		isError: false,
	});
	// Estimates: U1 100, A1 100, T1 500, A2 100, T2 500, A3 100, U2 100.
	add("u1", { role: "user", content: "q".repeat(400) }, T0);
	add("a1", assistant("a".repeat(400), "toolUse", usage(3, 0, 997)), T0 + 10_000);
	add("t1", result("c1", "r".repeat(2000)), T0 + 11_000);
	add("a2", assistant("b".repeat(400), "toolUse", usage(3, 997, 720)), T0 + 20_000);
	add("t2", result("c2", "s".repeat(2000)), T0 + 21_000);
	add("a3", assistant("c".repeat(400), "stop", usage(3, 1717, 720)), T0 + 30_000);
	add("u2", { role: "user", content: "w".repeat(400) }, T0 + 35_000);
	add("a4", assistant("d".repeat(400), "stop", usage(3, 2437, 240)), T0 + 40_000);
	return entries;
}

/** A session file's text: the header, then `entries`, one JSON line each. */
export function sessionText(entries: readonly unknown[], header: Record<string, unknown> = {}): string {
	const head = {
		type: "session",
		version: 3,
		id: "small",
		timestamp: new Date(T0).toISOString(),
		cwd: "/p",
		...header,
	};
	return `${[head, ...entries].map((entry) => JSON.stringify(entry)).join("\n")}\n`;
}
