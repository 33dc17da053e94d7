/**
 * The terminal view: one block per model message (role, a folded preview, images marked), then a
 * footer with counts per role, characters and an estimated token count.
 */
import type { Message } from "@earendil-works/pi-ai";
import { isNonTextBlock, isRecord, textOf } from "../values.js";
import { type Columns, fitLine } from "./columns.js";
import { label, type Style, type TextPart } from "./style.js";
import { isSystemMessage, systemChars, systemMeta, systemParts, toolCount, toolSchemaChars } from "./system-view.js";

/** Lines of a block shown before and after the fold. */
const HEAD = 6;
const TAIL = 2;
/** pi's compaction estimates an image as 4,800 characters (1,200 tokens). */
const IMAGE_CHARS = 4800;

/** How the view is laid out. */
export interface ViewOptions {
	style: Style;
	/** Columns available; longer lines are cut with `…`. */
	width: number;
	/** How the width of a line is measured and a line cut: terminal columns, not UTF-16 units. */
	columns: Columns;
	/** Where each output came from (`bashExecution a1b2c3d4`), shown after its role. */
	sources?: readonly (string | undefined)[];
	/** A note on each output, shown after its facts (`content replaced by context_edit 5e6f7a8b`). */
	notes?: readonly (string | undefined)[];
}

/** A part of a block's body is its text as the history has it: lines not yet split, control characters not yet shown. */

type Block = { type: string; [key: string]: unknown };

/** The blocks of `messages`, each with its index (as in `--json`); `counts` is `totals(messages)`. */
export function renderMessages(messages: readonly Message[], counts: Totals, view: ViewOptions): string[] {
	const out: string[] = [];
	const width = Math.max(1, view.width - 3);
	for (let i = 0; i < messages.length; i++) {
		const message = messages[i] as Message;
		const source = view.sources?.[i];
		const from = source === undefined ? "" : view.style.dim(` ← ${source}`);
		const note = view.notes?.[i];
		const meta = metaOf(message, i, counts.charsOf[i] ?? 0, view.style);
		const noted = note === undefined ? "" : view.style.yellow(` · ${note}`);
		out.push(`${view.style.bold(`#${i}`)} ${roleLabel(message.role, view.style)}${from}${meta}${noted}`);
		// Only the shown lines are made printable, and only as much of each as fits.
		for (const line of foldedLines(bodyParts(message, view.style), view.style)) {
			const shown = fitLine(line.text, width, view.columns);
			out.push(`   ${line.paint === undefined ? shown : line.paint(shown)}`);
		}
	}
	return out;
}

/** Counts for the message headers and the footer, from one pass over the messages. */
export interface Totals {
	messages: number;
	/** Messages per role, in the order the roles first appear. */
	byRole: Map<unknown, number>;
	chars: number;
	images: number;
	/** Tools declared by system messages (`toolsAdded`), and the characters of their schemas as JSON. */
	tools: number;
	toolChars: number;
	tokens: number;
	/** The characters of each message. */
	charsOf: number[];
}

/**
 * Counts per role, characters, images, tools and pi's chars/4 token estimate (an image counted as
 * 1,200 tokens; a system message's prompt text and sections as characters, its tool schemas as JSON
 * in the estimate only, as pi's `estimateTokens` counts them).
 */
export function totals(messages: readonly Message[]): Totals {
	const byRole = new Map<unknown, number>();
	const charsOf: number[] = new Array(messages.length);
	let chars = 0;
	let images = 0;
	let tools = 0;
	let toolChars = 0;
	let tokens = 0;
	for (let i = 0; i < messages.length; i++) {
		const message = messages[i] as Message;
		byRole.set(message.role, (byRole.get(message.role) ?? 0) + 1);
		let messageChars = 0;
		let messageImages = 0;
		let schemaChars = 0;
		if (isSystemMessage(message)) {
			messageChars = systemChars(message);
			schemaChars = toolSchemaChars(message);
			tools += toolCount(message);
		} else {
			const strict = sendsBlocksAsImages(message);
			for (const block of blocksOf(message)) {
				if (!isBlock(block)) continue;
				if (isImage(block, strict)) messageImages++;
				else messageChars += blockText(block).length;
			}
		}
		charsOf[i] = messageChars;
		chars += messageChars;
		images += messageImages;
		toolChars += schemaChars;
		tokens += Math.ceil((messageChars + messageImages * IMAGE_CHARS + schemaChars) / 4);
	}
	return { messages: messages.length, byRole, chars, images, tools, toolChars, tokens, charsOf };
}

/** The footer: `── N model messages …`; `counts` is `totals()` of the model messages. */
export function renderFooter(counts: Totals, inputCount: number, style: Style): string[] {
	const { byRole, chars, images, tools, toolChars, tokens } = counts;
	const roles = [...byRole].map(([role, count]) => `${format(count)} ${label(role)}`).join(" · ");
	const imageText = images === 0 ? "" : ` · ${plural(images, "image")}`;
	const toolText =
		tools === 0 ? "" : ` · ${plural(tools, "tool")} declared (${plural(toolChars, "schema character")})`;
	const how = `chars/4 as pi estimates, 1,200 per image${tools === 0 ? "" : ", tool schemas as JSON"}`;
	return [
		style.bold(
			`── ${plural(counts.messages, "model message")} from ${plural(inputCount, "history message")}${roles === "" ? "" : `: ${roles}`}`,
		),
		`   ${plural(chars, "character")}${imageText}${toolText} · ~${plural(tokens, "token")} ${style.dim(`(${how})`)}`,
	];
}

export const format = (n: number): string => n.toLocaleString("en-US");

/** `1 message`, `2 messages`, `1,200 tokens`: a count with its word, in the plural unless it is 1. */
export const plural = (n: number, word: string): string => `${format(n)} ${word}${n === 1 ? "" : "s"}`;

function roleLabel(role: unknown, style: Style): string {
	if (role === "user") return style.green(role);
	if (role === "assistant") return style.cyan(role);
	if (role === "toolResult") return style.yellow(role);
	if (role === "system") return style.blue(role);
	return style.magenta(label(role));
}

function metaOf(message: Message, index: number, chars: number, style: Style): string {
	const parts: string[] = [];
	if (isSystemMessage(message)) {
		const facts = systemMeta(message, index === 0);
		parts.push(facts[0] as string, plural(chars, "char"));
		for (let f = 1; f < facts.length; f++) parts.push(facts[f] as string);
		return style.dim(` · ${parts.join(" · ")}`);
	}
	if (message.role === "assistant") {
		parts.push(`${label(message.provider)}/${label(message.model)}`, label(message.stopReason));
	} else if (message.role === "toolResult") {
		parts.push(label(message.toolName));
		if (message.isError) parts.push(style.red("error"));
	}
	parts.push(plural(chars, "char"));
	return style.dim(` · ${parts.join(" · ")}`);
}

/** The items of `content`: blocks, or anything else a plugin or a hand-written history put there. */
function blocksOf(message: Message): readonly unknown[] {
	const content = (message as { content?: unknown }).content;
	if (typeof content === "string") return [{ type: "text", text: content }];
	return Array.isArray(content) ? content : [];
}

const isBlock = (value: unknown): value is Block => isRecord(value);

function blockText(block: Block): string {
	if (block.type === "text") return textOf(block.text ?? "");
	if (block.type === "thinking") return textOf(block.thinking ?? "");
	if (block.type === "toolCall") return textOf(block.name) + argumentsText(block.arguments);
	return "";
}

/**
 * Whether pi-ai's providers send each non-text block of this message as an image (`user` and
 * `toolResult`): the view then counts and shows such a block as the image the model receives, as
 * `blockImages({ strictImages: true })` and `lint` treat it, whatever its `type` says.
 */
const sendsBlocksAsImages = (message: Message): boolean => message.role === "user" || message.role === "toolResult";

const isImage = (block: Block, strict: boolean): boolean => block.type === "image" || (strict && isNonTextBlock(block));

function bodyParts(message: Message, style: Style): TextPart[] {
	if (isSystemMessage(message)) return systemParts(message, style);
	const parts: TextPart[] = [];
	const strict = sendsBlocksAsImages(message);
	for (const block of blocksOf(message)) {
		if (!isBlock(block)) parts.push({ text: `[${block === null ? "null" : typeof block} block]`, paint: style.dim });
		else if (block.type === "text") parts.push({ text: textOf(block.text ?? "") });
		else if (block.type === "thinking")
			parts.push({ text: `[thinking] ${textOf(block.thinking ?? "")}`, paint: style.dim });
		else if (block.type === "toolCall")
			parts.push({ text: `→ ${textOf(block.name)} ${argumentsText(block.arguments)}`, paint: style.blue });
		else if (isImage(block, strict)) {
			// A block typed otherwise ("Image", or none) is still sent as an image: say what it was.
			const typed =
				block.type === "image" ? "" : ` (type ${block.type === undefined ? "missing" : label(block.type)})`;
			parts.push({
				text: `[image${typed} ${textOf(block.mimeType)} · ${imageSize(block.data)}]`,
				paint: style.magenta,
			});
		} else parts.push({ text: `[${textOf(block.type)} block]`, paint: style.dim });
	}
	if (message.role === "assistant" && message.errorMessage) {
		parts.push({ text: `[error] ${textOf(message.errorMessage)}`, paint: style.red });
	}
	return parts;
}

/**
 * The lines of `parts`; a long body shows its first and last lines around a fold that tells how much
 * is hidden. Only the shown lines are cut out of the text: a multi-megabyte output is scanned for its
 * line breaks, never split.
 */
function foldedLines(parts: readonly TextPart[], style: Style): TextPart[] {
	if (parts.length === 0) return [{ text: "(no content)", paint: style.dim }];
	let count = 0;
	let chars = 0;
	for (const part of parts) {
		const breaks = countBreaks(part.text);
		count += breaks + 1;
		chars += part.text.length - breaks;
	}
	if (count <= HEAD + TAIL + 1) {
		const lines: TextPart[] = [];
		for (const part of parts)
			for (const text of firstLines(part.text, count)) lines.push({ text, paint: part.paint });
		return lines;
	}
	const head: TextPart[] = [];
	for (let p = 0; p < parts.length && head.length < HEAD; p++) {
		const part = parts[p] as TextPart;
		for (const text of firstLines(part.text, HEAD - head.length)) head.push({ text, paint: part.paint });
	}
	const tail: TextPart[] = [];
	for (let p = parts.length - 1; p >= 0 && tail.length < TAIL; p--) {
		const part = parts[p] as TextPart;
		for (const text of lastLines(part.text, TAIL - tail.length)) tail.push({ text, paint: part.paint });
	}
	tail.reverse();
	let hiddenChars = chars;
	for (const line of head) hiddenChars -= line.text.length;
	for (const line of tail) hiddenChars -= line.text.length;
	const fold = `⋯ ${format(count - HEAD - TAIL)} more lines (${plural(hiddenChars, "char")}) ⋯`;
	return [...head, { text: fold, paint: style.dim }, ...tail];
}

function countBreaks(text: string): number {
	let count = 0;
	for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) count++;
	return count;
}

/** The first `count` lines of `text` (fewer when it has fewer). */
function firstLines(text: string, count: number): string[] {
	const lines: string[] = [];
	let from = 0;
	while (lines.length < count) {
		const end = text.indexOf("\n", from);
		if (end === -1) {
			lines.push(text.slice(from));
			break;
		}
		lines.push(text.slice(from, end));
		from = end + 1;
	}
	return lines;
}

/** The last `count` lines of `text`, last first. */
function lastLines(text: string, count: number): string[] {
	const lines: string[] = [];
	let end = text.length;
	while (lines.length < count) {
		const start = end === 0 ? -1 : text.lastIndexOf("\n", end - 1);
		lines.push(text.slice(start + 1, end));
		if (start === -1) break;
		end = start;
	}
	return lines;
}

/**
 * A tool call's arguments as JSON, as the view shows and counts them: `{}` when there are none, and
 * the arguments' text when they cannot be written as JSON (a bigint or a throwing `toJSON` a plugin
 * put there, or nesting too deep).
 */
function argumentsText(value: unknown): string {
	try {
		return JSON.stringify(value ?? {}) ?? textOf(value);
	} catch {
		return textOf(value);
	}
}

function imageSize(data: unknown): string {
	if (typeof data !== "string") return "no data";
	const bytes = Math.floor((data.length * 3) / 4);
	return bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KB`;
}
