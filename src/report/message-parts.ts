/**
 * The body of a message as the report shows it: its blocks as parts (text, thinking, a tool call, an
 * image with its thumbnail, a section of a system message), every string already made safe to show
 * ({@link pageText}). Works on model messages and on history messages of any role, and never throws:
 * a plugin or a hand-written history may put anything in a message.
 */
import { isNonTextBlock, isRecord } from "../values.js";
import { createStyle } from "../view/style.js";
import { isSystemMessage, systemParts } from "../view/system-view.js";
import { pageLabel, pageText } from "./page-text.js";
import type { ReportPart } from "./report-types.js";

export type { ReportPart } from "./report-types.js";

/** Image types the page shows as a thumbnail; any other is described, not embedded. */
const IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);
/** The largest image (base64 characters) embedded as a thumbnail. */
const MAX_IMAGE = 2_000_000;
const PLAIN = createStyle(false);

/** The parts of `message`; `sentAsImages`: each non-text block is an image (pi-ai's user and toolResult). */
export function messageParts(message: unknown, sentAsImages: boolean): ReportPart[] {
	try {
		return partsOf(message, sentAsImages);
	} catch {
		return [{ kind: "note", text: "[a message that cannot be read]" }];
	}
}

function partsOf(message: unknown, sentAsImages: boolean): ReportPart[] {
	if (!isRecord(message)) return [{ kind: "note", text: `[${message === null ? "null" : typeof message}]` }];
	if (isSystemMessage(message)) {
		return systemParts(message, PLAIN).map((part) => ({
			kind: part.text.startsWith("§ ") ? "section" : "text",
			text: pageText(part.text),
		}));
	}
	const parts: ReportPart[] = [];
	const content = message.content;
	if (typeof content === "string") parts.push({ kind: "text", text: pageText(content) });
	else if (Array.isArray(content)) for (const block of content) parts.push(blockPart(block, sentAsImages));
	else for (const part of fieldParts(message)) parts.push(part);
	if (typeof message.errorMessage === "string" && message.errorMessage !== "") {
		parts.push({ kind: "error", text: pageText(`[error] ${message.errorMessage}`) });
	}
	return parts;
}

function blockPart(block: unknown, sentAsImages: boolean): ReportPart {
	if (!isRecord(block)) return { kind: "note", text: `[${block === null ? "null" : typeof block} block]` };
	if (block.type === "text") return { kind: "text", text: pageText(String(block.text ?? "")) };
	if (block.type === "thinking") return { kind: "thinking", text: pageText(String(block.thinking ?? "")) };
	if (block.type === "toolCall") {
		return { kind: "tool", text: pageText(`→ ${String(block.name)} ${json(block.arguments ?? {})}`) };
	}
	if (block.type === "image" || (sentAsImages && isNonTextBlock(block))) return imagePart(block);
	return { kind: "note", text: `[${pageLabel(block.type, 40)} block]` };
}

function imagePart(block: Record<string, unknown>): ReportPart {
	const typed =
		block.type === "image" ? "" : ` (type ${block.type === undefined ? "missing" : pageLabel(block.type, 40)})`;
	const mime = block.mimeType;
	const data = block.data;
	const size = typeof data === "string" ? bytes(Math.floor((data.length * 3) / 4)) : "no data";
	const part: ReportPart = { kind: "image", text: `[image${typed} ${pageLabel(mime, 40)} · ${size}]` };
	if (typeof mime === "string" && IMAGE_TYPES.has(mime) && typeof data === "string" && isBase64(data)) {
		part.src = `data:${mime};base64,${data}`;
	}
	return part;
}

/** A history message without `content` (bashExecution, a summary): its known fields, else its JSON. */
function fieldParts(message: Record<string, unknown>): ReportPart[] {
	const parts: ReportPart[] = [];
	if (typeof message.command === "string") parts.push({ kind: "tool", text: pageText(`$ ${message.command}`) });
	if (typeof message.output === "string") parts.push({ kind: "text", text: pageText(message.output) });
	if (typeof message.summary === "string") parts.push({ kind: "text", text: pageText(message.summary) });
	if (parts.length === 0) parts.push({ kind: "note", text: pageText(json(message)) });
	return parts;
}

/** The parts as one text, for a diff: one line per part start, as the parts read. */
export function partsText(parts: readonly ReportPart[]): string {
	const texts: string[] = [];
	for (const part of parts) {
		texts.push(part.kind === "thinking" ? `[thinking] ${part.text}` : part.text);
	}
	return texts.join("\n");
}

function isBase64(data: string): boolean {
	if (data.length === 0 || data.length > MAX_IMAGE) return false;
	for (let i = 0; i < data.length; i++) {
		const c = data.charCodeAt(i);
		const ok =
			(c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2f;
		if (!ok && !(c === 0x3d && i >= data.length - 2)) return false;
	}
	return true;
}

function json(value: unknown): string {
	try {
		return JSON.stringify(value) ?? String(value);
	} catch {
		return "[a value that cannot be shown as JSON]";
	}
}

const bytes = (n: number): string => (n < 1024 ? `${n} B` : `${(n / 1024).toFixed(1)} KB`);
