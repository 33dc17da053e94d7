/**
 * The terminal view: one block per model message (role, a folded preview, images marked), then a
 * footer with counts per role, characters and an estimated token count.
 */
import type { Message } from "@mariozechner/pi-ai";
import { type Style, sanitize } from "./style.js";

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
	/** Where each output came from (`bashExecution a1b2c3d4`), shown after its role. */
	sources?: readonly (string | undefined)[];
}

interface Line {
	text: string;
	paint?: (text: string) => string;
}

type Block = { type: string; [key: string]: unknown };

/** The blocks of `messages`, each with its index (as in `--json`). */
export function renderMessages(messages: readonly Message[], view: ViewOptions): string[] {
	const out: string[] = [];
	for (let i = 0; i < messages.length; i++) {
		const message = messages[i] as Message;
		const source = view.sources?.[i];
		const from = source === undefined ? "" : view.style.dim(` ← ${source}`);
		out.push(`${view.style.bold(`#${i}`)} ${roleLabel(message.role, view.style)}${from}${meta(message, view.style)}`);
		const body = fold(bodyLines(message, view.style), view.style);
		for (const line of body) out.push(`   ${cut(line.text, view.width - 3, line.paint)}`);
	}
	return out;
}

/** Counts for the footer. */
export interface Totals {
	byRole: Map<string, number>;
	chars: number;
	images: number;
	tokens: number;
}

/** Counts per role, characters, images and pi's chars/4 token estimate (an image counted as 1,200 tokens). */
export function totals(messages: readonly Message[]): Totals {
	const byRole = new Map<string, number>();
	let chars = 0;
	let images = 0;
	let tokens = 0;
	for (const message of messages) {
		byRole.set(message.role, (byRole.get(message.role) ?? 0) + 1);
		let messageChars = 0;
		let messageImages = 0;
		for (const block of blocksOf(message)) {
			if (!isBlock(block)) continue;
			if (block.type === "image") messageImages++;
			else messageChars += blockText(block).length;
		}
		chars += messageChars;
		images += messageImages;
		tokens += Math.ceil((messageChars + messageImages * IMAGE_CHARS) / 4);
	}
	return { byRole, chars, images, tokens };
}

/** The footer: `── N model messages …`. */
export function renderFooter(messages: readonly Message[], inputCount: number, style: Style): string[] {
	const { byRole, chars, images, tokens } = totals(messages);
	const roles = [...byRole].map(([role, count]) => `${count} ${sanitize(role)}`).join(" · ");
	const plural = (n: number, word: string) => `${format(n)} ${word}${n === 1 ? "" : "s"}`;
	const imageText = images === 0 ? "" : ` · ${plural(images, "image")}`;
	return [
		style.bold(
			`── ${plural(messages.length, "model message")} from ${plural(inputCount, "history message")}${roles === "" ? "" : `: ${roles}`}`,
		),
		`   ${plural(chars, "character")}${imageText} · ~${plural(tokens, "token")} ${style.dim("(chars/4 as pi estimates, 1,200 per image)")}`,
	];
}

export const format = (n: number): string => n.toLocaleString("en-US");

function roleLabel(role: unknown, style: Style): string {
	if (role === "user") return style.green(role);
	if (role === "assistant") return style.cyan(role);
	if (role === "toolResult") return style.yellow(role);
	return style.magenta(sanitize(role));
}

function meta(message: Message, style: Style): string {
	const parts: string[] = [];
	if (message.role === "assistant") {
		parts.push(`${sanitize(message.provider)}/${sanitize(message.model)}`, sanitize(message.stopReason));
	} else if (message.role === "toolResult") {
		parts.push(sanitize(message.toolName));
		if (message.isError) parts.push(style.red("error"));
	}
	const chars = totals([message]).chars;
	parts.push(`${format(chars)} chars`);
	return style.dim(` · ${parts.join(" · ")}`);
}

/** The items of `content`: blocks, or anything else a plugin or a hand-written history put there. */
function blocksOf(message: Message): readonly unknown[] {
	const content = (message as { content?: unknown }).content;
	if (typeof content === "string") return [{ type: "text", text: content }];
	return Array.isArray(content) ? content : [];
}

const isBlock = (value: unknown): value is Block => value !== null && typeof value === "object";

function blockText(block: Block): string {
	if (block.type === "text") return String(block.text ?? "");
	if (block.type === "thinking") return String(block.thinking ?? "");
	if (block.type === "toolCall") return String(block.name) + JSON.stringify(block.arguments ?? {});
	return "";
}

function bodyLines(message: Message, style: Style): Line[] {
	const lines: Line[] = [];
	const push = (text: string, paint?: (text: string) => string) => {
		for (const line of text.split("\n")) lines.push({ text: sanitize(line), paint });
	};
	for (const block of blocksOf(message)) {
		if (!isBlock(block)) push(`[${block === null ? "null" : typeof block} block]`, style.dim);
		else if (block.type === "text") push(String(block.text ?? ""));
		else if (block.type === "thinking") push(`[thinking] ${String(block.thinking ?? "")}`, style.dim);
		else if (block.type === "toolCall")
			push(`→ ${String(block.name)} ${JSON.stringify(block.arguments ?? {})}`, style.blue);
		else if (block.type === "image")
			push(`[image ${String(block.mimeType)} · ${imageSize(block.data)}]`, style.magenta);
		else push(`[${String(block.type)} block]`, style.dim);
	}
	if (message.role === "assistant" && message.errorMessage) push(`[error] ${message.errorMessage}`, style.red);
	if (lines.length === 0) lines.push({ text: "(no content)", paint: style.dim });
	return lines;
}

/** Long bodies show their first and last lines around a fold that tells how much is hidden. */
function fold(lines: Line[], style: Style): Line[] {
	if (lines.length <= HEAD + TAIL + 1) return lines;
	const hidden = lines.slice(HEAD, lines.length - TAIL);
	const chars = hidden.reduce((sum, line) => sum + line.text.length, 0);
	return [
		...lines.slice(0, HEAD),
		{ text: `⋯ ${format(hidden.length)} more lines (${format(chars)} chars) ⋯`, paint: style.dim },
		...lines.slice(lines.length - TAIL),
	];
}

function cut(text: string, width: number, paint?: (text: string) => string): string {
	let shown = text;
	if (text.length > width) {
		shown = text.slice(0, Math.max(1, width - 1));
		// Never split a surrogate pair.
		const last = shown.charCodeAt(shown.length - 1);
		if (last >= 0xd800 && last <= 0xdbff) shown = shown.slice(0, -1);
		shown += "…";
	}
	return paint === undefined ? shown : paint(shown);
}

function imageSize(data: unknown): string {
	if (typeof data !== "string") return "no data";
	const bytes = Math.floor((data.length * 3) / 4);
	return bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KB`;
}
