/**
 * The `/llm-context` view: the CLI's view of a conversion (src/view/view.ts: the same message blocks,
 * the same "why" section as `--explain`, the same `context_edit` notes and "Not sent" list, the same
 * footer) under a header that says where the history came from; and the `--json` form, the text `convert-to-llm --json` writes.
 */
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { Message } from "@earendil-works/pi-ai";
import type { Explanation } from "../index.js";
import type { ContextEditEffect } from "../session/index.js";
import type { Columns } from "../view/columns.js";
import { format, plural, renderFooter, renderMessages, totals } from "../view/render.js";
import { createStyle, oneLine, shown } from "../view/style.js";
import { renderConversion } from "../view/view.js";
import type { ToolDeclaration } from "./next-system.js";

/** What the view shows besides the conversion. */
export interface ViewInput {
	messages: readonly AgentMessage[];
	explanation: Explanation;
	/** `entryIds[i]`: the session entry of history message `i`, when pi could say. */
	entryIds: readonly string[] | undefined;
	/** What the session's `context_edit` entries hid or replaced, as the CLI's view shows it. */
	contextEdits?: readonly ContextEditEffect[];
	sessionFile: string | undefined;
	leafId: string | null | undefined;
	/** The plugins after pi's default preset: offered ones with their extension. */
	plugins: readonly string[];
	/** The switches that are on. */
	hardening: string;
	/**
	 * The configuration's current problems (settings.json, the flag, offered plugins) and any problem a
	 * notice left out: listed under the header, each in full, folded to the width.
	 */
	warnings?: readonly string[];
	/**
	 * The system prompt and tools the next request sends beside the messages (pi 0.73.1, whose request
	 * event does not carry them): shown before the messages, and counted apart from them.
	 */
	beside?: BesideSystem;
	/**
	 * What the next request reuses of the last one sent and its tokens by each counter (prompt-cache.ts's
	 * `outlookLines`: a heading, then one unfolded line each), shown just above the footer's counts.
	 */
	cache?: readonly string[];
	width: number;
	/** How lines are measured and cut: pi-tui's own measure inside pi. */
	columns: Columns;
}

/** What pi 0.73.1 sends beside a request's messages: its system prompt (as the extension passes it) and its tools. */
export interface BesideSystem {
	prompt: string;
	tools: readonly ToolDeclaration[];
}

/** The conversion as `convert-to-llm --json` prints it (without its final newline). */
export const viewJson = (explanation: Explanation): string => JSON.stringify(explanation.output, null, 2);

/** The view as plain lines (no colour): header, problems, messages, why, the prompt cache and tokens, footer. */
export function viewLines(input: ViewInput): string[] {
	const style = createStyle(false);
	const where = input.sessionFile === undefined ? "in-memory session" : shown(input.sessionFile, 1000);
	const leaf = input.leafId === undefined || input.leafId === null ? "no leaf" : `leaf ${shown(input.leafId)}`;
	const plugins = input.plugins.map((plugin) => ` + ${shown(plugin)}`).join("");
	const lines = [
		`next request · ${where} · ${leaf}`,
		`converted with pi's default preset${plugins} · hardening: ${input.hardening}`,
		"",
	];
	const warnings = input.warnings ?? [];
	if (warnings.length > 0) {
		lines.push(`── Configuration problems and warnings not shown in full (${warnings.length})`);
		for (const warning of warnings) {
			const folded = fold(oneLine(warning), Math.max(1, input.width - 5), input.columns);
			for (let i = 0; i < folded.length; i++) lines.push(`${i === 0 ? "   - " : "     "}${folded[i]}`);
		}
		lines.push("");
	}
	if (input.beside !== undefined) for (const line of besideLines(input.beside, input)) lines.push(line);
	const body = renderConversion({
		explanation: input.explanation,
		messages: input.messages,
		entryIds: input.entryIds,
		contextEdits: input.contextEdits,
		explain: true,
		style,
		width: input.width,
		columns: input.columns,
	});
	// The prompt cache and the bill go just above the footer's counts, which stay the view's last lines.
	const footer = renderFooter(totals(input.explanation.output), input.messages.length, style).length;
	for (const line of body.slice(0, body.length - footer)) lines.push(line);
	for (const line of cacheLines(input)) lines.push(line);
	for (const line of body.slice(body.length - footer)) lines.push(line);
	return lines;
}

/** The prompt cache section: its heading, then each line folded to the width under it. */
function cacheLines(input: ViewInput): string[] {
	const [heading, ...rest] = input.cache ?? [];
	if (heading === undefined) return [];
	const lines = [heading];
	for (const line of rest)
		for (const part of fold(oneLine(line), Math.max(1, input.width - 3), input.columns)) lines.push(`   ${part}`);
	return lines;
}

/**
 * The block of what pi 0.73.1 sends beside the messages: its heading, the prompt as the view shows a
 * system message, and what it adds to the request (the footer counts the messages only).
 */
function besideLines(beside: BesideSystem, input: ViewInput): string[] {
	const style = createStyle(false);
	const message = {
		role: "system",
		content: beside.prompt,
		toolsAdded: beside.tools,
		timestamp: 0,
	} as unknown as Message;
	const counts = totals([message]);
	const lines = ["── The system prompt and tools, which pi 0.73.1 sends beside the messages"];
	for (const line of renderMessages([message], counts, { style, width: input.width, columns: input.columns }))
		lines.push(line);
	const tools =
		counts.tools === 0
			? ""
			: ` and ${plural(counts.tools, "tool")} (${plural(counts.toolChars, "schema character")})`;
	lines.push(
		`   ${plural(counts.chars, "character")}${tools} · ~${format(counts.tokens)} tokens, which the counts below leave out`,
		"",
	);
	return lines;
}

/**
 * `text` in lines of at most `width` columns, broken at spaces; a word wider than the width is cut
 * (the panel cuts every line to the terminal in any case). Linear in the text.
 */
export function fold(text: string, width: number, columns: Columns): string[] {
	const out: string[] = [];
	let line = "";
	let used = 0;
	for (const word of text.split(" ")) {
		const size = columns.width(word);
		if (line !== "" && used + 1 + size > width) {
			out.push(line);
			line = "";
			used = 0;
		}
		const piece = size > width ? columns.truncate(word, width) : word;
		line = line === "" ? piece : `${line} ${piece}`;
		used += (used === 0 ? 0 : 1) + columns.width(piece);
	}
	out.push(line);
	return out;
}
