/**
 * The `clearToolResults` plugin: clears old tool results, as Anthropic's context editing does, in steps that keep
 * the prompt cache; options, plan and placeholder live in the clear-tool-results-*.ts files beside it.
 */
import type { Message } from "@earendil-works/pi-ai";
import { ConversionError } from "../errors.js";
import { type HookContext, type Plugin, Stage } from "../registry/types.js";
import { errorText, isRecord } from "../values.js";
import {
	CLEAR_TOOL_RESULTS_PLUGIN,
	type ClearSettings,
	type ClearToolResultsOptions,
	readClearOptions,
} from "./clear-tool-results-options.js";
import { clearedContent, contentSize, describeCleared } from "./clear-tool-results-placeholder.js";
import { type Candidate, type ClearPlan, countTokens, planClearing } from "./clear-tool-results-plan.js";
import { countOne } from "./token-counts.js";

export {
	CLEAR_TOOL_RESULTS_PLUGIN,
	type ClearKeep,
	type ClearToolResultsOptions,
	type ClearTrigger,
	type ClearWhen,
	DEFAULT_CACHE_LIFETIME_MS,
	DEFAULT_CLEAR_AT_LEAST_SHARE,
	DEFAULT_CLEAR_KEEP,
	DEFAULT_CLEAR_TRIGGER_TOKENS,
} from "./clear-tool-results-options.js";

/**
 * The stage `clearToolResults` taps `afterConvert` at: after the sanitizers (`blockImages` has turned
 * images into text, so the trigger counts what is sent), before `trimToTokens` (which then counts the
 * cleared history).
 */
export const CLEAR_STAGE = Stage.SANITIZE + 25;

type ToolResult = Message & { role: "toolResult" };
type Assistant = Message & { role: "assistant" };

/**
 * Clears old tool results as Anthropic's context editing (`clear_tool_uses_20250919`) and LangChain's
 * `ClearToolUsesEdit` do, on any provider, in steps that keep the prompt cache.
 *
 * Contract: once the request (every output message, by `tokenCounter`) reaches the `trigger`, every
 * tool result but the `keep` latest gets a placeholder for its content (`toolCallId`, `toolName`,
 * `isError` and every other field kept) and, with `clearToolInputs`, its call gets `arguments: {}`.
 * Never cleared: results after the last `user` message (the run in progress), results of
 * `excludeTools`, results that already read as a placeholder (so clearing is idempotent), and
 * results that answer no earlier call (orphans: sent as they are and reported while the trigger
 * holds). No message is removed or added, so no call loses its result. The cleared boundary is found
 * by replaying the requests the output records (one before each assistant message), so it is the
 * same for the same history, and it moves only when that clears at least `clearAtLeast` tokens (with
 * `when: "cache-cold"`, only when the previous request is older than `cacheLifetimeMs`, by the
 * messages' `timestamp`s and `now()`): between moves, each request repeats the previous one's
 * messages byte for byte. With `clearAtLeast: 0` it clears exactly what `ClearToolUsesEdit` clears
 * (but for the rules above). A throwing counter fails closed (that message counts `Infinity`).
 * Unchanged messages are passed on as they are; a changed one is a new object linked to its source.
 * Taps `afterConvert` at {@link CLEAR_STAGE}.
 *
 * @throws {InvalidPluginError} for an unknown option or a value outside its type.
 * @example
 * const registry = createDefaultRegistry().use(clearToolResults({ trigger: { tokens: 100_000 }, keep: { messages: 3 } }));
 */
export function clearToolResults(options?: ClearToolResultsOptions): Plugin {
	const settings = readClearOptions(options);

	const filter = (messages: Message[], ctx: HookContext): Message[] => {
		if (messages.length === 0) return messages;
		const tokens = countTokens(messages, settings, ctx);
		const cleared = new Map<number, Message>();
		const clearedOf = (candidate: Candidate): Message => {
			let message = cleared.get(candidate.index);
			if (message === undefined) {
				message = clearResult(messages[candidate.index] as ToolResult, candidate, settings);
				cleared.set(candidate.index, message);
			}
			return message;
		};
		const savings = (candidate: Candidate): number => {
			if (!candidate.eligible) return 0;
			let saved = saving(tokens[candidate.index] as number, clearedOf(candidate), settings);
			if (settings.clearToolInputs) {
				const assistant = messages[candidate.assistant] as Assistant;
				const without = withoutInputs(assistant, new Set([candidate.call.id]));
				saved += saving(tokens[candidate.assistant] as number, without, settings);
			}
			return saved;
		};
		const plan = planClearing(messages, tokens, settings, savings, ctx);
		if (plan.triggered) reportNotices(plan, settings, ctx);
		return applyPlan(messages, plan, clearedOf, settings, ctx);
	};

	return {
		name: CLEAR_TOOL_RESULTS_PLUGIN,
		apply(registry) {
			registry.hooks.afterConvert.tap({ name: CLEAR_TOOL_RESULTS_PLUGIN, stage: CLEAR_STAGE }, filter);
		},
	};
}

/** What replacing `before` (counted `tokens`) by `after` saves; an infinitely large message saves everything. */
function saving(tokens: number, after: Message, settings: ClearSettings): number {
	if (!Number.isFinite(tokens)) return Number.POSITIVE_INFINITY;
	return Math.max(0, tokens - countOne(after, settings.tokenCounter).tokens);
}

function clearResult(result: ToolResult, candidate: Candidate, settings: ClearSettings): Message {
	const content: unknown = result.content;
	const text =
		settings.placeholder ??
		describeCleared(candidate.tool, candidate.call.arguments, contentSize(content), settings.keepImages);
	return { ...result, content: clearedContent(content, text, settings.keepImages) } as Message;
}

/** The assistant message with the calls of `ids` given `arguments: {}` (every such call, as LangChain). */
function withoutInputs(assistant: Assistant, ids: ReadonlySet<unknown>): Message {
	const content = (assistant.content as unknown[]).map((block) =>
		isRecord(block) && block.type === "toolCall" && ids.has(block.id) ? { ...block, arguments: {} } : block,
	);
	return { ...assistant, content } as Message;
}

/** The output with the plan's results cleared (and their inputs); the same array when nothing changes. */
function applyPlan(
	messages: Message[],
	plan: ClearPlan,
	clearedOf: (candidate: Candidate) => Message,
	settings: ClearSettings,
	ctx: HookContext,
): Message[] {
	let output: Message[] | undefined;
	const inputs = new Map<number, Set<unknown>>();
	for (let ordinal = 0; ordinal < plan.boundary; ordinal++) {
		const candidate = plan.candidates[ordinal] as Candidate;
		if (!candidate.eligible) continue;
		const original = messages[candidate.index] as Message;
		let message: Message;
		try {
			message = clearedOf(candidate);
		} catch (cause) {
			ctx.report(
				new ConversionError(
					`clearToolResults: tool result ${candidate.index} could not be copied to clear it: ${errorText(cause)}. It is sent as it is.`,
					{ plugin: CLEAR_TOOL_RESULTS_PLUGIN, cause },
				),
			);
			continue;
		}
		output ??= messages.slice();
		output[candidate.index] = message;
		ctx.inheritSource(message, original);
		if (!settings.clearToolInputs) continue;
		const ids = inputs.get(candidate.assistant) ?? new Set<unknown>();
		ids.add(candidate.call.id);
		inputs.set(candidate.assistant, ids);
	}
	for (const [index, ids] of inputs) {
		const original = messages[index] as Assistant;
		const message = withoutInputs(original, ids);
		(output as Message[])[index] = message;
		ctx.inheritSource(message, original);
	}
	return output ?? messages;
}

/** Said while the trigger holds: orphans left as they are, and a `keep` larger than the trigger. */
function reportNotices(plan: ClearPlan, settings: ClearSettings, ctx: HookContext): void {
	const { orphans } = plan;
	if (orphans.length > 0) {
		const shown = orphans.slice(0, 5).join(", ") + (orphans.length > 5 ? ", …" : "");
		ctx.report(
			new ConversionError(
				`clearToolResults: ${orphans.length} tool result${orphans.length === 1 ? " answers" : "s answer"} no earlier tool call (output message${orphans.length === 1 ? "" : "s"} ${shown}). ${orphans.length === 1 ? "It is" : "They are"} sent as pi sends ${orphans.length === 1 ? "it" : "them"}, never cleared and not counted by keep (LangChain's ClearToolUsesEdit deletes them); a provider may refuse such a request.`,
				{ plugin: CLEAR_TOOL_RESULTS_PLUGIN },
			),
		);
	}
	if (settings.keepNotice !== undefined)
		ctx.report(
			new ConversionError(`clearToolResults: ${settings.keepNotice}.`, { plugin: CLEAR_TOOL_RESULTS_PLUGIN }),
		);
}
