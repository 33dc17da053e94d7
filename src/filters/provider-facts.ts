/**
 * `isSentToProvider`: whether pi-ai's provider layer sends a message at all (an errored or aborted turn is not
 * replayed); one fact about the wire, shared by the counters and the ledger.
 */
import type { Message } from "@earendil-works/pi-ai";
import { isRecord } from "../values.js";

/**
 * Whether pi-ai's provider layer sends `message` to the model at all.
 *
 * Contract: `false` for an `assistant` message whose `stopReason` is `"error"` or `"aborted"`:
 * pi-ai's `transformMessages` (0.73.1 and 1.x, every API: Anthropic, OpenAI, Google, Bedrock,
 * Mistral) skips such a turn entirely ("incomplete turns that shouldn't be replayed"), so it is in
 * the converted history but not in the request, and not in the bill. `true` for every other message.
 * Never throws.
 *
 * Checked against the bill: on the recorded sessions in test/fixtures/sessions/recorded/, the request
 * after an errored or aborted turn grows by the tokens of the messages after it only.
 *
 * @example
 * isSentToProvider({ role: "assistant", stopReason: "aborted", content: [...], ... }); // false
 */
export function isSentToProvider(message: Message): boolean {
	try {
		const value: unknown = message;
		if (!isRecord(value) || value.role !== "assistant") return true;
		const stop: unknown = value.stopReason;
		return stop !== "error" && stop !== "aborted";
	} catch {
		return true;
	}
}
