/**
 * `--diff`: where two requests part, for a terminal: the two sides, how many messages they keep
 * alike, the first differing message on each side with its session entry and plugin, then a line
 * diff inside it. Values from the session or a plugin are shown as the view shows history text; the
 * diff's lines come made safe (the report's message text).
 */
import type { DiffSide, RequestDiff } from "../ledger/request-diff.js";
import type { Columns } from "../view/columns.js";
import { fitStyled } from "../view/columns.js";
import { format, plural } from "../view/render.js";
import { label, type Style, shown } from "../view/style.js";

/** Lines of the line diff shown; `--json` has them all. */
const MAX_LINES = 60;

/** The lines of `--diff`. */
export function diffView(
	diff: RequestDiff,
	options: { name: string; style: Style; columns: Columns; width: number | undefined },
): string[] {
	const { style, width, columns } = options;
	const [a, b] = diff.sides;
	const lines = [
		`${style.bold(shown(options.name, 1000))} · ${sideName(a, b)} ${style.dim("vs")} ${sideName(b, a)}`,
		`A: ${sideFacts(a)}`,
		`B: ${sideFacts(b)}`,
		"",
	];
	if (diff.breakAt === null) {
		lines.push(
			b.messages > a.messages
				? `B repeats all ${plural(a.messages, "message")} of A, then adds ${plural(b.messages - a.messages, "message")}: no break.`
				: `B repeats all ${plural(a.messages, "message")} of A: no break.`,
		);
	} else {
		lines.push(
			`They send ${plural(diff.kept, "message")} alike, then part at message #${format(diff.breakAt)}: ${style.red(label(diff.cause ?? "history"))}`,
			`A ${messageFacts(a)}`,
			`B ${messageFacts(b)}`,
			"",
		);
		const shownLines = diff.lines.length > MAX_LINES ? diff.lines.slice(0, MAX_LINES - 1) : diff.lines;
		for (const line of shownLines) {
			if (line.op === "…") lines.push(style.dim(`  ⋯ ${line.text} ⋯`));
			else if (line.op === "-") lines.push(style.red(`- ${line.text}`));
			else if (line.op === "+") lines.push(style.green(`+ ${line.text}`));
			else lines.push(`  ${line.text}`);
		}
		if (shownLines.length < diff.lines.length)
			lines.push(
				style.dim(`  ⋯ ${plural(diff.lines.length - shownLines.length, "more line")} (--json has them all) ⋯`),
			);
		if (diff.lines.length === 0) lines.push(style.dim("  (one side has no message here)"));
	}
	if (width === undefined) return lines;
	return lines.map((line) => fitStyled(line, Math.max(1, width), columns));
}

/** A side as the first line names it: by its leaf when both sides convert alike, else by how it converts. */
function sideName(side: DiffSide, other: DiffSide): string {
	if (side.label === other.label) return side.leafId === null ? "no leaf" : `leaf ${label(side.leafId)}`;
	return shown(side.label, 200);
}

function sideFacts(side: DiffSide): string {
	const leaf = side.leafId === null ? "no leaf" : `leaf ${label(side.leafId)}`;
	return `${shown(side.label, 200)} · ${leaf} · ${plural(side.messages, "message")}`;
}

function messageFacts(side: DiffSide): string {
	const message = side.message;
	if (message === null) return `(none: its ${plural(side.messages, "message")} end before)`;
	const role = message.role === null ? "(no role)" : label(message.role);
	const entry = message.entryId === null ? "made by a tap" : `entry ${label(message.entryId)}`;
	const plugin = message.plugin === null ? "" : ` · ${label(message.plugin)}`;
	return `#${format(message.index)} ${role} ← ${entry}${plugin}`;
}
