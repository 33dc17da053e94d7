/**
 * Where `clearToolResults` puts the cleared boundary: a replay of the requests the history records.
 *
 * Each assistant message answers a request made of the messages before it; the request being built
 * now is the whole output. Walking them in order with the same rules gives the same boundary for the
 * same history every time (after a restart too), so a request repeats the previous one's cleared
 * form byte for byte until the boundary moves, and it moves only in steps of `clearAtLeast` tokens.
 */

import type { Message } from "@earendil-works/pi-ai";
import { ConversionError } from "../errors.js";
import type { HookContext } from "../registry/types.js";
import { errorText, isRecord } from "../values.js";
import { CLEAR_TOOL_RESULTS_PLUGIN, type ClearSettings } from "./clear-tool-results-options.js";
import { contentSize, readsAsCleared } from "./clear-tool-results-placeholder.js";
import { countEach } from "./token-counts.js";

/** A tool result that answers a call of an earlier assistant message: one LangChain candidate. */
export interface Candidate {
	/** Its index in the output. */
	readonly index: number;
	/** The index of the nearest earlier assistant message that holds its call. */
	readonly assistant: number;
	/** That call's block (the first of that message with the result's `toolCallId`). */
	readonly call: Record<string, unknown>;
	/** The result's `toolName`, else its call's `name` (LangChain's `name || toolCall.name`). */
	readonly tool: unknown;
	/** Whether clearing would change it: not of an excluded tool, not cleared already, something to clear. */
	readonly eligible: boolean;
}

/** What the replay decided for the whole output. */
export interface ClearPlan {
	readonly candidates: readonly Candidate[];
	/** Candidates with an ordinal below this one are cleared (those eligible). */
	readonly boundary: number;
	/** Whether the trigger holds for the request being built (the whole output). */
	readonly triggered: boolean;
	/** Output indices of tool results that answer no earlier call: left as they are. */
	readonly orphans: readonly number[];
}

/** The tokens clearing a candidate saves (its inputs too, with `clearToolInputs`); 0 when not eligible. */
export type Savings = (candidate: Candidate) => number;

const ASSISTANT = 0;
const USER = 1;
const RESULT = 2;
const OTHER = 3;

/** Each message's tokens by the counter; a bad count or a throw is `Infinity`, reported once. */
export function countTokens(messages: readonly Message[], settings: ClearSettings, ctx: HookContext): number[] {
	return countEach(messages, settings.tokenCounter, (failure, i, cause) =>
		ctx.report(
			new ConversionError(
				`clearToolResults: the token counter ${failure} for output message ${i}. That message counts as infinitely large (the trigger holds; a result counted so is cleared first); fix the counter.`,
				{ plugin: CLEAR_TOOL_RESULTS_PLUGIN, cause },
			),
		),
	);
}

/**
 * Reads roles, calls and results: the candidates (LangChain's, with their calls) and the orphans.
 * A message that cannot be read (a throwing getter) counts as neither and is reported.
 */
function readMessages(
	messages: readonly Message[],
	settings: ClearSettings,
	ctx: HookContext,
): { roles: Uint8Array; candidates: Candidate[]; orphans: number[] } {
	const roles = new Uint8Array(messages.length);
	const candidates: Candidate[] = [];
	const orphans: number[] = [];
	const calls = new Map<unknown, { assistant: number; call: Record<string, unknown> }>();
	let reported = false;
	for (let i = 0; i < messages.length; i++) {
		const message = messages[i] as Message;
		try {
			const role: unknown = message.role;
			if (role === "assistant") {
				roles[i] = ASSISTANT;
				const content: unknown = message.content;
				if (!Array.isArray(content)) continue;
				const seen = new Set<unknown>();
				for (const block of content) {
					if (!isRecord(block) || block.type !== "toolCall" || seen.has(block.id)) continue;
					seen.add(block.id);
					calls.set(block.id, { assistant: i, call: block });
				}
			} else if (role === "user") roles[i] = USER;
			else if (role === "toolResult") {
				roles[i] = RESULT;
				const result = message as Message & { role: "toolResult" };
				const found = calls.get(result.toolCallId);
				if (found === undefined) {
					orphans.push(i);
					continue;
				}
				const tool = result.toolName || found.call.name;
				const content: unknown = result.content;
				const nothingToClear = settings.keepImages && contentSize(content).chars === 0;
				const eligible =
					!(typeof tool === "string" && settings.excludeTools.has(tool)) &&
					!readsAsCleared(content, settings.placeholder) &&
					!nothingToClear;
				candidates.push({ index: i, assistant: found.assistant, call: found.call, tool, eligible });
			} else roles[i] = OTHER;
		} catch (cause) {
			roles[i] = OTHER;
			if (!reported) {
				reported = true;
				ctx.report(
					new ConversionError(
						`clearToolResults: output message ${i} could not be read: ${errorText(cause)}. It is sent as it is and never cleared; fix what put it in the history.`,
						{ plugin: CLEAR_TOOL_RESULTS_PLUGIN, cause },
					),
				);
			}
		}
	}
	return { roles, candidates, orphans };
}

/** A request's time: a finite number of milliseconds, else unknown. */
function timeOf(message: Message): number | undefined {
	try {
		const time: unknown = message.timestamp;
		return typeof time === "number" && Number.isFinite(time) ? time : undefined;
	} catch {
		return undefined;
	}
}

/** The clock's time now; a throw or a value that is not a finite number is unknown (the cache counts as warm). */
function readClock(now: () => number): number | undefined {
	try {
		const time: unknown = now();
		return typeof time === "number" && Number.isFinite(time) ? time : undefined;
	} catch {
		return undefined;
	}
}

/**
 * Replays the requests of the output (one before each assistant message, then the whole output)
 * and returns where the cleared boundary stands for the last one.
 *
 * Contract: at each request, the trigger is judged on the request as the history has it (every
 * message, orphans included, nothing cleared), as LangChain judges it. The target is every candidate
 * but the kept ones and those after the request's last `user` message; the boundary moves to the
 * target when the eligible results between them save at least `clearAtLeast` tokens (and, with
 * `when: "cache-cold"`, the previous request is older than the cache lifetime). With
 * `clearAtLeast: 0` and `when: "always"` the boundary is the last request's target: LangChain's.
 * Linear: each message is counted once, each candidate's savings at most once.
 */
export function planClearing(
	messages: readonly Message[],
	tokens: readonly number[],
	settings: ClearSettings,
	savings: Savings,
	ctx: HookContext,
): ClearPlan {
	const { roles, candidates, orphans } = readMessages(messages, settings, ctx);
	const { triggers, keepMessages, keepTokens, clearAtLeast, when, cacheLifetimeMs } = settings;
	const n = messages.length;
	let total = 0; // tokens of the request so far
	let seen = 0; // candidates in the request so far
	let beforeUser = 0; // candidates before its last user message
	let keepStart = 0; // keep { tokens }: the first candidate of the longest run at the end that fits
	let keepSum = 0;
	let boundary = 0;
	let pending = 0; // the savings of candidates [boundary, pendingTo)
	let pendingTo = 0;
	let previous: number | undefined; // the previous request's time
	let first = true;
	let triggered = false;
	for (let i = 0; i <= n; i++) {
		if (i === n || roles[i] === ASSISTANT) {
			const time =
				when === "always" ? undefined : i === n ? readClock(settings.now) : timeOf(messages[i] as Message);
			triggered = triggers.some(
				(t) => (t.tokens === undefined || total >= t.tokens) && (t.messages === undefined || i >= t.messages),
			);
			const kept = keepMessages ?? seen - keepStart;
			const target = Math.min(Math.max(0, seen - kept), beforeUser);
			if (triggered && target > boundary) {
				if (clearAtLeast > 0)
					for (; pendingTo < target; pendingTo++) pending += savings(candidates[pendingTo] as Candidate);
				const cold = first || (time !== undefined && previous !== undefined && time - previous > cacheLifetimeMs);
				if (pending >= clearAtLeast && (when === "always" || cold)) {
					boundary = target;
					pending = 0;
					pendingTo = target;
				}
			}
			if (i < n) {
				previous = time;
				first = false;
			}
		}
		if (i === n) break;
		total += tokens[i] as number;
		if (roles[i] === USER) beforeUser = seen;
		else if (roles[i] === RESULT && candidates[seen]?.index === i) {
			if (keepTokens !== undefined) {
				const t = tokens[i] as number;
				if (!Number.isFinite(t)) {
					keepStart = seen + 1;
					keepSum = 0;
				} else {
					keepSum += t;
					while (keepSum > keepTokens && keepStart <= seen)
						keepSum -= tokens[(candidates[keepStart++] as Candidate).index] as number;
				}
			}
			seen++;
		}
	}
	return { candidates, boundary, triggered, orphans };
}
