/**
 * How the view shows a `system` message (pi 1.x: the system prompt and the tool loadout, or a later
 * change to them): its header facts, its body (content, then each section), and what it counts.
 */
import { isRecord, textOf } from "../values.js";
import { label, type Style, type TextPart } from "./style.js";

/**
 * pi-ai 1.x's `SystemMessage`, declared by shape (pi-ai 0.73.1 has none). Every field is read
 * defensively: a plugin or a hand-written history may put anything there.
 */
export interface SystemMessageShape {
	role: "system";
	content?: unknown;
	sections?: unknown;
	toolsAdded?: unknown;
	toolsRemoved?: unknown;
}

/** Names listed in a header before `+N more`. */
const MAX_NAMES = 12;

export const isSystemMessage = (message: unknown): message is SystemMessageShape =>
	isRecord(message) && message.role === "system";

/**
 * The prompt characters of a system message, as pi's `estimateTokens` counts them: its text content
 * and every section that is not `null`.
 */
export function systemChars(message: SystemMessageShape): number {
	let chars = 0;
	for (const text of textsOf(message.content)) chars += text.length;
	for (const [, value] of sectionsOf(message)) if (typeof value === "string") chars += value.length;
	return chars;
}

/** The characters of the tool schemas it declares, as pi estimates them (`JSON.stringify(toolsAdded)`). */
export function toolSchemaChars(message: SystemMessageShape): number {
	if (!Array.isArray(message.toolsAdded) || message.toolsAdded.length === 0) return 0;
	try {
		return JSON.stringify(message.toolsAdded)?.length ?? 0;
	} catch {
		return 0;
	}
}

/** How many tools it declares. */
export const toolCount = (message: SystemMessageShape): number =>
	Array.isArray(message.toolsAdded) ? message.toolsAdded.length : 0;

/**
 * The header facts of a system message: `system prompt` for the leading one (pi-ai: "the leading
 * system message is the system prompt"), `system update` for later ones, then the tools and sections
 * it declares, changes or removes. Every name is sanitized and cut.
 */
export function systemMeta(message: SystemMessageShape, leading: boolean): string[] {
	const facts = [leading ? "system prompt" : "system update"];
	const added = namesOf(message.toolsAdded);
	const removed = namesOf(message.toolsRemoved);
	if (added.length > 0) facts.push(`${leading ? "tools" : "tools added"}: ${list(added)}`);
	if (removed.length > 0) facts.push(`tools removed: ${list(removed)}`);
	const changed: string[] = [];
	const dropped: string[] = [];
	for (const [name, value] of sectionsOf(message)) (value === null ? dropped : changed).push(label(name));
	if (changed.length > 0) facts.push(`${leading ? "sections" : "sections changed"}: ${list(changed)}`);
	if (dropped.length > 0) facts.push(`sections removed: ${list(dropped)}`);
	return facts;
}

/** The body: the content's text, then each section under its name (a removed one says so). */
export function systemParts(message: SystemMessageShape, style: Style): TextPart[] {
	const parts: TextPart[] = [];
	const text = contentText(message.content);
	if (text !== "") parts.push({ text });
	for (const [name, value] of sectionsOf(message)) {
		if (value === null) {
			parts.push({ text: `§ ${name} (removed)`, paint: style.dim });
			continue;
		}
		parts.push({ text: `§ ${name}`, paint: style.dim });
		parts.push({ text: textOf(value) });
	}
	return parts;
}

/** pi-ai's `contentText`: a string as it is, or the text blocks joined by a line break. */
const contentText = (content: unknown): string => textsOf(content).join("\n");

/** The texts of a system message's content: the string, or each text block's text. */
function textsOf(content: unknown): string[] {
	if (typeof content === "string") return [content];
	if (!Array.isArray(content)) return [];
	const texts: string[] = [];
	for (const block of content) {
		if (isRecord(block) && block.type === "text") texts.push(textOf(block.text ?? ""));
	}
	return texts;
}

/** The sections as `[name, value]` pairs (none when `sections` is not a plain object). */
function sectionsOf(message: SystemMessageShape): [string, unknown][] {
	const sections = message.sections;
	if (sections === null || typeof sections !== "object" || Array.isArray(sections)) return [];
	try {
		return Object.entries(sections);
	} catch {
		return [];
	}
}

/** The printable names of a tool list (`{ name }` items; anything else shows as `?`). */
function namesOf(tools: unknown): string[] {
	if (!Array.isArray(tools)) return [];
	const names: string[] = [];
	for (const tool of tools) {
		const name = isRecord(tool) ? tool.name : undefined;
		names.push(name === undefined ? "?" : label(name));
	}
	return names;
}

function list(names: readonly string[]): string {
	if (names.length <= MAX_NAMES) return names.join(", ");
	return `${names.slice(0, MAX_NAMES).join(", ")} +${names.length - MAX_NAMES} more`;
}
