/**
 * The oracle of `clearToolResults`: LangChain's own `ClearToolUsesEdit` (npm `langchain` 1.x) run on
 * a pi history mapped to LangChain messages, its answer mapped back to pi messages, and pi's
 * documented differences applied to it. The token counter is the same on both sides: each LangChain
 * message is counted as the pi message it stands for (`response_metadata.piIndex`, which LangChain
 * copies into the messages it rebuilds).
 *
 * The documented differences, each applied here in one place:
 * - **Orphans** (a result that answers no earlier call): LangChain deletes them before counting; pi
 *   sends them, so the oracle adds their tokens to LangChain's count of the whole request, lowers a
 *   `messages` trigger by their number, and expects them back, untouched, where they were.
 * - **The run in progress**: a result after the last `user` message is never cleared (nor its call's
 *   inputs); LangChain may clear it.
 * - **Already cleared**: LangChain knows its own marker (`response_metadata.context_editing`); pi
 *   results have none, so a result whose content reads as a placeholder is marked so for LangChain.
 * - **The placeholder**: a test without one compares the descriptive text as `[cleared]`.
 */

import type { Message } from "@earendil-works/pi-ai";
import { AIMessage, type BaseMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { ClearToolUsesEdit } from "langchain";
import type { ClearToolResultsOptions, ClearTrigger } from "../../src/filters/clear-tool-results.js";

/** LangChain's default placeholder, used when the pi options give none. */
export const LANGCHAIN_PLACEHOLDER = "[cleared]";

export interface OracleAnswer {
	/** What `clearToolResults` (with `clearAtLeast: 0`) must return, placeholders normalized. */
	expected: Message[];
	/** Results LangChain cleared. */
	cleared: number;
	/** Of those, results after the last user message, which pi spares. */
	spared: number;
	/** Orphans LangChain deleted and pi keeps. */
	orphans: number;
	/** Results LangChain skipped as already cleared. */
	preCleared: number;
	/** Calls whose inputs LangChain cleared. */
	inputs: number;
}

type Record_ = Record<string, unknown>;

const blocksOf = (message: Message): Record_[] =>
	Array.isArray(message.content) ? (message.content as unknown as Record_[]) : [];

/** pi's rule for a result that already reads as cleared (the marker LangChain keeps in its metadata). */
function readsAsCleared(message: Message, placeholder: string | undefined): boolean {
	const [first, ...rest] = blocksOf(message);
	if (first?.type !== "text" || typeof first.text !== "string") return false;
	const text = first.text;
	const like = text === placeholder || (text.startsWith("[cleared") && text.endsWith("]") && !text.includes("\n"));
	return like && rest.every((block) => block.type === "image");
}

const callsOf = (message: Message): Record_[] =>
	message.role === "assistant" ? blocksOf(message).filter((block) => block.type === "toolCall") : [];

/** LangChain's `findAIMessageForToolCall`: the nearest earlier assistant message with a call of `id`. */
function callerOf(history: readonly Message[], index: number, id: unknown): number {
	for (let i = index - 1; i >= 0; i--) if (callsOf(history[i] as Message).some((call) => call.id === id)) return i;
	return -1;
}

const metadataOf = (message: BaseMessage): Record_ => (message.response_metadata ?? {}) as Record_;
const piIndexOf = (message: BaseMessage): number => metadataOf(message).piIndex as number;
const editingOf = (message: BaseMessage): Record_ => (metadataOf(message).context_editing ?? {}) as Record_;

function toLangChain(history: readonly Message[], placeholder: string | undefined): BaseMessage[] {
	return history.map((message, piIndex) => {
		const role = message.role as string;
		if (role === "system") return new SystemMessage({ content: "system", response_metadata: { piIndex } });
		if (message.role === "user") return new HumanMessage({ content: "user", response_metadata: { piIndex } });
		if (message.role === "toolResult") {
			const marked = readsAsCleared(message, placeholder);
			return new ToolMessage({
				content: "result",
				tool_call_id: message.toolCallId,
				name: message.toolName,
				response_metadata: marked
					? { piIndex, context_editing: { cleared: true, strategy: "clear_tool_uses" } }
					: { piIndex },
			});
		}
		const tool_calls = callsOf(message).map((call) => ({
			id: call.id as string,
			name: call.name as string,
			args: call.arguments as Record_,
			type: "tool_call" as const,
		}));
		return new AIMessage({ content: "assistant", tool_calls, response_metadata: { piIndex } });
	});
}

function withoutInputs(message: Message, ids: ReadonlySet<unknown>): Message {
	const content = blocksOf(message).map((block) =>
		block.type === "toolCall" && ids.has(block.id) ? { ...block, arguments: {} } : block,
	);
	return { ...message, content } as unknown as Message;
}

/** The pi message a LangChain message stands for, LangChain's edits included. */
function piOf(message: BaseMessage, history: readonly Message[], marked: ReadonlySet<number>): Message {
	const piIndex = piIndexOf(message);
	const original = history[piIndex] as Message;
	const editing = editingOf(message);
	if (ToolMessage.isInstance(message) && editing.cleared === true && !marked.has(piIndex))
		return { ...original, content: [{ type: "text", text: String(message.content) }] } as Message;
	if (Array.isArray(editing.cleared_tool_inputs)) return withoutInputs(original, new Set(editing.cleared_tool_inputs));
	return original;
}

/** LangChain's answer for `history` under `options` (with `clearAtLeast: 0`), pi's differences applied. */
export async function langChainAnswer(
	history: readonly Message[],
	options: ClearToolResultsOptions,
	counter: (message: Message) => number,
): Promise<OracleAnswer> {
	const placeholder = options.placeholder ?? LANGCHAIN_PLACEHOLDER;
	const orphanIndices = history.flatMap((m, i) =>
		m.role === "toolResult" && callerOf(history, i, m.toolCallId) < 0 ? [i] : [],
	);
	const orphanTokens = orphanIndices.reduce((sum, i) => sum + counter(history[i] as Message), 0);
	const lc = toLangChain(history, options.placeholder);
	const marked = new Set(lc.flatMap((m) => (editingOf(m).cleared === true ? [piIndexOf(m)] : [])));
	const countTokens = (messages: BaseMessage[]): number =>
		messages.reduce((sum, m) => sum + counter(piOf(m, history, marked)), 0) + (messages === lc ? orphanTokens : 0);
	const mapTrigger = (t: ClearTrigger): ClearTrigger =>
		t.messages === undefined ? t : { ...t, messages: Math.max(1, t.messages - orphanIndices.length) };
	const trigger = Array.isArray(options.trigger)
		? options.trigger.map(mapTrigger)
		: mapTrigger((options.trigger ?? { tokens: 100_000 }) as ClearTrigger);
	const edit = new ClearToolUsesEdit({
		trigger,
		keep: options.keep,
		excludeTools: [...(options.excludeTools ?? [])],
		clearToolInputs: options.clearToolInputs ?? false,
		placeholder,
	});
	const model = { profile: { maxInputTokens: options.contextWindow } };
	await edit.apply({ messages: lc, model: model as never, countTokens });

	const present = new Set(lc.map(piIndexOf));
	const removed = history.flatMap((_, i) => (present.has(i) ? [] : [i]));
	if (removed.join() !== orphanIndices.join())
		throw new Error(`LangChain deleted messages ${removed.join()}, the orphans are ${orphanIndices.join()}`);
	let lastUser = -1;
	history.forEach((m, i) => {
		if (m.role === "user") lastUser = i;
	});
	const expected = history.slice();
	const answer: OracleAnswer = {
		expected,
		cleared: 0,
		spared: 0,
		orphans: removed.length,
		preCleared: marked.size,
		inputs: 0,
	};
	const clearedIds = new Map<number, Set<unknown>>(); // assistant index → ids of results pi clears
	for (const message of lc) {
		const piIndex = piIndexOf(message);
		if (!ToolMessage.isInstance(message) || editingOf(message).cleared !== true || marked.has(piIndex)) continue;
		answer.cleared++;
		if (piIndex > lastUser) {
			answer.spared++;
			continue;
		}
		expected[piIndex] = {
			...(history[piIndex] as Message),
			content: [{ type: "text", text: placeholder }],
		} as Message;
		const caller = callerOf(history, piIndex, message.tool_call_id);
		const ids = clearedIds.get(caller) ?? new Set();
		ids.add(message.tool_call_id);
		clearedIds.set(caller, ids);
	}
	for (const message of lc) {
		const inputs = editingOf(message).cleared_tool_inputs;
		if (!Array.isArray(inputs)) continue;
		answer.inputs += inputs.length;
		const piIndex = piIndexOf(message);
		const ids = new Set(inputs.filter((id) => clearedIds.get(piIndex)?.has(id)));
		if (ids.size > 0) expected[piIndex] = withoutInputs(history[piIndex] as Message, ids);
	}
	return answer;
}

/** `output` with each descriptive placeholder (`[cleared: …]`) written as LangChain's `[cleared]`. */
export function normalizePlaceholders(output: readonly Message[], history: readonly Message[]): Message[] {
	return output.map((message, i) => {
		if (message === history[i] || message.role !== "toolResult") return message;
		const [first] = blocksOf(message);
		if (first?.type !== "text" || typeof first.text !== "string" || !first.text.startsWith("[cleared: "))
			return message;
		return { ...message, content: [{ type: "text", text: LANGCHAIN_PLACEHOLDER }] } as Message;
	});
}
