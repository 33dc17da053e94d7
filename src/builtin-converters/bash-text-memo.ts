/** The text of each bash run, made once per registry: pi converts the whole history on every turn. */
import { type BashExecutionMessage, bashExecutionToText } from "../messages.js";

/** The fields a bash run's text was made from, and the text. */
interface Remembered {
	readonly command: unknown;
	readonly output: unknown;
	readonly cancelled: unknown;
	readonly exitCode: unknown;
	readonly truncated: unknown;
	readonly fullOutputPath: unknown;
	readonly text: string;
}

/** A value whose text a template literal always prints the same: not an object, whose `toString` may answer differently. */
const isPrimitive = (value: unknown): boolean =>
	value === null || (typeof value !== "object" && typeof value !== "function");

/**
 * `make` (default {@link bashExecutionToText}), remembered: the text of a run is built on the first conversion that
 * meets it, and the same string is returned while its fields stay the same. Strings are immutable,
 * so sharing one is invisible; the messages around it are new on every call, as pi's are. It saves
 * building a run's (often large) text on every turn, and gives later stages one string to scan or
 * hash instead of a new one each turn (`redactSecrets` remembers what it scanned by the string).
 *
 * Contract: returns exactly what `make(message)` returns now, for a `make` that prints only these
 * fields (as `bashExecutionToText` and `safeFences()`'s fenced text do): a text is reused only
 * when `command`, `output`, `cancelled`, `exitCode`, `truncated` and `fullOutputPath` are each the
 * same primitive (`===`) as when it was made, so a message changed in place gets a new text; a run
 * with a field that is an object is never remembered. Held in a `WeakMap` keyed by the message:
 * nothing outlives the history, and nothing is shared between registries.
 *
 * @example
 * const textOf = bashTextMemo();
 * textOf(run); // built
 * textOf(run); // the same string, not built again
 */
export function bashTextMemo(
	make: (message: BashExecutionMessage) => string = bashExecutionToText,
): (message: BashExecutionMessage) => string {
	const texts = new WeakMap<BashExecutionMessage, Remembered>();
	return function rememberedBashText(message) {
		let command: unknown;
		let output: unknown;
		let cancelled: unknown;
		let exitCode: unknown;
		let truncated: unknown;
		let fullOutputPath: unknown;
		try {
			({ command, output, cancelled, exitCode, truncated, fullOutputPath } = message);
		} catch {
			// A field that cannot be read: `make` reads only what it prints, as pi does (pi reads
			// `fullOutputPath` only when the output was truncated), so it decides; nothing is remembered.
			return make(message);
		}
		const known = texts.get(message);
		if (
			known !== undefined &&
			known.command === command &&
			known.output === output &&
			known.cancelled === cancelled &&
			known.exitCode === exitCode &&
			known.truncated === truncated &&
			known.fullOutputPath === fullOutputPath
		)
			return known.text;
		const text = make(message);
		if (
			isPrimitive(command) &&
			isPrimitive(output) &&
			isPrimitive(cancelled) &&
			isPrimitive(exitCode) &&
			isPrimitive(truncated) &&
			isPrimitive(fullOutputPath)
		)
			texts.set(message, { command, output, cancelled, exitCode, truncated, fullOutputPath, text });
		return text;
	};
}
