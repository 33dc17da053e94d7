/**
 * The checks of `lint()`: what providers (through pi-ai) reject, patch or cannot read in a converted
 * `Message[]`. Findings are plain records; their text is written only when one is reported.
 */
import type { Message } from "@earendil-works/pi-ai";
import type { LintRule } from "../errors.js";
import { describeValue, errorText, isJsonObject, isNonTextBlock, isRecord, quote } from "../values.js";

/** A finding as the check records it; its text is written only when it is reported. */
export interface Finding {
	rule: LintRule;
	outputIndex: number;
	/** The tool call id (orphans), the timestamp (`invalid-timestamp`), what was thrown (`unreadable-message`). */
	subject?: unknown;
	/** The tool name (`orphan-tool-call`), what is wrong (`invalid-system-message`). */
	name?: unknown;
	/** The message was dropped by `repair` (`unreadable-message`). */
	dropped?: boolean;
}

const NOT_BLANK = /\S/;

/**
 * Longest text checked for being blank. Reading any character of a string built by concatenation
 * (pi's bash and summary texts) makes V8 copy it flat, which for megabytes of tool output would cost
 * more than the whole conversion; a blank text longer than this is not worth that price.
 */
const BLANK_CHECK_LIMIT = 256;

/** Whether `text` is empty or only white space (up to the limit); one starting with a printable ASCII character is not, at once. */
function isBlank(text: string): boolean {
	if (text.length === 0) return true;
	if (text.length > BLANK_CHECK_LIMIT) return false;
	const first = text.charCodeAt(0);
	if (first > 32 && first < 127) return false;
	return !NOT_BLANK.test(text);
}

/** No content a provider would accept: an empty or blank string, or an array of only blank text blocks. */
function isEmptyContent(content: unknown): boolean {
	if (typeof content === "string") return isBlank(content);
	if (!Array.isArray(content)) return true;
	for (let i = 0; i < content.length; i++) {
		const block: unknown = content[i];
		if (!isRecord(block) || block.type !== "text" || typeof block.text !== "string") return false;
		if (!isBlank(block.text)) return false;
	}
	return true;
}

/** The strict image test of `blockImages({ strictImages: true })`: any block that is not text. */
function hasImage(content: unknown): boolean {
	if (!Array.isArray(content)) return false;
	for (let i = 0; i < content.length; i++) if (isNonTextBlock(content[i])) return true;
	return false;
}

/** The stop reasons of the assistant messages pi-ai drops before the request: neither their content nor their tool calls reach the provider. */
const isSkippedStop = (stopReason: unknown): boolean => stopReason === "error" || stopReason === "aborted";

/** A message the `repair` mode drops: not a message at all, or a `user`/`assistant` message with no content. */
export function isRepairable(message: unknown): boolean {
	if (!isRecord(message)) return true;
	const role = message.role;
	if (role !== "user" && role !== "assistant") return false;
	return !(role === "assistant" && isSkippedStop(message.stopReason)) && isEmptyContent(message.content);
}

const blockName = (block: unknown): string => (isRecord(block) ? `a ${quote(block.type)} block` : describeValue(block));

/**
 * What pi-ai 1.x cannot read in a system message, or `undefined`. Its transcript functions
 * (`getSystemMessageText`, `getCurrentTools`, `renderSystemMessageUpdate`) call `content.filter`,
 * iterate `toolsAdded`/`toolsRemoved` with `for … of` and read each tool's `name`, and join sections
 * as text: a wrong type throws there, or vanishes from the prompt.
 */
function systemProblem(message: Record<string, unknown>): string | undefined {
	const content = message.content;
	if (typeof content !== "string") {
		if (!Array.isArray(content)) return `its content is ${describeValue(content)}, not a string or text blocks`;
		for (let k = 0; k < content.length; k++) {
			const block: unknown = content[k];
			if (!isRecord(block) || block.type !== "text" || typeof block.text !== "string")
				return `content block ${k} is ${blockName(block)}, not a text block`;
		}
	}
	const sections = message.sections;
	if (sections !== undefined && sections !== null) {
		if (!isJsonObject(sections)) return `its sections are ${describeValue(sections)}, not an object`;
		for (const [name, value] of Object.entries(sections))
			if (value !== null && typeof value !== "string")
				return `section ${quote(name)} is ${describeValue(value)}, not a string or null`;
	}
	for (const field of ["toolsAdded", "toolsRemoved"] as const) {
		const tools = message[field];
		if (tools === undefined || tools === null) continue;
		if (!Array.isArray(tools)) return `its ${field} is ${describeValue(tools)}, not an array`;
		for (let k = 0; k < tools.length; k++) {
			const tool: unknown = tools[k];
			if (!isRecord(tool) || typeof tool.name !== "string")
				return `${field}[${k}] is ${describeValue(tool)}, not a tool with a string name`;
		}
	}
	return undefined;
}

/** A window holding more calls than this indexes them by id (a scan of a few is cheaper than a `Map`). */
const SCANNED_CALLS = 8;

/**
 * The tool-call window of {@link check}: the calls of the last assistant message, waiting for their
 * results. A result answers the first unanswered call with its id (`===`, so a `NaN` id answers
 * nothing); what is left when the window closes is an orphan.
 *
 * Linear: a window of more than {@link SCANNED_CALLS} calls is indexed by id when a result first
 * looks in it (first unanswered call per id, and a link to the next call with the same id), so each
 * result costs O(1) however many calls and results there are. Calls are kept in place, marked when
 * answered; the arrays are reused from one window to the next.
 */
class ToolCallWindow {
	private readonly ids: unknown[] = [];
	private readonly names: unknown[] = [];
	private readonly answered: boolean[] = [];
	/** How many of the arrays' entries belong to this window. */
	private count = 0;
	private outputIndex = -1;
	/** Id → position of its first unanswered call; built only for a large window. */
	private first: Map<unknown, number> | undefined;
	/** Position → the next call with the same id (-1: none); only with `first`. */
	private next: number[] = [];
	/** Id → position of its last call, for ids held by more than one call; only with `first`. */
	private last: Map<unknown, number> | undefined;
	/** Whether any call was left unanswered (findings then need sorting). */
	orphans = false;

	/** Opens the window of assistant message `outputIndex` (the last one is closed). */
	open(content: unknown, outputIndex: number): void {
		if (!Array.isArray(content)) return;
		for (let k = 0; k < content.length; k++) {
			const block: unknown = content[k];
			if (isRecord(block) && block.type === "toolCall") {
				const at = this.count++;
				this.ids[at] = block.id;
				this.names[at] = block.name;
				this.answered[at] = false;
			}
		}
		this.outputIndex = outputIndex;
	}

	/** Whether `id` answers a pending call (which is then answered). */
	answer(id: unknown): boolean {
		if (this.count > SCANNED_CALLS) return this.answerIndexed(id);
		const { ids, answered } = this;
		for (let at = 0; at < this.count; at++) {
			if (ids[at] === id && !answered[at]) {
				answered[at] = true;
				return true;
			}
		}
		return false;
	}

	private answerIndexed(id: unknown): boolean {
		const first = this.first ?? this.index();
		const at = first.get(id);
		// `===` answers no `NaN` id, where the map (SameValueZero) would.
		if (at === undefined || Number.isNaN(id)) return false;
		this.answered[at] = true;
		const after = this.next[at] as number;
		if (after === -1) first.delete(id);
		else first.set(id, after);
		return true;
	}

	/** The map of a large window (`next` and `last` with it), made on its first result. */
	private index(): Map<unknown, number> {
		const first = new Map<unknown, number>();
		const next = this.next;
		const ids = this.ids;
		for (let at = 0; at < this.count; at++) {
			next[at] = -1;
			if (this.answered[at]) continue;
			const id = ids[at];
			const head = first.get(id);
			if (head === undefined) {
				first.set(id, at);
				continue;
			}
			this.last ??= new Map();
			next[this.last.get(id) ?? head] = at;
			this.last.set(id, at);
		}
		this.first = first;
		return first;
	}

	close(findings: Finding[]): void {
		const count = this.count;
		if (count === 0) return;
		const { ids, names, answered, outputIndex } = this;
		this.count = 0;
		this.first = undefined;
		this.last = undefined;
		for (let at = 0; at < count; at++) {
			if (answered[at]) continue;
			this.orphans = true;
			findings.push({ rule: "orphan-tool-call", outputIndex, subject: ids[at], name: names[at] });
		}
	}
}

/**
 * One pass of the checks over an output: the tool-call window, the findings so far and the image
 * setting, shared by {@link check} and {@link repaired}.
 */
class Checker {
	private readonly window = new ToolCallWindow();
	private readonly found: Finding[] = [];

	constructor(private readonly imagesBlocked: boolean) {}

	/**
	 * The findings of `message` at output index `i`. Fails closed: a message whose fields cannot be
	 * read gets one `unreadable-message` finding instead. `kept`: `repair` kept it, so its content is
	 * known not to be empty.
	 */
	at(message: unknown, i: number, kept: boolean): void {
		const findings = this.found;
		if (!isRecord(message)) {
			findings.push({ rule: "empty-content", outputIndex: i });
			return;
		}
		const before = findings.length;
		try {
			this.message(message, i, kept);
		} catch (cause) {
			// What was found before the throw is dropped with it: the message gets one finding, the true one.
			findings.length = before;
			findings.push({ rule: "unreadable-message", outputIndex: i, subject: cause });
		}
	}

	/** The findings once every message is checked: the last window closed, orphan calls put back in output order. */
	findings(): Finding[] {
		const { window, found } = this;
		window.close(found);
		// Orphan calls are found when their window closes (the sort is stable).
		return window.orphans ? found.sort((a, b) => a.outputIndex - b.outputIndex) : found;
	}

	/** The findings of one message (a `user`, `assistant`, `toolResult` or `system` one, or anything else). */
	private message(message: Record<string, unknown>, i: number, kept: boolean): void {
		const { window, found: findings, imagesBlocked } = this;
		const role = message.role;
		const assistant = role === "assistant";
		if (assistant && isSkippedStop(message.stopReason)) {
			window.close(findings);
			return;
		}
		const timestamp = message.timestamp;
		if (typeof timestamp !== "number" || !Number.isFinite(timestamp))
			findings.push({ rule: "invalid-timestamp", outputIndex: i, subject: timestamp });
		const content = message.content;
		if (assistant) {
			window.close(findings);
			window.open(content, i);
			if (!kept && isEmptyContent(content)) findings.push({ rule: "empty-content", outputIndex: i });
		} else if (role === "toolResult") {
			const id = message.toolCallId;
			if (!window.answer(id)) findings.push({ rule: "orphan-tool-result", outputIndex: i, subject: id });
			if (imagesBlocked && hasImage(content)) findings.push({ rule: "image-while-blocked", outputIndex: i });
		} else if (role === "user") {
			window.close(findings);
			if (!kept && isEmptyContent(content)) findings.push({ rule: "empty-content", outputIndex: i });
			if (imagesBlocked && hasImage(content)) findings.push({ rule: "image-while-blocked", outputIndex: i });
		} else if (role === "system") {
			// Neutral for tool calls: pi-ai holds a system message back until the pending calls are
			// answered (`heldSystemMessages`), so it neither closes nor breaks the window. A history whose
			// system messages do not lead is not a finding: pi's own loop writes one (tools declared
			// mid-session by an agent made without a prompt), and pi-ai folds it into a leading one
			// (`collapseSystemMessages`) or sends it in place as an update; nothing is rejected or lost.
			const problem = systemProblem(message);
			if (problem !== undefined) findings.push({ rule: "invalid-system-message", outputIndex: i, name: problem });
		}
	}
}

/**
 * Every finding in `messages`, in output order. Fails closed per message: one whose fields cannot be
 * read is an `unreadable-message` finding, and the rest are still checked.
 */
export function check(messages: readonly Message[], imagesBlocked: boolean): Finding[] {
	const checker = new Checker(imagesBlocked);
	for (let i = 0; i < messages.length; i++) checker.at(messages[i], i, false);
	return checker.findings();
}

/** What `repair` mode made of a `Message[]`: see {@link repaired}. */
export interface Repaired {
	/** The messages kept; the input array itself when nothing is dropped. */
	readonly output: Message[];
	/** The messages dropped because they could not be read (input indices, `dropped: true`). */
	readonly unreadable: Finding[];
	/** The findings in `output`, as {@link check} gives them, or none when `imagesBlocked` is `undefined`. */
	readonly findings: Finding[];
}

/**
 * `messages` without what `repair` drops ({@link isRepairable}, and messages that cannot be read,
 * recorded in `unreadable`: fails closed), and, unless `imagesBlocked` is `undefined`, the findings
 * of what is kept, in the same pass. Each kept message is checked as {@link check} would check the
 * output; its content is not tested for emptiness again (a kept message is not empty).
 */
export function repaired(messages: Message[], imagesBlocked: boolean | undefined): Repaired {
	const unreadable: Finding[] = [];
	const checker = imagesBlocked === undefined ? undefined : new Checker(imagesBlocked);
	let kept: Message[] | undefined;
	for (let i = 0; i < messages.length; i++) {
		const message = messages[i] as Message;
		let drop: boolean;
		try {
			drop = isRepairable(message);
		} catch (cause) {
			unreadable.push({ rule: "unreadable-message", outputIndex: i, subject: cause, dropped: true });
			drop = true;
		}
		if (drop) {
			kept ??= messages.slice(0, i);
			continue;
		}
		if (kept !== undefined) kept.push(message);
		checker?.at(message, kept === undefined ? i : kept.length - 1, true);
	}
	return { output: kept ?? messages, unreadable, findings: checker === undefined ? [] : checker.findings() };
}

/** What is wrong and what to do, for a finding (the error message goes on from "output message N (…)"). */
export function findingText(finding: Finding, isMessage: boolean): string {
	switch (finding.rule) {
		case "empty-content":
			return isMessage
				? 'has no content (an empty string or array, or only blank text), which providers reject. Fix its converter, or use lint({ mode: "repair" }) to drop it'
				: 'is not a message object. Fix the tap that put it in the output, or use lint({ mode: "repair" }) to drop it';
		case "orphan-tool-call":
			return `holds tool call ${quote(finding.subject)} (${quote(finding.name)}), which has no toolResult before the next user or assistant message, so pi-ai sends a synthetic "No result provided" error in its place. Keep each tool call's result right after it: check the converters and filters that drop or move tool results`;
		case "orphan-tool-result":
			return `answers tool call ${quote(finding.subject)}, which no assistant message before it (since the last user message) made; providers reject such a result. Keep each result right after its call: check the converters and filters that drop or move assistant messages`;
		case "image-while-blocked":
			return 'holds an image (or another block that is not text, which providers send as an image) although images are blocked. Use blockImages({ strictImages: true }) for blocks that are not typed "image"; tap afterConvert before Stage.SANITIZE so blockImages sees what you add';
		case "invalid-timestamp":
			return `has timestamp ${quote(finding.subject)}, not a finite number. Give it epoch milliseconds (the factories reject invalid dates; fix what wrote this one)`;
		case "invalid-system-message":
			return `is a system message pi-ai cannot read: ${String(finding.name)}. pi-ai throws on it when it builds the request, or leaves that part out of the prompt; give it string or text-block content, sections of strings or null, and toolsAdded/toolsRemoved arrays of tools with a name`;
		case "unreadable-message":
			return `could not be read (${errorText(finding.subject)}), so pi-ai would fail on it. ${finding.dropped ? "It was dropped" : 'Use lint({ mode: "repair" }) to drop it'}; fix what put it in the history`;
	}
}
