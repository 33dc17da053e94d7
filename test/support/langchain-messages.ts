/**
 * pi-ai messages as LangChain messages, for the differentials against `@langchain/core`'s
 * `trimMessages`: each LangChain message carries its pi index as `id`, so a trimmed list reads back
 * as the indices LangChain kept, and a counter of pi messages counts the LangChain ones.
 */

import type { Message } from "@earendil-works/pi-ai";
import { AIMessage, type BaseMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";

/** LangChain's message type for each pi role (`endOn`/`startOn` values). */
export const LANGCHAIN_TYPE = { user: "human", assistant: "ai", toolResult: "tool", system: "system" } as const;

export function toLangChain(messages: readonly Message[]): BaseMessage[] {
	return messages.map((message, index) => {
		const id = String(index);
		if (message.role === "system") return new SystemMessage({ content: "system", id });
		if (message.role === "user") return new HumanMessage({ content: "user", id });
		if (message.role === "toolResult")
			return new ToolMessage({ content: "result", tool_call_id: message.toolCallId, id });
		const tool_calls = message.content.flatMap((block) =>
			block.type === "toolCall" ? [{ id: block.id, name: block.name, args: block.arguments }] : [],
		);
		return new AIMessage({ content: "assistant", tool_calls, id });
	});
}

/** A LangChain list counter that counts each message as `counter` counts the pi message of its id. */
export const langChainCounter =
	(history: readonly Message[], counter: (message: Message) => number) =>
	(messages: BaseMessage[]): number =>
		messages.reduce((sum, m) => sum + counter(history[Number(m.id)] as Message), 0);

/** The pi indices a LangChain result kept (`undefined` where LangChain put `undefined`). */
export const keptIndices = (messages: readonly (BaseMessage | undefined)[]): (number | undefined)[] =>
	messages.map((m) => (m === undefined ? undefined : Number(m.id)));
