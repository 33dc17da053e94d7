/**
 * The texts a provider receives of one message beyond its single strings: its text (and thinking)
 * blocks joined as pi-ai's providers join them, a system message rendered with its sections, and
 * each tool call's arguments and each tool declaration as their JSON text. A secret split across
 * two blocks, or a key and its value in a tool call's arguments, is whole only there.
 */
import { isRecord } from "../values.js";
import { jsonText } from "./json-text.js";
import { type MappedText, MappedTextBuilder } from "./mapped-text.js";

/**
 * A composed text, and the way to map it back to the message's strings, built only when asked
 * (most composed texts hold no secret, and are known by their text alone).
 */
export interface ProviderText {
	readonly text: string;
	/** The text mapped back to its strings; its `text` is {@link ProviderText.text} unless a getter answered differently. */
	mapped(): MappedText;
}

/**
 * How pi-ai's providers join a message's text blocks: `""` (openai-completions and Mistral, an
 * assistant's text), `"\n"` (Anthropic's and Google's tool results, thinking), `"\n\n"` (thinking as
 * text, a system message's parts).
 */
export const JOINS: readonly string[] = Object.freeze(["", "\n", "\n\n"]);

/**
 * The composed texts of `message`, each with the way back to the message's strings.
 *
 * Contract: for a content array with two or more text blocks, their texts joined by each of
 * {@link JOINS} (other blocks between them left out); the same for thinking blocks; for a system
 * message with sections, its content (text blocks joined by `"\n"`) and its sections joined by
 * `"\n\n"` (pi-ai's `getSystemMessageText`); the JSON text of every tool call's `arguments` and of
 * every declared tool (`toolsAdded`). A single string is not repeated here (it is scanned as
 * itself). Throws where the message cannot be read (a throwing getter, a cycle in the arguments).
 *
 * @example
 * providerTexts({ role: "user", content: [{ type: "text", text: "sk_live_51Ab" }, { type: "text", text: "Cd…" }], timestamp: 0 })
 *   .map((t) => t.text); // ["sk_live_51AbCd…", "sk_live_51Ab\nCd…", "sk_live_51Ab\n\nCd…"]
 */
export function providerTexts(message: unknown): ProviderText[] {
	if (!isRecord(message)) return NO_TEXTS;
	const content = message.content;
	// Most messages compose nothing: a string content, or a single block.
	if (message.role !== "system" && (!Array.isArray(content) || (content.length < 2 && !hasToolCall(content))))
		return NO_TEXTS;
	const out: ProviderText[] = [];
	if (Array.isArray(content)) {
		const texts: string[] = [];
		const thinking: string[] = [];
		for (const block of content) {
			if (!isRecord(block)) continue;
			if (block.type === "text" && typeof block.text === "string") texts.push(block.text);
			else if (block.type === "thinking" && typeof block.thinking === "string") thinking.push(block.thinking);
			else if (block.type === "toolCall") pushJson(out, block.arguments);
		}
		for (const strings of [texts, thinking])
			if (strings.length > 1)
				for (const separator of JOINS)
					out.push({ text: strings.join(separator), mapped: () => joined(strings, separator) });
	}
	if (message.role === "system") {
		const system = systemText(message);
		if (system !== undefined) out.push({ text: system.text, mapped: () => system });
		const tools = message.toolsAdded;
		if (Array.isArray(tools)) for (const tool of tools) pushJson(out, tool);
	}
	return out;
}

const NO_TEXTS = Object.freeze([]) as unknown as ProviderText[];

function hasToolCall(content: readonly unknown[]): boolean {
	for (const block of content) if (isRecord(block) && block.type === "toolCall") return true;
	return false;
}

/** `value`'s JSON text (`JSON.stringify`'s own, fast), mapped by {@link jsonText} when asked. */
function pushJson(out: ProviderText[], value: unknown): void {
	const text: unknown = JSON.stringify(value);
	if (typeof text !== "string") return;
	out.push({ text, mapped: () => jsonText(value) ?? new MappedTextBuilder().build() });
}

function joined(strings: readonly string[], separator: string): MappedText {
	const builder = new MappedTextBuilder();
	for (let i = 0; i < strings.length; i++) {
		if (i > 0) builder.literal(separator);
		builder.source(strings[i] as string);
	}
	return builder.build();
}

/** A system message as pi-ai renders it, when it has two or more parts (one part is a string scanned as itself). */
function systemText(message: Record<string, unknown>): MappedText | undefined {
	const parts: (readonly string[])[] = [];
	const content = message.content;
	if (typeof content === "string") parts.push([content]);
	else if (Array.isArray(content))
		parts.push(
			content
				.filter((b) => isRecord(b) && b.type === "text" && typeof b.text === "string")
				.map((b) => b.text as string),
		);
	const sections = message.sections;
	if (isRecord(sections))
		for (const key of Object.keys(sections)) {
			const text = sections[key];
			if (typeof text === "string") parts.push([text]);
		}
	const nonEmpty = parts.filter((part) => part.some((text) => text.length > 0));
	if (nonEmpty.length < 2) return undefined;
	const builder = new MappedTextBuilder();
	for (let p = 0; p < nonEmpty.length; p++) {
		if (p > 0) builder.literal("\n\n");
		const part = nonEmpty[p] as readonly string[];
		for (let i = 0; i < part.length; i++) {
			if (i > 0) builder.literal("\n");
			builder.source(part[i] as string);
		}
	}
	return builder.build();
}
