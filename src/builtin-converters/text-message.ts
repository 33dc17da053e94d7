/** One user message holding one text block: what the built-in converters send. */
import type { UserMessage } from "@earendil-works/pi-ai";

/** A `user` message with one text block, keys in pi's order (role, content, timestamp) so JSON output is byte-identical. */
export function userText(text: string, timestamp: number): UserMessage {
	return { role: "user", content: [{ type: "text", text }], timestamp };
}
