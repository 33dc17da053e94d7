import type { Message } from "@earendil-works/pi-ai";
import { ConversionError, InvalidPluginError } from "../errors.js";
import { type HookContext, type Plugin, Stage } from "../registry/types.js";
import { describeValue, errorText, isRecord } from "../values.js";

/** Name of the `pruneMessages` plugin (its tap on `afterConvert`). */
export const PRUNE_MESSAGES_PLUGIN = "convert-to-llm:prune-messages";

/** The stage `pruneMessages` taps `afterConvert` at: an ordinary transform, before the sanitizers. */
export const PRUNE_STAGE = Stage.DEFAULT;

/** Which thinking blocks go, as the AI SDK's `reasoning` option. */
export type PruneReasoning = "all" | "before-last-message" | "none";

/** Where tool calls go: everywhere, or outside the last message(s). */
export type PruneToolCallsScope = "all" | "before-last-message" | `before-last-${number}-messages`;

/**
 * One tool-call rule, as the AI SDK's: prune the calls (and their results) in `type`'s scope, only
 * those of `tools` when given.
 *
 * @example
 * const rule: PruneToolCallsRule = { type: "before-last-2-messages", tools: ["read", "bash"] };
 */
export interface PruneToolCallsRule {
	readonly type: PruneToolCallsScope;
	readonly tools?: readonly string[];
}

/**
 * Options of {@link pruneMessages}: the AI SDK's `pruneMessages` options, names, values and
 * defaults alike.
 *
 * Contract: read once, by the factory; a value outside the types below throws `InvalidPluginError`
 * at once. `toolCalls` rules apply one after the other, each on the previous one's result, and the
 * window of a rule counts messages (every role) from the end of the history.
 *
 * @example
 * const options: PruneMessagesOptions = { reasoning: "before-last-message", toolCalls: "before-last-2-messages" };
 */
export interface PruneMessagesOptions {
	/** Thinking blocks to remove from assistant messages. Default `"none"`. */
	reasoning?: PruneReasoning;
	/** Tool calls to remove, with their results. Default `[]` (none). */
	toolCalls?: PruneToolCallsScope | "none" | readonly PruneToolCallsRule[];
	/** Whether an assistant message left (or found) without content is removed. Default `"remove"`. */
	emptyMessages?: "keep" | "remove";
}

/** A rule read once: how many trailing messages it spares (`undefined`: none), and which tools. */
interface Rule {
	readonly keepLast: number | undefined;
	readonly tools: readonly string[] | undefined;
}

type Block = { type?: unknown; id?: unknown; name?: unknown };

/**
 * Drops thinking blocks and tool calls from a converted history, as the Vercel AI SDK's
 * `pruneMessages` does to its model messages: a `thinking` block is a reasoning part, a `toolCall`
 * block a tool-call part, and each `toolResult` message one tool message holding one tool result.
 *
 * Contract: same option names, values, defaults and decisions as the AI SDK (`ai` 6), with what pi's
 * message shapes need on top: a tool call and its result always go together (a pruned `toolResult`
 * message is removed even with `emptyMessages: "keep"`, since pi would otherwise send an orphan
 * result); a thinking block's signature goes with the block; `user` and `system` messages pass
 * through, even when empty; `"remove"` drops assistant messages left empty, and those that already
 * were. Unchanged messages (and the array, when nothing changes) are passed on as they are; a
 * changed one becomes `{ ...message, content }`. A message it cannot read (a throwing getter) is
 * dropped and reported. Taps `afterConvert` at {@link PRUNE_STAGE}, so it runs for `convert` and
 * `convertAsync` alike.
 *
 * @example
 * const registry = createDefaultRegistry().use(
 *   pruneMessages({ reasoning: "before-last-message", toolCalls: "before-last-2-messages" }),
 * );
 */
export function pruneMessages(options: PruneMessagesOptions = {}): Plugin {
	const { reasoning = "none", toolCalls = [], emptyMessages = "remove" } = options;
	if (reasoning !== "all" && reasoning !== "before-last-message" && reasoning !== "none")
		throw invalidOption("reasoning", reasoning, '"all", "before-last-message" or "none"');
	if (emptyMessages !== "keep" && emptyMessages !== "remove")
		throw invalidOption("emptyMessages", emptyMessages, '"keep" or "remove"');
	const rules = readRules(toolCalls);
	const removeEmpty = emptyMessages === "remove";

	const filter = (messages: Message[], ctx: HookContext): Message[] => {
		const readable = readableMessages(messages, ctx);
		let output: unknown[] = readable;
		if (reasoning !== "none") output = withoutReasoning(output, reasoning === "before-last-message");
		const pruned = new Set<number>();
		for (const rule of rules) output = applyRule(output, rule, pruned);
		const kept: Message[] = [];
		let changed = readable.length !== messages.length;
		for (let i = 0; i < output.length; i++) {
			const message = output[i] as Message;
			const original = readable[i] as Message;
			if (pruned.has(i) || (removeEmpty && isEmptyAssistant(message))) {
				changed = true;
				continue;
			}
			if (message !== original) {
				changed = true;
				ctx.inheritSource(message, original);
			}
			kept.push(message);
		}
		return changed ? kept : messages;
	};

	return {
		name: PRUNE_MESSAGES_PLUGIN,
		apply(registry) {
			registry.hooks.afterConvert.tap({ name: PRUNE_MESSAGES_PLUGIN, stage: PRUNE_STAGE }, filter);
		},
	};
}

function invalidOption(name: string, value: unknown, expected: string): InvalidPluginError {
	return new InvalidPluginError(
		`pruneMessages: option ${name} is ${describeValue(value)}; expected ${expected}, as the AI SDK's pruneMessages.`,
		{ plugin: PRUNE_MESSAGES_PLUGIN },
	);
}

/** The tool-call rules, normalized as the AI SDK does (`"none"`: none; a string: one rule). */
function readRules(toolCalls: PruneMessagesOptions["toolCalls"]): Rule[] {
	if (toolCalls === "none") return [];
	const list: readonly unknown[] = typeof toolCalls === "string" ? [{ type: toolCalls }] : (toolCalls ?? []);
	if (!Array.isArray(list)) throw invalidOption("toolCalls", toolCalls, "a scope string or a list of rules");
	return list.map((rule): Rule => {
		if (!isRecord(rule)) throw invalidOption("toolCalls", rule, "a rule { type, tools? }");
		const { type, tools } = rule;
		if (tools !== undefined && !(Array.isArray(tools) && tools.every((tool) => typeof tool === "string")))
			throw invalidOption("toolCalls[].tools", tools, "a list of tool names");
		return { keepLast: keepLastOf(type), tools: tools as readonly string[] | undefined };
	});
}

const SCOPE_PREFIX = "before-last-";
const SCOPE_SUFFIX = "-messages";

function keepLastOf(type: unknown): number | undefined {
	if (type === "all") return undefined;
	if (type === "before-last-message") return 1;
	if (typeof type === "string" && type.startsWith(SCOPE_PREFIX) && type.endsWith(SCOPE_SUFFIX)) {
		const digits = type.slice(SCOPE_PREFIX.length, type.length - SCOPE_SUFFIX.length);
		if (/^\d{1,9}$/.test(digits)) return Number(digits);
	}
	throw invalidOption("toolCalls type", type, '"all", "before-last-message" or "before-last-<n>-messages"');
}

/** The messages whose role and content can be read; the others are reported and left out. */
function readableMessages(messages: readonly Message[], ctx: HookContext): Message[] {
	const readable: Message[] = [];
	for (let i = 0; i < messages.length; i++) {
		const message = messages[i] as Message;
		try {
			if (message.role === "assistant" || message.role === "toolResult") readBlocks(message);
			readable.push(message);
		} catch (cause) {
			ctx.report(
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

/** One rule: the ids it prunes, then their calls and results together, outside the rule's window. */
function applyRule(messages: unknown[], rule: Rule, pruned: Set<number>): unknown[] {
	const { keepLast, tools } = rule;
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
