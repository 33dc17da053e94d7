/**
 * The app roles of a pi history, their text constants and factories.
 *
 * Mirrors pi-coding-agent 0.73.1 `src/core/messages.ts` field for field, so a history written by pi
 * type-checks and converts the same way here.
 */
import type { ImageContent, Message, TextContent } from "@earendil-works/pi-ai";
import { InvalidMessageError } from "./errors.js";

/**
 * The roles of pi-ai's `Message`: what the model understands as it is, and the only roles a converter
 * or a post-conversion tap may produce.
 *
 * Contract: `user`, `assistant` and `toolResult` (every pi line), then `system` (pi-ai 0.86 and later:
 * the system prompt, its section patches and the tool declarations travel as `system` messages in the
 * history). A 0.73.1 history never holds a `system` message, so accepting the role changes nothing
 * there.
 */
export const MODEL_ROLES = Object.freeze(["user", "assistant", "toolResult", "system"] as const);

/** One of {@link MODEL_ROLES}. */
export type ModelRole = (typeof MODEL_ROLES)[number];

const MODEL_ROLE_SET: ReadonlySet<unknown> = new Set(MODEL_ROLES);

/** Whether `role` is one of pi-ai's `Message` roles ({@link MODEL_ROLES}). */
export function isModelRole(role: unknown): role is ModelRole {
	return MODEL_ROLE_SET.has(role);
}

/** Whether `value` is an object with one of pi-ai's `Message` roles. Never throws. */
export function isModelMessage(value: unknown): value is Message {
	try {
		return value !== null && typeof value === "object" && isModelRole((value as { role?: unknown }).role);
	} catch {
		return false;
	}
}

/**
 * The type of `BranchSummaryMessage.fromId` in the pi line whose types are in use: `string` for
 * `@mariozechner` 0.73.1, `string | null` for pi 1.x (pi 0.84.3 records `null` for a summary of the
 * root). Told apart by the line's `Message`: only pi 1.x has `system` messages. Matching pi's own
 * declaration keeps pi-coding-agent's augmentation of `CustomAgentMessages` compatible with ours.
 */
export type BranchSummaryFromId = "system" extends Message["role"] ? string | null : string;

/** Opens a compaction summary in the model's context. Byte-identical to pi 0.73.1. */
export const COMPACTION_SUMMARY_PREFIX = `The conversation history before this point was compacted into the following summary:

<summary>
`;
/** Closes a compaction summary. Starts with a newline (unlike {@link BRANCH_SUMMARY_SUFFIX}). */
export const COMPACTION_SUMMARY_SUFFIX = `
</summary>`;
/** Opens a branch summary in the model's context. Byte-identical to pi 0.73.1. */
export const BRANCH_SUMMARY_PREFIX = `The following is a summary of a branch that this conversation came back from:

<summary>
`;
/** Closes a branch summary. Has no leading newline (unlike {@link COMPACTION_SUMMARY_SUFFIX}). */
export const BRANCH_SUMMARY_SUFFIX = `</summary>`;

/**
 * A shell command the user ran with `!` (or `!!`) in pi.
 *
 * Contract: converted to one `user` message whose only block is {@link bashExecutionToText};
 * dropped when `excludeFromContext` is truthy (the `!!` prefix).
 *
 * @example
 * const run: BashExecutionMessage = {
 *   role: "bashExecution", command: "ls", output: "a.txt", exitCode: 0,
 *   cancelled: false, truncated: false, timestamp: Date.now(),
 * };
 */
export interface BashExecutionMessage {
	role: "bashExecution";
	command: string;
	output: string;
	exitCode: number | undefined;
	cancelled: boolean;
	truncated: boolean;
	fullOutputPath?: string;
	timestamp: number;
	/** If true, this message is excluded from LLM context (!! prefix) */
	excludeFromContext?: boolean;
}

/**
 * A message an extension injected (pi's `sendMessage()`).
 *
 * Contract: converted to one `user` message; string content becomes a single text block, array
 * content is passed on as the same array (not copied). No published pi version has an
 * `excludeFromContext` flag on custom messages (pi sends them all); the opt-in
 * `excludeCustomMessages()` plugin of `convert-to-llm/hooks` drops those that carry one.
 * `customType` names the extension that owns it; a converter registered with `{ customType }`
 * handles only that type.
 *
 * @example
 * const note = createCustomMessage("my-ext", "Build is green", true, { runId: 7 }, new Date());
 */
export interface CustomMessage<T = unknown> {
	role: "custom";
	customType: string;
	content: string | (TextContent | ImageContent)[];
	display: boolean;
	details?: T;
	timestamp: number;
}

/**
 * The summary of a branch the conversation came back from.
 *
 * Contract: converted to one `user` text block `BRANCH_SUMMARY_PREFIX + summary + BRANCH_SUMMARY_SUFFIX`.
 *
 * @example
 * const back: BranchSummaryMessage = {
 *   role: "branchSummary", summary: "Tried Date.parse: it accepts 2025-02-30", fromId: "a1b2c3d4", timestamp: Date.now(),
 * };
 */
export interface BranchSummaryMessage {
	role: "branchSummary";
	summary: string;
	fromId: BranchSummaryFromId;
	timestamp: number;
}

/**
 * The summary that replaces compacted history.
 *
 * Contract: converted to one `user` text block `COMPACTION_SUMMARY_PREFIX + summary + COMPACTION_SUMMARY_SUFFIX`.
 *
 * @example
 * const compacted: CompactionSummaryMessage = {
 *   role: "compactionSummary", summary: "## Goal\nFix parseDue", tokensBefore: 48_000, timestamp: Date.now(),
 * };
 */
export interface CompactionSummaryMessage {
	role: "compactionSummary";
	summary: string;
	tokensBefore: number;
	timestamp: number;
}

declare module "@earendil-works/pi-agent-core" {
	interface CustomAgentMessages {
		bashExecution: BashExecutionMessage;
		custom: CustomMessage;
		branchSummary: BranchSummaryMessage;
		compactionSummary: CompactionSummaryMessage;
	}
}

/**
 * The text the model sees for a bash execution. Byte-identical to pi 0.73.1.
 *
 * Contract: `Ran \`command\`` then the output in a ``` fence, or `(no output)` when the output is
 * empty; `(command cancelled)` when cancelled, otherwise the exit code when it is a number other than
 * 0; the truncation note only when both `truncated` and `fullOutputPath` are set.
 *
 * @example
 * bashExecutionToText({ role: "bashExecution", command: "false", output: "", exitCode: 1,
 *   cancelled: false, truncated: false, timestamp: 0 });
 * // "Ran `false`\n(no output)\n\nCommand exited with code 1"
 */
export function bashExecutionToText(msg: BashExecutionMessage): string {
	let text = `Ran \`${msg.command}\`\n`;
	if (msg.output) {
		text += `\`\`\`\n${msg.output}\n\`\`\``;
	} else {
		text += "(no output)";
	}
	return text + bashStatusText(msg);
}

/**
 * What pi appends after a bash run's output: `(command cancelled)`, or the exit code when it is a
 * number other than 0; then the truncation note when both `truncated` and `fullOutputPath` are set.
 * Shared by {@link bashExecutionToText} and `safeFences()`.
 */
export function bashStatusText(msg: BashExecutionMessage): string {
	let text = "";
	if (msg.cancelled) {
		text += "\n\n(command cancelled)";
	} else if (msg.exitCode !== null && msg.exitCode !== undefined && msg.exitCode !== 0) {
		text += `\n\nCommand exited with code ${msg.exitCode}`;
	}
	if (msg.truncated && msg.fullOutputPath) {
		text += `\n\n[Output truncated. Full output: ${msg.fullOutputPath}]`;
	}
	return text;
}

/** What the factories accept as a timestamp: an ISO 8601 string (as pi stores), epoch milliseconds or a `Date`. */
export type TimestampInput = string | number | Date;

/**
 * Epoch milliseconds for a factory timestamp, as pi computes them (`new Date(t).getTime()`).
 * Throws instead of returning `NaN`, which would otherwise travel silently into the model request.
 */
function toEpochMs(timestamp: TimestampInput, factory: string, role: string): number {
	const ms = new Date(timestamp).getTime();
	if (Number.isNaN(ms)) {
		const shown = typeof timestamp === "string" ? JSON.stringify(timestamp) : String(timestamp);
		throw new InvalidMessageError(
			`${factory}: timestamp ${shown} is not a valid date. Pass an ISO 8601 string (e.g. "2025-01-31T12:00:00.000Z"), epoch milliseconds or a valid Date.`,
			{ role },
		);
	}
	return ms;
}

/**
 * Builds a {@link BranchSummaryMessage}, as pi does for a `branch_summary` session entry.
 *
 * Contract: a new message with pi's fields in pi's order; `summary` and `fromId` are kept as given;
 * `timestamp` becomes epoch milliseconds as pi computes them (`new Date(timestamp).getTime()`). An
 * invalid date throws (with `role` set) instead of sending `NaN` to the model.
 *
 * @throws {InvalidMessageError} when `timestamp` is not a valid date.
 * @example
 * createBranchSummaryMessage("Tried X, it failed", "a1b2c3d4", "2025-01-31T12:00:00.000Z");
 */
export function createBranchSummaryMessage(
	summary: string,
	fromId: string,
	timestamp: TimestampInput,
): BranchSummaryMessage {
	return {
		role: "branchSummary",
		summary,
		fromId,
		timestamp: toEpochMs(timestamp, "createBranchSummaryMessage", "branchSummary"),
	};
}

/**
 * Builds a {@link CompactionSummaryMessage}, as pi does for a `compaction` session entry.
 *
 * Contract: as {@link createBranchSummaryMessage}: a new message with pi's fields in pi's order,
 * `summary` and `tokensBefore` kept as given, `timestamp` in epoch milliseconds; an invalid date throws.
 *
 * @throws {InvalidMessageError} when `timestamp` is not a valid date.
 * @example
 * createCompactionSummaryMessage("We refactored the parser", 48_000, "2025-01-31T12:00:00.000Z");
 */
export function createCompactionSummaryMessage(
	summary: string,
	tokensBefore: number,
	timestamp: TimestampInput,
): CompactionSummaryMessage {
	return {
		role: "compactionSummary",
		summary,
		tokensBefore,
		timestamp: toEpochMs(timestamp, "createCompactionSummaryMessage", "compactionSummary"),
	};
}

/**
 * Builds a {@link CustomMessage}, as pi does for a `custom_message` session entry.
 *
 * Contract: as {@link createBranchSummaryMessage}: a new message with pi's fields in pi's order
 * (`details` is present even when `undefined`), `timestamp` in epoch milliseconds; `content` is kept
 * as given, an array not copied. An invalid date throws.
 *
 * @throws {InvalidMessageError} when `timestamp` is not a valid date.
 * @example
 * createCustomMessage("todo-ext", "3 todos open", true, undefined, "2025-01-31T12:00:00.000Z");
 */
export function createCustomMessage<T = unknown>(
	customType: string,
	content: string | (TextContent | ImageContent)[],
	display: boolean,
	details: T | undefined,
	timestamp: TimestampInput,
): CustomMessage<T> {
	return {
		role: "custom",
		customType,
		content,
		display,
		details,
		timestamp: toEpochMs(timestamp, "createCustomMessage", "custom"),
	};
}
