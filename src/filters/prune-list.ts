/**
 * The pruning itself (`pruneList`), apart from the plugin: thinking blocks and tool calls dropped as the AI SDK's
 * `pruneMessages` does, with pi's rules and `step`; shared by the plugin and `pruneMessageList`.
 */
import type { Message } from "@earendil-works/pi-ai";
import { ConversionError } from "../errors.js";
import { errorText, isRecord } from "../values.js";
import type { ProblemSink } from "./problem-sink.js";

/** Name of the `pruneMessages` plugin (its tap on `afterConvert`, and every problem the pruning reports). */
export const PRUNE_MESSAGES_PLUGIN = "convert-to-llm:prune-messages";

/** A tool-call rule read once: how many trailing messages it spares (`undefined`: none), and which tools. */
export interface PruneRule {
	readonly keepLast: number | undefined;
	readonly tools: readonly string[] | undefined;
}

/** The options of a pruning, read and checked once (see `readPruneOptions`). */
export interface PruneSettings {
	readonly reasoning: "all" | "before-last-message" | "none";
	readonly rules: readonly PruneRule[];
	readonly removeEmpty: boolean;
	/** Windows move in steps of this many messages; `undefined`: with every message. */
	readonly step: number | undefined;
}

/** A problem sink that may also link a changed message to its original (the hook context does). */
export interface PruneSink extends ProblemSink {
	inheritSource?(message: Message, from: Message): void;
}

type Block = { type?: unknown; id?: unknown; name?: unknown };

/**
 * Prunes one converted history as the AI SDK's `pruneMessages`, with pi's rules (see `pruneMessages`).
 * Returns `messages` itself when nothing changes; a changed message is `{ ...message, content }`.
 */
export function pruneList(messages: Message[], settings: PruneSettings, sink: PruneSink): Message[] {
	const readable = readableMessages(messages, sink);
	let output: unknown[] = readable;
	if (settings.reasoning !== "none") output = withoutReasoning(output, settings.reasoning === "before-last-message");
	const pruned = new Set<number>();
	for (const rule of settings.rules) output = applyRule(output, rule, settings.step, pruned);
	const kept: Message[] = [];
	let changed = readable.length !== messages.length;
	for (let i = 0; i < output.length; i++) {
		const message = output[i] as Message;
		const original = readable[i] as Message;
		if (pruned.has(i) || (settings.removeEmpty && isEmptyAssistant(message))) {
			changed = true;
			continue;
		}
		if (message !== original) {
			changed = true;
			sink.inheritSource?.(message, original);
		}
		kept.push(message);
	}
	return changed ? kept : messages;
}

/** The messages whose role and content can be read; the others are reported and left out. */
function readableMessages(messages: readonly Message[], sink: ProblemSink): Message[] {
	const readable: Message[] = [];
	for (let i = 0; i < messages.length; i++) {
		const message = messages[i] as Message;
		try {
			if (message.role === "assistant" || message.role === "toolResult") readBlocks(message);
			readable.push(message);
		} catch (cause) {
			sink.report(
				new ConversionError(
					`pruneMessages: output message ${i} could not be read: ${errorText(cause)}. It was dropped, since it could not be pruned; fix what put it in the history.`,
					{ plugin: PRUNE_MESSAGES_PLUGIN, cause },
				),
			);
		}
	}
	return readable;
}

/** Reads every field the pruning looks at, so that a throwing getter shows up before any decision. */
function readBlocks(message: Message): void {
	if (message.role === "toolResult") {
		void message.toolCallId;
		void message.toolName;
		return;
	}
	const content: unknown = message.content;
	if (!Array.isArray(content)) return;
	for (let i = 0; i < content.length; i++) {
		const block = content[i] as Block;
		if (isRecord(block)) void [block.type, block.id, block.name];
	}
}

const isAssistantWithBlocks = (message: unknown): message is { role: "assistant"; content: Block[] } =>
	(message as Message).role === "assistant" && Array.isArray((message as Message).content);

const isEmptyAssistant = (message: Message): boolean =>
	message.role === "assistant" && Array.isArray(message.content) && message.content.length === 0;

const blockType = (block: unknown): unknown => (isRecord(block) ? block.type : undefined);

function withoutReasoning(messages: unknown[], spareLast: boolean): unknown[] {
	return messages.map((message, index) => {
		if (!isAssistantWithBlocks(message) || (spareLast && index === messages.length - 1)) return message;
		if (!message.content.some((block) => blockType(block) === "thinking")) return message;
		const content = message.content.filter((block) => blockType(block) !== "thinking");
		return content.length === message.content.length ? message : { ...message, content };
	});
}

/** The tool-call ids (calls and results) in the last `keepLast` messages; all of them for 0, as the AI SDK. */
function keptIds(messages: readonly unknown[], pruned: ReadonlySet<number>, keepLast: number): Set<unknown> {
	const ids = new Set<unknown>();
	const from = keepLast === 0 ? 0 : Math.max(0, messages.length - keepLast);
	for (let i = from; i < messages.length; i++) {
		const message = messages[i] as Message;
		if (message.role === "toolResult") {
			if (!pruned.has(i)) ids.add(message.toolCallId);
		} else if (isAssistantWithBlocks(message)) {
			for (const block of message.content) if (blockType(block) === "toolCall") ids.add(block.id);
		}
	}
	return ids;
}

/**
 * How many trailing messages a rule spares in a history of `length` messages: its own `keepLast`, or
 * with `step`, as many more as put the window's start on a multiple of `step` (never fewer). The start
 * then moves only once the history has grown by `step` messages, so what was pruned stays as it was.
 */
export function steppedKeepLast(
	keepLast: number | undefined,
	length: number,
	step: number | undefined,
): number | undefined {
	if (step === undefined || keepLast === undefined || keepLast === 0 || length <= keepLast) return keepLast;
	return length - Math.floor((length - keepLast) / step) * step;
}

/** One rule: the ids it prunes, then their calls and results together, outside the rule's window. */
function applyRule(messages: unknown[], rule: PruneRule, step: number | undefined, pruned: Set<number>): unknown[] {
	const { tools } = rule;
	const keepLast = steppedKeepLast(rule.keepLast, messages.length, step);
	const kept = keepLast === undefined ? new Set<unknown>() : keptIds(messages, pruned, keepLast);
	const windowStart = keepLast ? messages.length - keepLast : messages.length;
	const prunes = (id: unknown, name: unknown): boolean =>
		!kept.has(id) && !(tools !== undefined && typeof name === "string" && !tools.includes(name));
	// pi: a call and its result share one decision, so a result never outlives its call (or the reverse).
	const prunedIds = new Set<unknown>();
	for (let i = 0; i < windowStart; i++) {
		const message = messages[i] as Message;
		if (message.role === "toolResult" && !pruned.has(i)) {
			if (prunes(message.toolCallId, message.toolName)) prunedIds.add(message.toolCallId);
		} else if (isAssistantWithBlocks(message)) {
			for (const block of message.content)
				if (blockType(block) === "toolCall" && prunes(block.id, block.name)) prunedIds.add(block.id);
		}
	}
	if (prunedIds.size === 0) return messages;
	return messages.map((message, index) => {
		if (index >= windowStart) return message;
		if ((message as Message).role === "toolResult") {
			if (prunedIds.has((message as Message & { toolCallId: unknown }).toolCallId)) pruned.add(index);
			return message;
		}
		if (!isAssistantWithBlocks(message)) return message;
		const keep = message.content.map((block) => blockType(block) !== "toolCall" || !prunedIds.has(block.id));
		if (keep.every(Boolean)) return message;
		dropOrphanedReasoning(message.content, keep);
		return { ...message, content: message.content.filter((_, i) => keep[i]) };
	});
}

/**
 * The AI SDK's rule: a run of thinking blocks whose following blocks (up to the next thinking block)
 * are all pruned goes too; a run followed by nothing stays.
 */
function dropOrphanedReasoning(content: readonly Block[], keep: boolean[]): void {
	for (let start = 0; start < content.length; start++) {
		if (blockType(content[start]) !== "thinking") continue;
		let end = start + 1;
		while (end < content.length && blockType(content[end]) === "thinking") end++;
		let following = end;
		let anyKept = false;
		while (following < content.length && blockType(content[following]) !== "thinking") {
			anyKept ||= keep[following] as boolean;
			following++;
		}
		if (following > end && !anyKept) for (let i = start; i < end; i++) keep[i] = false;
		start = following - 1;
	}
}
