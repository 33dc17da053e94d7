/**
 * `requestDiff()`: where two requests part. The requests are two leaves of one session, or one leaf
 * converted two ways (as sent, and with a configuration); each is explained by the registry
 * (`explainAsync`), the second with the first as `previous`, so that the break and its cause are the
 * registry's own. The first differing message is shown on both sides with the session entry it came
 * from and the plugin that converted it, then a line diff inside it.
 */
import type { Message } from "@earendil-works/pi-ai";
import type { Explanation, Registry } from "../registry/types.js";
import { type DiffLine, lineDiff } from "../report/line-diff.js";
import { messageParts, partsText } from "../report/message-parts.js";
import { pageText } from "../report/page-text.js";
import { ledgerPrefix } from "./break-cause.js";
import { roleOf } from "./converted-request.js";
import type { BreakCause } from "./ledger-types.js";
import { type LeafHistory, type LedgerSource, readLeaves } from "./session-requests.js";

/**
 * One side of a diff: a leaf and the registry that converts its history.
 *
 * Contract: the registry is used for this side only (one `explainAsync`); `label` names the side in
 * the result.
 *
 * @example
 * const side: DiffRequest = { leafId: undefined, registry: createDefaultRegistry(), label: "as sent" };
 */
export interface DiffRequest {
	/** The leaf to convert from (`undefined`: the session's last entry). */
	leafId: string | undefined;
	registry: Registry;
	/** What to call this side: `"as sent"`, the configuration's name, `"leaf a1b2c3d4"`. */
	label: string;
}

/**
 * One side's message where the two requests part.
 *
 * Contract: `index` is its place in that side's converted output; `entryId` the session entry its
 * history message came from and `plugin` the converter that made it (`null` for a message a
 * post-conversion tap made).
 *
 * @example
 * const message: DiffMessage = { index: 3, role: "user", entryId: "a1b2c3d4", plugin: "convert-to-llm:model-roles" };
 */
export interface DiffMessage {
	index: number;
	role: string | null;
	entryId: string | null;
	plugin: string | null;
}

/**
 * One side of a {@link RequestDiff}.
 *
 * Contract: `label` is the caller's; `leafId` the leaf converted (the session's last entry when the
 * caller gave none); `messages` the length of its converted output; `message` its message at the
 * break, `null` without a break or when the break is past its end.
 *
 * @example
 * const [a, b] = diff.sides;
 * console.log(`${a.label}: ${a.messages} messages, ${b.label}: ${b.messages}`);
 */
export interface DiffSide {
	label: string;
	leafId: string | null;
	/** Messages of its converted output. */
	messages: number;
	/** Its message at the break; `null` when the break is past its end (the other side goes on). */
	message: DiffMessage | null;
}

/**
 * Where two requests part.
 *
 * Contract: `kept` is how many leading messages of the first request the second repeats byte for
 * byte (the registry's prefix); `breakAt` is where they part, or `null` when the second repeats all of
 * the first (it may add messages after it); `cause` is the registry's (a plugin's name, or the
 * history refined from the session: `"branch"`, `"compaction"`, `"context_edit"`, `"system"`,
 * `"history"`). `lines` is a line diff of the two messages at `breakAt` as the report shows them
 * (their text; their JSON when their text is the same), every line made safe to show: empty
 * without a break.
 *
 * @example
 * const diff = await requestDiff({ text }, [{ leafId: "a1", registry, label: "a1" }, { leafId: "b2", registry: other, label: "b2" }]);
 * if (diff.breakAt !== null) console.log(`part at ${diff.breakAt}: ${diff.cause}`);
 */
export interface RequestDiff {
	kept: number;
	breakAt: number | null;
	cause: BreakCause | null;
	sides: [DiffSide, DiffSide];
	lines: DiffLine[];
	/** What the reader found wrong in the session, one line each. */
	problems: string[];
}

/** A leaf the session does not have. */
export class UnknownLeafError extends Error {
	constructor(
		readonly leafId: string,
		readonly lastEntryId: string | null,
	) {
		super(`the session has no entry with id ${JSON.stringify(leafId)}`);
	}
}

/**
 * Converts the histories of `first` and `second` and says where they part.
 *
 * @throws {UnknownLeafError} for a leaf the session does not have.
 * @throws {InvalidSessionError} when the source is not a pi session.
 */
export async function requestDiff(
	source: LedgerSource,
	[first, second]: [DiffRequest, DiffRequest],
): Promise<RequestDiff> {
	const read = await readLeaves(source, [first.leafId, second.leafId]);
	for (const leaf of read.leaves) if (!leaf.found) throw new UnknownLeafError(leaf.leafId ?? "", read.lastEntryId);
	const [a, b] = read.leaves as [LeafHistory, LeafHistory];
	const before = await first.registry.explainAsync(a.messages);
	const after = await second.registry.explainAsync(b.messages, { previous: before });
	const breakAt = after.prefix?.breakAt ?? null;
	const roles: [string | undefined, string | undefined] =
		breakAt === null ? [undefined, undefined] : [roleOf(before.output[breakAt]), roleOf(after.output[breakAt])];
	// Two leaves part where their histories do (refined from the session), one leaf two ways where a plugin does.
	const prefix = ledgerPrefix({ prefix: after.prefix, breakRoles: roles, addsSystem: false }, read.between, false);
	const side = (request: DiffRequest, leaf: LeafHistory, explanation: Explanation): DiffSide => ({
		label: request.label,
		leafId: leaf.leafId,
		messages: explanation.output.length,
		message: breakAt === null ? null : messageAt(explanation, breakAt, leaf.entryIds),
	});
	return {
		kept: prefix.kept,
		breakAt: prefix.breakAt,
		cause: prefix.cause,
		sides: [side(first, a, before), side(second, b, after)],
		lines: breakAt === null ? [] : diffOf(before.output[breakAt], after.output[breakAt]),
		problems: read.problems,
	};
}

/** The message at `index` of an explained output, with where it came from; `null` past the end. */
function messageAt(explanation: Explanation, index: number, entryIds: readonly string[]): DiffMessage | null {
	if (index >= explanation.output.length) return null;
	for (const message of explanation.messages) {
		if (
			message.outputs.length === 0 ||
			(message.outputs.at(-1) as number) < index ||
			!message.outputs.includes(index)
		)
			continue;
		return {
			index,
			role: roleOf(explanation.output[index]) ?? null,
			entryId: entryIds[message.index] ?? null,
			plugin: message.plugin ?? null,
		};
	}
	return { index, role: roleOf(explanation.output[index]) ?? null, entryId: null, plugin: null };
}

/** The line diff of two messages' text as the report shows it, or of their JSON when the texts agree. */
function diffOf(before: Message | undefined, after: Message | undefined): DiffLine[] {
	const text = (message: Message | undefined): string =>
		message === undefined ? "" : partsText(messageParts(message, true));
	const lines = lineDiff(text(before), text(after));
	if (lines.some((line) => line.op === "-" || line.op === "+")) return lines;
	return lineDiff(jsonText(before), jsonText(after));
}

function jsonText(message: Message | undefined): string {
	if (message === undefined) return "";
	try {
		return pageText(JSON.stringify(message, null, 2) ?? "");
	} catch {
		return "[a message that cannot be written as JSON]";
	}
}
