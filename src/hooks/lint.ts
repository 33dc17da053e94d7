import type { Message } from "@mariozechner/pi-ai";
import { LintError } from "../errors.js";
import { type HookContext, type Plugin, Stage } from "../registry/types.js";

/** Name of the `lint` plugin (its tap on `afterConvert`). */
export const LINT_PLUGIN = "convert-to-llm:lint";

/**
 * What the lint checks:
 * - `empty-content`: a `user` or `assistant` message with no content (an empty string or array, or
 *   only blank text blocks, blank meaning whitespace of at most 256 characters); providers reject it.
 *   A `toolResult` may be empty: it still answers its call.
 * - `orphan-tool-call`: a tool call with no `toolResult` before the next `user` or `assistant` message;
 *   pi-ai then sends a synthetic "No result provided" error in its place.
 * - `orphan-tool-result`: a `toolResult` that answers no tool call of the assistant message before it;
 *   providers reject the request.
 * - `image-while-blocked`: an image in a `user` or `toolResult` message while images are blocked.
 * - `invalid-timestamp`: a `timestamp` that is not a finite number.
 *
 * Assistant messages that stopped with `error` or `aborted` are skipped, as pi-ai skips them.
 *
 * Contract: each {@link LintError} names exactly one rule in `rule`; a message that breaks several
 * gives one error per rule (and one `orphan-tool-call` per orphaned call). An output entry that is not
 * a message object is an `empty-content` finding.
 *
 * @example
 * registry.hooks.error.tap("log", (error) => {
 *   if (error instanceof LintError && error.rule === "orphan-tool-result") log.error(error.message);
 * });
 */
export type LintRule =
	| "empty-content"
	| "orphan-tool-call"
	| "orphan-tool-result"
	| "image-while-blocked"
	| "invalid-timestamp";

/**
 * What the lint does with what it finds.
 *
 * Contract: `"report"` never changes the output. `"repair"` first drops, without reporting them,
 * empty `user`/`assistant` messages and entries that are not messages (the only safe repair), then
 * reports what is left; it is idempotent and returns the same array when nothing is dropped.
 *
 * @example
 * lint({ mode: process.env.CI === "true" ? "report" : "repair" });
 */
export type LintMode = "report" | "repair";

/**
 * Options of {@link lint}.
 *
 * Contract: read once, when `lint()` is called, except `imagesBlocked` given as a function, which is
 * read on every conversion; any `mode` but `"repair"` reports.
 *
 * @example
 * lint({ mode: "repair", imagesBlocked: () => settings.blockImages });
 */
export interface LintOptions {
	/**
	 * `report` (default): report every finding. `repair`: drop empty `user`/`assistant` messages first
	 * (their one safe repair) and report the rest; the other findings have no repair that is safe.
	 */
	mode?: LintMode;
	/**
	 * Whether images are blocked, so that an image left in the output is a finding. Give the same
	 * setting as `blockImages({ enabled })`; a function is read on every conversion. Default `false`.
	 */
	imagesBlocked?: boolean | (() => boolean);
}

/** A finding as the check records it; its text is written only when it is reported. */
interface Finding {
	rule: LintRule;
	outputIndex: number;
	/** The tool call id (orphans), or the timestamp (`invalid-timestamp`). */
	subject?: unknown;
	/** The tool name (`orphan-tool-call`). */
	name?: unknown;
}

interface PendingCall {
	id: unknown;
	name: unknown;
	outputIndex: number;
}

const NOT_BLANK = /\S/;

/**
 * Longest text checked for being blank. Reading any character of a string built by concatenation
 * (pi's bash and summary texts) makes V8 copy it flat, which for megabytes of tool output would cost
 * more than the whole conversion; a blank text longer than this is not worth that price.
 */
const BLANK_CHECK_LIMIT = 256;

const isBlank = (text: string): boolean =>
	text.length === 0 || (text.length <= BLANK_CHECK_LIMIT && !NOT_BLANK.test(text));

/** No content a provider would accept: an empty or blank string, or an array of only blank text blocks. */
function isEmptyContent(content: unknown): boolean {
	if (typeof content === "string") return isBlank(content);
	if (!Array.isArray(content)) return true;
	for (let i = 0; i < content.length; i++) {
		const block = content[i] as { type?: unknown; text?: unknown } | null;
		if (block === null || typeof block !== "object" || block.type !== "text" || typeof block.text !== "string")
			return false;
		if (!isBlank(block.text)) return false;
	}
	return true;
}

function hasImage(content: unknown): boolean {
	if (!Array.isArray(content)) return false;
	for (let i = 0; i < content.length; i++)
		if ((content[i] as { type?: unknown } | null)?.type === "image") return true;
	return false;
}

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === "object";

/** pi-ai drops these before the request: neither their content nor their tool calls reach the provider. */
const isSkippedAssistant = (message: Record<string, unknown>): boolean =>
	message.role === "assistant" && (message.stopReason === "error" || message.stopReason === "aborted");

/** A message the `repair` mode drops: not a message at all, or a `user`/`assistant` message with no content. */
function isRepairable(message: unknown): boolean {
	if (!isObject(message)) return true;
	if (message.role !== "user" && message.role !== "assistant") return false;
	return !isSkippedAssistant(message) && isEmptyContent(message.content);
}

/** Every finding in `messages`, in output order. */
function check(messages: readonly Message[], imagesBlocked: boolean): Finding[] {
	const findings: Finding[] = [];
	const pending: PendingCall[] = [];
	let orphanCalls = false;
	const closeWindow = () => {
		if (pending.length === 0) return;
		orphanCalls = true;
		for (const call of pending)
			findings.push({ rule: "orphan-tool-call", outputIndex: call.outputIndex, subject: call.id, name: call.name });
		pending.length = 0;
	};
	for (let i = 0; i < messages.length; i++) {
		const message: unknown = messages[i];
		if (!isObject(message)) {
			findings.push({ rule: "empty-content", outputIndex: i });
			continue;
		}
		const role = message.role;
		if (isSkippedAssistant(message)) {
			closeWindow();
			continue;
		}
		const timestamp = message.timestamp;
		if (typeof timestamp !== "number" || !Number.isFinite(timestamp))
			findings.push({ rule: "invalid-timestamp", outputIndex: i, subject: timestamp });
		if (role === "assistant") {
			closeWindow();
			const content = message.content;
			if (Array.isArray(content)) {
				for (let k = 0; k < content.length; k++) {
					const block: unknown = content[k];
					if (isObject(block) && block.type === "toolCall")
						pending.push({ id: block.id, name: block.name, outputIndex: i });
				}
			}
		} else if (role === "toolResult") {
			const id = message.toolCallId;
			let at = 0;
			while (at < pending.length && (pending[at] as PendingCall).id !== id) at++;
			if (at < pending.length) pending.splice(at, 1);
			else findings.push({ rule: "orphan-tool-result", outputIndex: i, subject: id });
		} else if (role === "user") {
			closeWindow();
		}
		if ((role === "user" || role === "assistant") && isEmptyContent(message.content))
			findings.push({ rule: "empty-content", outputIndex: i });
		if (imagesBlocked && (role === "user" || role === "toolResult") && hasImage(message.content))
			findings.push({ rule: "image-while-blocked", outputIndex: i });
	}
	closeWindow();
	// Orphan calls are found when their window closes: put them back in output order (the sort is stable).
	return orphanCalls ? findings.sort((a, b) => a.outputIndex - b.outputIndex) : findings;
}

/** What is wrong and what to do, for a finding (the error message goes on from "output message N (…)"). */
function findingText(finding: Finding, isMessage: boolean): string {
	switch (finding.rule) {
		case "empty-content":
			return isMessage
				? 'has no content (an empty string or array, or only blank text), which providers reject. Fix its converter, or use lint({ mode: "repair" }) to drop it'
				: 'is not a message object. Fix the tap that put it in the output, or use lint({ mode: "repair" }) to drop it';
		case "orphan-tool-call":
			return `holds tool call ${describeValue(finding.subject)} (${describeValue(finding.name)}), which has no toolResult before the next user or assistant message, so pi-ai sends a synthetic "No result provided" error in its place. Keep each tool call's result right after it: check the converters and filters that drop or move tool results`;
		case "orphan-tool-result":
			return `answers tool call ${describeValue(finding.subject)}, which no assistant message before it (since the last user message) made; providers reject such a result. Keep each result right after its call: check the converters and filters that drop or move assistant messages`;
		case "image-while-blocked":
			return "holds an image although images are blocked: it was added after blockImages ran. Tap afterConvert before Stage.SANITIZE so blockImages sees it, or block its images yourself";
		case "invalid-timestamp":
			return `has timestamp ${describeValue(finding.subject)}, not a finite number. Give it epoch milliseconds (the factories reject invalid dates; fix what wrote this one)`;
	}
}

/** A short description of any value for a finding; never throws (ids and timestamps can be anything). */
function describeValue(value: unknown): string {
	if (typeof value === "string") return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
	if (typeof value === "number" || typeof value === "boolean" || value === undefined || value === null)
		return String(value);
	return `a ${typeof value}`;
}

function toError(finding: Finding, messages: readonly Message[], ctx: HookContext): LintError {
	const message = messages[finding.outputIndex] as Message;
	const role = isObject(message) && typeof message.role === "string" ? message.role : undefined;
	const source = isObject(message) ? ctx.sourceOf(message) : undefined;
	const where =
		source === undefined
			? "made after conversion by a tap that did not link it with ctx.inheritSource"
			: `from input message ${source.index}, converted by "${source.plugin}"`;
	return new LintError(
		`lint [${finding.rule}]: output message ${finding.outputIndex} (${role === undefined ? "no role" : `role ${JSON.stringify(role)}`}, ${where}) ${findingText(finding, isObject(message))}.`,
		{
			rule: finding.rule,
			outputIndex: finding.outputIndex,
			role,
			index: source?.index,
			plugin: source?.plugin,
		},
	);
}

/**
 * Checks the converted `Message[]` for what providers reject or silently patch: empty messages, tool
 * calls and results without their partner, images left while images are blocked, timestamps that are
 * not finite numbers (see {@link LintRule}). Each finding is a {@link LintError} naming the output
 * message, the input message it came from and the plugin responsible.
 *
 * Contract: taps `afterConvert` at `Stage.VERIFY` (after every ordinary tap and sanitizer) and turns
 * source tracking on. Lenient registries report each finding on `hooks.error`, in output order; strict
 * registries throw the first. Mode `report` never changes the output; mode `repair` drops empty
 * `user`/`assistant` messages (and non-messages) without reporting them and checks what is left, so it
 * is idempotent. A lenient registry with no `hooks.error` tap skips the check (nobody would hear of a
 * finding; `repair` still repairs). Taps on `afterConvertAsync` run after it and are not checked. Options are read once,
 * `imagesBlocked` given as a function on every conversion.
 *
 * @example
 * const registry = createDefaultRegistry({ strict: process.env.CI === "true" })
 *   .use(blockImages({ enabled: () => settings.blockImages }))
 *   .use(lint({ mode: "repair", imagesBlocked: () => settings.blockImages }));
 */
export function lint(options: LintOptions = {}): Plugin {
	const repair = options.mode === "repair";
	const blocked = options.imagesBlocked ?? false;
	const imagesBlocked = typeof blocked === "function" ? blocked : () => blocked;

	return {
		name: LINT_PLUGIN,
		apply(registry) {
			registry.trackSources();
			registry.hooks.afterConvert.tap({ name: LINT_PLUGIN, stage: Stage.VERIFY }, (messages, ctx) => {
				const output = repair ? withoutEmpty(messages) : messages;
				// Nobody would hear of a finding: skip the check (lenient, no error taps, not an explain run).
				if (!ctx.listening) return output;
				// Strict runs throw the first finding from `report`; explain runs collect them all.
				for (const finding of check(output, imagesBlocked() === true)) ctx.report(toError(finding, output, ctx));
				return output;
			});
		},
	};
}

/** `messages` without what `repair` drops; the same array when nothing is dropped. */
function withoutEmpty(messages: Message[]): Message[] {
	let kept: Message[] | undefined;
	for (let i = 0; i < messages.length; i++) {
		const message = messages[i] as Message;
		if (isRepairable(message)) kept ??= messages.slice(0, i);
		else kept?.push(message);
	}
	return kept ?? messages;
}
