/** What a cleared tool result says instead of its content, and how a result already cleared is known. */
import { isImageBlock, isRecord } from "../values.js";

/** The longest main argument a placeholder names, in UTF-16 code units; a longer one is left out. */
export const PLACEHOLDER_ARGUMENT_CHARS = 80;

/** The arguments that name what a tool worked on, in the order they are looked for; else the first string. */
const MAIN_ARGUMENTS = ["path", "file_path", "filePath", "file", "command", "cmd", "pattern", "query", "url", "uri"];

/** Controls, format characters (bidi marks) and line breaks: a name or argument holding one is not shown. */
const UNPRINTABLE = /[\p{Cc}\p{Cf}\u2028\u2029]/u;

const printable = (text: string, max: number): boolean => text.length <= max && !UNPRINTABLE.test(text);

/** `12400` → `"12,400"`, the same on every machine (no locale). */
export function groupDigits(count: number): string {
	const digits = String(Math.trunc(count));
	let out = "";
	for (let i = 0; i < digits.length; i++) {
		if (i > 0 && (digits.length - i) % 3 === 0) out += ",";
		out += digits[i];
	}
	return out;
}

const plural = (count: number, one: string): string => `${groupDigits(count)} ${one}${count === 1 ? "" : "s"}`;

/** The short string argument that says what a call worked on (`path`, `command`, …), if it has one. */
export function mainArgument(args: unknown): string | undefined {
	if (!isRecord(args) || Array.isArray(args)) return undefined;
	let found: unknown;
	for (const key of MAIN_ARGUMENTS)
		if (typeof args[key] === "string") {
			found = args[key];
			break;
		}
	if (found === undefined)
		for (const value of Object.values(args))
			if (typeof value === "string") {
				found = value;
				break;
			}
	return typeof found === "string" && found !== "" && printable(found, PLACEHOLDER_ARGUMENT_CHARS) ? found : undefined;
}

/** What a result's content holds: its characters of text and its images. */
export interface ContentSize {
	readonly chars: number;
	readonly images: number;
}

export function contentSize(content: unknown): ContentSize {
	let chars = 0;
	let images = 0;
	if (typeof content === "string") return { chars: content.length, images };
	if (!Array.isArray(content)) return { chars, images };
	for (const block of content) {
		if (!isRecord(block)) continue;
		if (block.type === "text" && typeof block.text === "string") chars += block.text.length;
		else if (isImageBlock(block)) images++;
	}
	return { chars, images };
}

/**
 * The default placeholder: the tool, its main argument when short, and what was cleared, e.g.
 * `[cleared: read src/parse.ts, 12,400 characters]` or `[cleared: screenshot, 1 image]`.
 */
export function describeCleared(tool: unknown, args: unknown, size: ContentSize, keepImages: boolean): string {
	const name = typeof tool === "string" && tool !== "" && printable(tool, PLACEHOLDER_ARGUMENT_CHARS) ? tool : "tool";
	const argument = mainArgument(args);
	const parts: string[] = [];
	if (size.chars > 0 || keepImages || size.images === 0) parts.push(plural(size.chars, "character"));
	if (!keepImages && size.images > 0) parts.push(plural(size.images, "image"));
	return `[cleared: ${name}${argument === undefined ? "" : ` ${argument}`}, ${parts.join(" and ")}]`;
}

/**
 * Whether a result already reads as cleared: its first block is a text that is the given
 * placeholder, or reads as one (`[cleared` … `]` on one line, LangChain's `[cleared]` included), and
 * every other block is an image (kept by `keepImages`). Such a result is never cleared again, so
 * clearing is idempotent.
 */
export function readsAsCleared(content: unknown, placeholder: string | undefined): boolean {
	if (!Array.isArray(content) || content.length === 0) return false;
	const first: unknown = content[0];
	if (!isRecord(first) || first.type !== "text" || typeof first.text !== "string") return false;
	const text = first.text;
	const placeholderLike =
		text === placeholder || (text.startsWith("[cleared") && text.endsWith("]") && !text.includes("\n"));
	if (!placeholderLike) return false;
	for (let i = 1; i < content.length; i++) if (!isImageBlock(content[i])) return false;
	return true;
}

/** The content of a cleared result: the placeholder, then (with `keepImages`) the images it had. */
export function clearedContent(content: unknown, text: string, keepImages: boolean): unknown[] {
	const cleared: unknown[] = [{ type: "text", text }];
	if (keepImages && Array.isArray(content)) for (const block of content) if (isImageBlock(block)) cleared.push(block);
	return cleared;
}
