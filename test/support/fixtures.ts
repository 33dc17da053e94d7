/**
 * The small builders and helpers the tests share: a fixed timestamp, the lenient/strict table, the
 * `usage` of a faux assistant reply, message builders with every field a test does not care about
 * filled in, and the two ways of catching what a registry reports (`collectErrors`, `thrownBy`).
 */
import type { AssistantMessage, Message, ToolResultMessage, Usage, UserMessage } from "@earendil-works/pi-ai";
import type { BashExecutionMessage, ConvertToLlmError, Registry } from "../../src/index.js";

/** The timestamp of every message a test does not date on purpose. */
export const T0 = 1_700_000_000_000;

/** The two modes every fault is checked in, for `it.each` / `describe.each`. */
export const MODES = [
	{ mode: "lenient", strict: false },
	{ mode: "strict", strict: true },
] as const;

/** The token usage of a faux assistant reply. */
export const usage: Usage = {
	input: 1,
	output: 2,
	cacheRead: 0,
	cacheWrite: 0,
	totalTokens: 3,
	cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
};

export function user(content: UserMessage["content"], timestamp = T0): UserMessage {
	return { role: "user", content, timestamp };
}

/** An assistant reply from the faux provider that asked for tools; `fields` overrides any field. */
export function assistant(
	content: AssistantMessage["content"],
	fields: Partial<AssistantMessage> = {},
): AssistantMessage {
	return {
		role: "assistant",
		content,
		api: "faux",
		provider: "faux",
		model: "faux-1",
		usage,
		stopReason: "toolUse",
		timestamp: T0,
		...fields,
	};
}

/** A `bashExecution` message of `ls` that succeeded; `fields` overrides any field. */
export function bashExecution(fields: Partial<BashExecutionMessage> = {}): BashExecutionMessage {
	return {
		role: "bashExecution",
		command: "ls",
		output: "a.txt",
		exitCode: 0,
		cancelled: false,
		truncated: false,
		timestamp: T0,
		...fields,
	};
}

/** The content of each user message and the role of any other, to compare a conversion at a glance. */
export function userTexts(messages: readonly Message[]): unknown[] {
	return messages.map((m) => (m.role === "user" ? m.content : m.role));
}

/** Collects what the registry reports on `hooks.error`. */
export function collectErrors(registry: Registry): ConvertToLlmError[] {
	const errors: ConvertToLlmError[] = [];
	registry.hooks.error.tap("test:collect", (error) => {
		errors.push(error);
	});
	return errors;
}

/** The value `fn` throws (fails the test when it does not throw). */
export function thrownBy(fn: () => unknown): unknown {
	try {
		fn();
	} catch (error) {
		return error;
	}
	throw new Error("expected a throw, got none");
}

/**
 * Whether `safeFences` prints the status values of `msg` (exit code, full output path) as pi does:
 * each is not a string, or a string with no control character, U+2028/U+2029, backtick or bracket.
 */
export function plainBashStatus(msg: { exitCode?: unknown; fullOutputPath?: unknown }): boolean {
	return [msg.exitCode, msg.fullOutputPath].every(
		(v) => typeof v !== "string" || !/[\p{Cc}\u2028\u2029`[\]]/u.test(v),
	);
}

/**
 * `turns` tool turns: each a prompt, an assistant's `read` of `f<t>.ts`, its result of `resultText(t)`
 * and nothing else (the next turn's prompt follows), as the tool-heavy histories of the filter tests.
 */
export function readTurns(
	turns: number,
	resultText: (turn: number) => string,
): (UserMessage | AssistantMessage | ToolResultMessage)[] {
	const messages: (UserMessage | AssistantMessage | ToolResultMessage)[] = [];
	for (let t = 0; t < turns; t++) {
		messages.push(user(`prompt ${t}`, t));
		messages.push(
			assistant([{ type: "toolCall", id: `c${t}`, name: "read", arguments: { path: `f${t}.ts` } }], {
				timestamp: t,
			}),
		);
		messages.push({
			role: "toolResult",
			toolCallId: `c${t}`,
			toolName: "read",
			content: [{ type: "text", text: resultText(t) }],
			isError: false,
			timestamp: t,
		});
	}
	return messages;
}
