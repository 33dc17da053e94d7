/**
 * `splitCuts`: where a history may not be cut without separating a tool call from its result; its own
 * file because it is the one pairing rule of the trim (trim-window.ts), linear whatever the history holds.
 */
import type { Message } from "@earendil-works/pi-ai";
import { isRecord } from "../values.js";

/**
 * Where a history may not be cut: `split[p]` is `1` when a cut before message `p` (keeping `p` and
 * what follows, or what precedes `p`) separates a tool call from its result, `0` otherwise; `p` runs
 * from `0` to `messages.length`.
 *
 * Contract: a `toolResult` is paired with the latest assistant message before it that holds a
 * `toolCall` block of its `toolCallId`; whatever sits between them (user-role messages made of custom
 * messages and bash runs, system messages, other assistants) does not matter, every cut between the
 * two splits the pair. A result whose call is not before it (an orphan in the input) pairs with
 * nothing. A message whose fields cannot be read pairs with nothing; never throws. Linear in the
 * number of messages and blocks.
 *
 * @example
 * // [user, assistant(call c1), custom as user, toolResult c1]: cuts 2 and 3 split the pair
 * splitCuts(messages); // Uint8Array [0, 0, 1, 1, 0]
 */
export function splitCuts(messages: readonly Message[]): Uint8Array {
	const n = messages.length;
	// +1 at the cut after the call, -1 at the cut after the result; a running sum > 0 is inside a pair.
	const delta = new Int32Array(n + 2);
	const callAt = new Map<unknown, number>();
	for (let i = 0; i < n; i++) {
		try {
			const message = messages[i] as Message;
			if (message.role === "assistant") {
				const content: unknown = message.content;
				if (!Array.isArray(content)) continue;
				for (const block of content) if (isRecord(block) && block.type === "toolCall") callAt.set(block.id, i);
			} else if (message.role === "toolResult") {
				const call = callAt.get(message.toolCallId);
				if (call === undefined) continue;
				delta[call + 1] = (delta[call + 1] as number) + 1;
				delta[i + 1] = (delta[i + 1] as number) - 1;
			}
		} catch {
			// A message that cannot be read pairs with nothing; its counter makes it never fit.
		}
	}
	const split = new Uint8Array(n + 1);
	let open = 0;
	for (let p = 0; p <= n; p++) {
		open += delta[p] as number;
		split[p] = open > 0 ? 1 : 0;
	}
	return split;
}
