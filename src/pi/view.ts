/**
 * The `/llm-context` view: the CLI's view of a conversion (src/cli: the same message blocks, the same
 * "why" section as `--explain`, the same footer), under a header that says where the history came
 * from; and the `--json` form, the same text `convert-to-llm --json` writes.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { renderExplanation } from "../cli/explain-view.js";
import { renderFooter, renderMessages, totals } from "../cli/render.js";
import { createStyle, sanitize } from "../cli/style.js";
import type { Explanation } from "../index.js";

/** What the view shows besides the conversion. */
export interface ViewInput {
	messages: readonly AgentMessage[];
	explanation: Explanation;
	/** `entryIds[i]`: the session entry of history message `i`, when pi could say. */
	entryIds: readonly string[] | undefined;
	sessionFile: string | undefined;
	leafId: string | null | undefined;
	/** The plugins, after pi's default preset: offered ones with their extension, then the hardening. */
	plugins: readonly string[];
	hardening: string;
	width: number;
}

/** The conversion as `convert-to-llm --json` prints it (without its final newline). */
export const viewJson = (explanation: Explanation): string => JSON.stringify(explanation.output, null, 2);

/** The view as plain lines (no colour): header, messages, why, footer. */
export function viewLines(input: ViewInput): string[] {
	const style = createStyle(false);
	const { explanation, messages, entryIds } = input;
	const ids = entryIds !== undefined && entryIds.length === explanation.messages.length ? entryIds : undefined;
	const where = input.sessionFile === undefined ? "in-memory session" : sanitize(input.sessionFile);
	const leaf = input.leafId === undefined || input.leafId === null ? "no leaf" : `leaf ${sanitize(input.leafId)}`;
	const lines = [
		`next request · ${where} · ${leaf}`,
		`converted with pi's default preset${input.plugins.map((p) => ` + ${sanitize(p)}`).join("")} · hardening: ${input.hardening}`,
		"",
	];
	const counts = totals(explanation.output);
	for (const line of renderMessages(explanation.output, counts, {
		style,
		width: input.width,
		sources: sourcesOf(explanation, ids),
	})) {
		lines.push(line);
	}
	lines.push("");
	for (const line of renderExplanation(explanation, messages, ids, style)) lines.push(line);
	lines.push("");
	for (const line of renderFooter(counts, messages.length, style)) lines.push(line);
	return lines;
}

/** For each output, the role (and session entry) of the history message it came from, as the CLI labels it. */
function sourcesOf(explanation: Explanation, ids: readonly string[] | undefined): (string | undefined)[] {
	const sources: (string | undefined)[] = [];
	for (const item of explanation.messages) {
		const role =
			item.customType === undefined ? sanitize(item.role) : `${sanitize(item.role)}:${sanitize(item.customType)}`;
		const label = ids === undefined ? `${role} [${item.index}]` : `${role} ${sanitize(ids[item.index])}`;
		for (const output of item.outputs) sources[output] = label;
	}
	return sources;
}
