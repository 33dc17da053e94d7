/**
 * The system prompt and tools of pi's next request, for `/llm-context` to show before pi sends them.
 * pi 1.x keeps them in the transcript as system messages and, before each prompt, adds one that
 * brings the transcript up to date: the prompt sections that changed (AGENTS.md and other context
 * files, skills, `--append-system-prompt`, the working directory) and the tools added or removed. A
 * session that has no system message yet (new, or written by pi 0.73.1) gets all of them; a resumed
 * one gets what changed since it was written. pi 0.73.1 sends its prompt and tools beside the
 * messages instead. Both are read from pi's own answers (`ctx.getSystemPrompt()`, the active tools),
 * never rebuilt from pi's parts.
 */
import { isJsonObject, isRecord } from "../values.js";
import type { PiContext, PiExtensionApi } from "./pi-api.js";

/** A tool as pi declares it to the model (pi-ai's `toToolDeclaration`). */
export interface ToolDeclaration {
	name: string;
	description: string;
	parameters: unknown;
}

/** A system message as pi 1.x puts it in the transcript (pi-ai 1.x's `SystemMessage`, by shape). */
export interface PendingSystemMessage {
	role: "system";
	content: string;
	sections?: Record<string, string | null>;
	timestamp: number;
	toolsAdded?: ToolDeclaration[];
	toolsRemoved?: { name: string }[];
}

/** What pi holds now for its next request: the prompt text and the declared tools. */
export interface NextSystem {
	/** `ctx.getSystemPrompt()`: the prompt as pi renders it (its sections joined by blank lines). */
	prompt: string;
	/** The active tools pi declares, in pi's order (hidden declarations left out). */
	tools: ToolDeclaration[];
}

/**
 * The prompt and tools pi holds for its next request, as the extension API gives them; `undefined`
 * where this pi does not say (no `ctx.getSystemPrompt`, no tool list).
 *
 * Contract: never throws. The tools are `pi.getActiveTools()` in order, each declared as pi-ai's
 * `toToolDeclaration` does (name, description, parameters as JSON), less the ones
 * `ctx.getSystemPromptOptions().hiddenTools` names (pi 1.x hides them from every request).
 *
 * @example
 * const next = readNextSystem(pi, ctx); // { prompt: "You are a coding assistant…", tools: [{ name: "read", … }] }
 */
export function readNextSystem(pi: PiExtensionApi, ctx: PiContext): NextSystem | undefined {
	try {
		if (typeof ctx.getSystemPrompt !== "function") return undefined;
		const prompt: unknown = ctx.getSystemPrompt();
		if (typeof prompt !== "string") return undefined;
		if (typeof pi.getActiveTools !== "function" || typeof pi.getAllTools !== "function") return { prompt, tools: [] };
		const active: unknown = pi.getActiveTools();
		const all: unknown = pi.getAllTools();
		if (!Array.isArray(active) || !Array.isArray(all)) return { prompt, tools: [] };
		const hidden = hiddenTools(ctx);
		const byName = new Map<unknown, unknown>();
		for (const tool of all) if (isRecord(tool)) byName.set(tool.name, tool);
		const tools: ToolDeclaration[] = [];
		for (const name of active) {
			const tool = byName.get(name);
			if (typeof name !== "string" || hidden.has(name) || !isRecord(tool)) continue;
			tools.push(declaration(tool));
		}
		return { prompt, tools };
	} catch {
		return undefined;
	}
}

/** The tool names pi 1.x hides from every request (`BuildSystemPromptOptions.hiddenTools`). */
function hiddenTools(ctx: PiContext): Set<string> {
	const options: unknown = typeof ctx.getSystemPromptOptions === "function" ? ctx.getSystemPromptOptions() : undefined;
	const hidden = isRecord(options) ? options.hiddenTools : undefined;
	return new Set(Array.isArray(hidden) ? hidden.filter((name): name is string => typeof name === "string") : []);
}

/** pi-ai's `toToolDeclaration`: name, description and a JSON copy of the parameters. */
function declaration(tool: Record<string, unknown>): ToolDeclaration {
	return {
		name: tool.name as string,
		description: tool.description as string,
		parameters: JSON.parse(JSON.stringify(tool.parameters ?? {})),
	};
}

/**
 * The system message pi 1.x adds to `history` before its next prompt (`_preparePromptAndToolLoadout`
 * and the agent loop's `declareToolChanges`), or `undefined` when the transcript is up to date.
 *
 * Contract: pure; never throws on any history. The transcript's prompt and tools are replayed from its
 * system messages as pi-ai replays them (`sections` patched by name, `null` removes one; tools by
 * name). The message carries the sections whose text differs from the replayed ones (`null` for one
 * pi no longer has), and the tools added or changed and removed; its keys are in pi's order. The
 * sections of `next.prompt` are read back from its text (see {@link promptSections}); where it is not
 * of their shape, the whole text is the `preamble`, which renders the same prompt.
 *
 * @example
 * pendingSystemMessage([], { prompt: "You are pi.", tools: [] }, 0); // { role: "system", content: "", sections: { preamble: "You are pi." }, timestamp: 0 }
 */
export function pendingSystemMessage(
	history: readonly unknown[],
	next: NextSystem,
	timestamp: number,
): PendingSystemMessage | undefined {
	const { sections: previous, tools: declared } = replay(history);
	const current = promptSections(next.prompt, previous) ?? new Map([["preamble", next.prompt]]);
	const patch: Record<string, string | null> = {};
	let patched = false;
	for (const [name, text] of current) {
		if (previous.get(name) === text) continue;
		patch[name] = text;
		patched = true;
	}
	for (const name of previous.keys()) {
		if (current.has(name)) continue;
		patch[name] = null;
		patched = true;
	}
	const toolsAdded = next.tools.filter((tool) => {
		const before = declared.get(tool.name);
		return before === undefined || !sameDeclaration(before, tool);
	});
	const now = new Map(next.tools.map((tool) => [tool.name, tool]));
	const toolsRemoved: { name: string }[] = [];
	for (const [name, tool] of declared) {
		const after = now.get(name);
		if (after === undefined || !sameDeclaration(tool, after)) toolsRemoved.push({ name });
	}
	if (!patched && toolsAdded.length === 0 && toolsRemoved.length === 0) return undefined;
	return {
		role: "system",
		content: "",
		...(patched ? { sections: patch } : {}),
		timestamp,
		...(toolsAdded.length > 0 ? { toolsAdded } : {}),
		...(toolsRemoved.length > 0 ? { toolsRemoved } : {}),
	};
}

/** The transcript's current sections and tools, replayed from its system messages in order. */
function replay(history: readonly unknown[]): { sections: Map<string, string>; tools: Map<string, unknown> } {
	const sections = new Map<string, string>();
	const tools = new Map<string, unknown>();
	for (const message of history) {
		if (!isRecord(message) || message.role !== "system") continue;
		if (isJsonObject(message.sections)) {
			for (const [name, value] of Object.entries(message.sections)) {
				if (value === null) sections.delete(name);
				else if (typeof value === "string") sections.set(name, value);
			}
		}
		if (Array.isArray(message.toolsRemoved))
			for (const tool of message.toolsRemoved) if (isRecord(tool)) tools.delete(String(tool.name));
		if (Array.isArray(message.toolsAdded))
			for (const tool of message.toolsAdded) if (isRecord(tool)) tools.set(String(tool.name), tool);
	}
	return { sections, tools };
}

/** pi-ai's `declarationsEqual`: the same declaration as JSON. */
function sameDeclaration(left: unknown, right: unknown): boolean {
	const text = (tool: unknown): string => {
		const { name, description, parameters } = isRecord(tool) ? tool : {};
		return JSON.stringify({ name, description, parameters: parameters ?? {} });
	};
	try {
		return text(left) === text(right);
	} catch {
		return false;
	}
}

/** Longest section name read back: pi's names are short words (`project_context`). */
const MAX_NAME = 64;

/**
 * pi 1.x's prompt text read back into the sections it was joined from: `buildSystemPrompt` joins the
 * `preamble` and one `<name>\n…\n</name>` part per other section with blank lines. A section the
 * transcript already holds (`known`) is taken whole wherever the text repeats it, so a text that
 * merely contains tag-like lines is split where pi joined it.
 *
 * Contract: never throws; linear in the text (each search moves forward); `undefined` when the text
 * is not of that shape (a forced prompt, another pi).
 *
 * @example
 * promptSections("You are pi.\n\n<cwd>\n/app\n</cwd>", new Map()); // Map { preamble → "You are pi.", cwd → "<cwd>\n/app\n</cwd>" }
 */
export function promptSections(text: string, known: ReadonlyMap<string, string>): Map<string, string> | undefined {
	const sections = new Map<string, string>();
	const preamble = known.get("preamble");
	let pos =
		preamble !== undefined && text.startsWith(preamble) && endsPart(text, preamble.length)
			? preamble.length
			: firstPart(text);
	sections.set("preamble", text.slice(0, pos));
	while (pos < text.length) {
		const start = pos + 2;
		const name = tagName(text, start);
		if (!text.startsWith("\n\n", pos) || name === undefined || sections.has(name)) return undefined;
		const same = known.get(name);
		const end =
			same !== undefined && text.startsWith(same, start) && endsPart(text, start + same.length)
				? start + same.length
				: closeOf(text, start, name);
		if (end === undefined) return undefined;
		sections.set(name, text.slice(start, end));
		pos = end;
	}
	return sections;
}

/** The name of a `<name>\n` opening tag at `at` (pi's section names: `[a-z][a-z0-9_-]*`), or `undefined`. */
function tagName(text: string, at: number): string | undefined {
	if (text[at] !== "<") return undefined;
	let i = at + 1;
	const first = text.charCodeAt(i);
	if (!(first >= 97 && first <= 122)) return undefined;
	while (i < text.length && i - at <= MAX_NAME) {
		const code = text.charCodeAt(i);
		const lower = code >= 97 && code <= 122;
		const digit = code >= 48 && code <= 57;
		if (!(lower || digit || code === 95 || code === 45)) break;
		i++;
	}
	return text[i] === ">" && text[i + 1] === "\n" ? text.slice(at + 1, i) : undefined;
}

/** Whether a part ends at `at`: the text ends there, or a blank line and the next part's opening tag follow. */
function endsPart(text: string, at: number): boolean {
	return at === text.length || (text.startsWith("\n\n", at) && tagName(text, at + 2) !== undefined);
}

/** Where the preamble ends: at the first blank line followed by an opening tag, or at the end. */
function firstPart(text: string): number {
	for (let from = 0; ; ) {
		const at = text.indexOf("\n\n<", from);
		if (at === -1) return text.length;
		if (tagName(text, at + 2) !== undefined) return at;
		from = at + 1;
	}
}

/** The end of the part `<name>\n…\n</name>` opened at `start`: the first closing tag that ends a part. */
function closeOf(text: string, start: number, name: string): number | undefined {
	const close = `\n</${name}>`;
	for (let from = start + name.length + 2; ; ) {
		const at = text.indexOf(close, from);
		if (at === -1) return undefined;
		if (endsPart(text, at + close.length)) return at + close.length;
		from = at + 1;
	}
}
