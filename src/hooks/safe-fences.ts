/**
 * The `safeFences` plugin and its CommonMark helpers (`codeSpan`, `codeFence`): a `bashExecution` converter
 * whose fences and spans no backtick run in the command or output can close.
 */
import type { UserMessage } from "@earendil-works/pi-ai";
import { bashTextMemo } from "../builtin-converters/bash-text-memo.js";
import { userText } from "../builtin-converters/text-message.js";
import type { BashExecutionMessage } from "../messages.js";
import type { Plugin } from "../registry/types.js";
import { registerFailClosed } from "./fail-closed.js";

/** Name of the `safeFences` plugin (its `bashExecution` converter). */
export const SAFE_FENCES_PLUGIN = "convert-to-llm:safe-fences";

/** The length of the longest run of backticks in `text` (0 when it has none). */
export function longestBacktickRun(text: string): number {
	// `includes` and the regex scan natively: outputs run to megabytes and rarely hold a backtick.
	if (!text.includes("`")) return 0;
	let longest = 0;
	for (const run of text.matchAll(BACKTICK_RUNS)) if (run[0].length > longest) longest = run[0].length;
	return longest;
}

const BACKTICK_RUNS = /`+/g;

const NOT_ONLY_SPACES = /[^ ]/;

/**
 * A CommonMark code span whose content reads back as `text`.
 *
 * Contract: the delimiter is one backtick longer than the longest backtick run in `text`, so no run
 * inside can close it; `text` is padded with one space on each side when it starts or ends with a
 * backtick (which would merge with the delimiter) or starts and ends with a space without being all
 * spaces (CommonMark strips one such space on each side). An empty `text` gives `` ` ` `` (CommonMark
 * has no empty code span). Meant for one line: CommonMark turns a line ending inside a span into a space.
 *
 * @example
 * codeSpan("echo `date`"); // "`` echo `date` ``"
 * codeSpan("`ls`");        // "`` `ls` ``"
 */
export function codeSpan(text: string): string {
	if (text === "") return "` `";
	const run = longestBacktickRun(text);
	const delimiter = run === 0 ? "`" : "`".repeat(run + 1);
	const first = text.charCodeAt(0);
	const last = text.charCodeAt(text.length - 1);
	const pad = first === 96 || last === 96 || (first === 32 && last === 32 && NOT_ONLY_SPACES.test(text)) ? " " : "";
	return `${delimiter}${pad}${text}${pad}${delimiter}`;
}

/**
 * The backtick fence for a fenced code block holding `text`: one longer than the longest backtick
 * run in `text`, and at least three, so no line of `text` can close the block early.
 *
 * Contract: longer than every backtick run in `text` (CommonMark closes a backtick fence only with a
 * run at least as long), and exactly pi's "```" whenever `text` holds no run of three or more, so
 * output that needs no longer fence is fenced byte for byte as pi fences it.
 *
 * @example
 * codeFence("plain output");       // "```"
 * codeFence("```js\nx\n```");      // "````"
 */
export function codeFence(text: string): string {
	if (!text.includes("```")) return "```";
	return "`".repeat(longestBacktickRun(text) + 1);
}

/** Whether `text` holds a CommonMark line ending (two native scans: cheaper than a regex call on a short command). */
const hasLineBreak = (text: string): boolean => text.includes("\n") || text.includes("\r");

/**
 * What makes a status value unsafe to print as is: a control character (C0, DEL, C1: CommonMark's
 * line breaks among them, and U+0085), U+2028 and U+2029 (which a reader may take for line breaks),
 * a backtick, or a bracket (the truncation note is bracketed). One character class: linear on any text.
 */
const UNSAFE_IN_STATUS = /[\p{Cc}\u2028\u2029`[\]]/u;

/**
 * A status value (exit code, full output path) as the status line shows it: as pi prints it when
 * that is safe (a number, or a text with none of {@link UNSAFE_IN_STATUS}); else in a code span on
 * the line, or, when it holds a line break, in a fenced block after the line (`block` then true).
 */
function statusValue(value: unknown): { text: string; block: boolean } {
	if (typeof value === "number") return { text: `${value}`, block: false };
	const text = asText(value);
	if (!UNSAFE_IN_STATUS.test(text)) return { text, block: false };
	if (!hasLineBreak(text)) return { text: codeSpan(text), block: false };
	const fence = codeFence(text);
	return { text: `\n${fence}\n${text}\n${fence}`, block: true };
}

/**
 * pi's status lines (`bashStatusText`: cancelled, else a non-zero exit code; then the truncation
 * note when both `truncated` and `fullOutputPath` are set), each value through {@link statusValue}:
 * byte for byte pi's for a numeric exit code and a path with nothing unsafe. A value that needs a
 * fenced block ends its line with a colon (the note: `Full output:]`), and the block follows it.
 */
function safeStatusText(msg: BashExecutionMessage): string {
	let text = "";
	if (msg.cancelled) {
		text += "\n\n(command cancelled)";
	} else {
		const exitCode: unknown = msg.exitCode;
		if (exitCode !== null && exitCode !== undefined && exitCode !== 0) {
			const shown = statusValue(exitCode);
			text += shown.block
				? `\n\nCommand exited with code:${shown.text}`
				: `\n\nCommand exited with code ${shown.text}`;
		}
	}
	if (msg.truncated) {
		const path: unknown = msg.fullOutputPath;
		if (path) {
			const shown = statusValue(path);
			text += shown.block
				? `\n\n[Output truncated. Full output:]${shown.text}`
				: `\n\n[Output truncated. Full output: ${shown.text}]`;
		}
	}
	return text;
}

/**
 * pi's text for a bash execution ({@link bashExecutionToText}) with markdown that cannot break: the
 * output in a fence longer than any backtick run in it, the command in a CommonMark-correct code span.
 *
 * Contract: identical to `bashExecutionToText` when the command is one line that needs no longer
 * delimiter or padding and the output has no run of three or more backticks. A command spanning
 * several lines is put in a fenced block after `Ran` (a line of it could otherwise start a fence, a
 * heading or a list inside the paragraph). The status lines (exit code, cancelled, truncation) are
 * pi's, with each value that reaches them escaped: a numeric exit code and a path holding no line
 * break, control character, backtick or bracket are printed as pi prints them; any other value goes
 * in a code span, or in a fenced block after its line when it holds a line break, so no field can
 * close a fence, open one, or start a line of its own.
 *
 * @example
 * safeBashExecutionToText({ role: "bashExecution", command: "cat README.md", output: "```sh\nnpm i\n```",
 *   exitCode: 0, cancelled: false, truncated: false, timestamp: 0 });
 * // "Ran `cat README.md`\n````\n```sh\nnpm i\n```\n````"
 */
export function safeBashExecutionToText(msg: BashExecutionMessage): string {
	const command = asText(msg.command);
	let text: string;
	if (hasLineBreak(command)) {
		const fence = codeFence(command);
		text = `Ran\n${fence}\n${command}\n${fence}\n`;
	} else {
		text = `Ran ${codeSpan(command)}\n`;
	}
	const output: unknown = msg.output;
	if (output) {
		const shown = asText(output);
		const fence = codeFence(shown);
		text += `${fence}\n${shown}\n${fence}`;
	} else {
		text += "(no output)";
	}
	return text + safeStatusText(msg);
}

/** A field as `bashExecutionToText` prints it (a template's `${}`), so a non-string is fenced as the text pi would send. */
const asText = (value: unknown): string => (typeof value === "string" ? value : `${value as string}`);

/**
 * Fences bash output and quotes the command so that their own backticks cannot break the markdown:
 * upstream fences output with three backticks (output holding a fenced block closes it early) and
 * puts the command in single backticks (a command with a backtick breaks its code span).
 *
 * Contract: registers a `bashExecution` converter in front of the built-in one (`override: true`)
 * producing {@link safeBashExecutionToText} in pi's message shape; drops a message whose
 * `excludeFromContext` is truthy, as pi does. A command or output that is not a string is stringified
 * as pi does and then fenced, never left to the built-in converter. Fails closed: a message it cannot
 * convert (a throwing getter, a value with no string form) is dropped and reported once, as a
 * `ConversionError` naming this plugin. The output equals the default preset's whenever nothing needs
 * a longer delimiter (see {@link safeBashExecutionToText}). Each registry remembers each run's text
 * while its fields stay the same (see `bashTextMemo`).
 *
 * @example
 * const registry = createDefaultRegistry().use(safeFences());
 */
export function safeFences(): Plugin {
	return {
		name: SAFE_FENCES_PLUGIN,
		apply(registry) {
			// Each registry remembers each run's fenced text while its fields stay the same (as the
			// built-in converter does): the output is scanned for backticks once, not on every turn.
			const textOf = bashTextMemo(safeBashExecutionToText);
			const convert = (message: BashExecutionMessage): UserMessage | null => {
				if (message.excludeFromContext) return null;
				return userText(textOf(message), message.timestamp);
			};
			registerFailClosed(registry, "bashExecution", SAFE_FENCES_PLUGIN, convert);
		},
	};
}
