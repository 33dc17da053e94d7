/**
 * `estimateTokens`: pi's own chars/4 token estimate of one converted message (pi 1.x's rules), the default counter
 * of every filter that counts.
 */
import type { Message } from "@earendil-works/pi-ai";
import { isRecord } from "../values.js";

/** The characters pi counts for one image (1,200 tokens). */
export const IMAGE_CHARS = 4800;

/**
 * The tokens of one converted message as pi estimates them: pi-coding-agent's `estimateTokens`
 * (`core/compaction`), the estimate its compaction and its footer use: characters / 4, rounded up.
 *
 * Contract: pi 1.x's rules, a superset of 0.73.1's: text, thinking, a tool call's name and
 * `JSON.stringify(arguments)`, a tool result's text; an image counts {@link IMAGE_CHARS} characters
 * in `user` and `toolResult` messages (0.73.1 counted user images as 0); a `system` message counts
 * its text, every section that is not `null` and `JSON.stringify(toolsAdded)`. Never throws: a
 * message it cannot read counts `Infinity` (it never fits a budget), as does a tool call whose
 * arguments cannot be serialized.
 *
 * @example
 * estimateTokens({ role: "user", content: "Hello, pi!", timestamp: 0 }); // 3
 */
export function estimateTokens(message: Message): number {
	try {
		return Math.ceil(messageChars(message) / 4);
	} catch {
		return Number.POSITIVE_INFINITY;
	}
}

function messageChars(message: Message): number {
	const role: unknown = message.role;
	if (role === "assistant") return assistantChars(message.content);
	if (role === "user" || role === "toolResult") return textAndImageChars(message.content);
	if (role === "system") return systemChars(message as unknown as Record<string, unknown>);
	return 0;
}

function textAndImageChars(content: unknown): number {
	if (typeof content === "string") return content.length;
	if (!Array.isArray(content)) return 0;
	let chars = 0;
	for (const block of content) {
		if (!isRecord(block)) continue;
		if (block.type === "text" && typeof block.text === "string") chars += block.text.length;
		else if (block.type === "image") chars += IMAGE_CHARS;
	}
	return chars;
}

function assistantChars(content: unknown): number {
	if (!Array.isArray(content)) return 0;
	let chars = 0;
	for (const block of content) {
		if (!isRecord(block)) continue;
		if (block.type === "text" && typeof block.text === "string") chars += block.text.length;
		else if (block.type === "thinking" && typeof block.thinking === "string") chars += block.thinking.length;
		else if (block.type === "toolCall") chars += String(block.name ?? "").length + jsonLength(block.arguments);
	}
	return chars;
}

function systemChars(message: Record<string, unknown>): number {
	let chars = textAndImageChars(message.content);
	const sections = message.sections;
	if (isRecord(sections))
		for (const value of Object.values(sections)) if (typeof value === "string") chars += value.length;
	if (message.toolsAdded !== undefined) chars += jsonLength(message.toolsAdded);
	return chars;
}

/** `JSON.stringify(value).length`; a value JSON cannot write (a cycle, a BigInt) never fits. */
function jsonLength(value: unknown): number {
	const json = JSON.stringify(value) as string | undefined;
	return json === undefined ? 0 : json.length;
}
