/**
 * Counting with a token counter the user gave, failing closed: a throw, or a count that is not a
 * finite number `>= 0`, is `Infinity`. One place for every filter that counts (trim, clear).
 */
import type { Message } from "@earendil-works/pi-ai";
import { describeValue, errorText } from "../values.js";

/** One count: `tokens`, and what went wrong (`failure`, its `cause`) when it is `Infinity` for a bad count. */
export function countOne(
	message: Message,
	counter: (message: Message) => number,
): { tokens: number; failure?: string; cause?: unknown } {
	let count: unknown;
	try {
		count = counter(message);
	} catch (cause) {
		return { tokens: Number.POSITIVE_INFINITY, failure: `threw: ${errorText(cause)}`, cause };
	}
	if (typeof count === "number" && count >= 0 && Number.isFinite(count)) return { tokens: count };
	return { tokens: Number.POSITIVE_INFINITY, failure: `returned ${describeValue(count)}` };
}

/**
 * Each message's tokens (see {@link countOne}); the first bad count is handed to `report` with the
 * message's index (the filter words it), the later ones are not.
 */
export function countEach(
	messages: readonly Message[],
	counter: (message: Message) => number,
	report: (failure: string, index: number, cause: unknown) => void,
): number[] {
	const tokens = new Array<number>(messages.length);
	let reported = false;
	for (let i = 0; i < messages.length; i++) {
		const count = countOne(messages[i] as Message, counter);
		tokens[i] = count.tokens;
		if (count.failure === undefined || reported) continue;
		reported = true;
		report(count.failure, i, count.cause);
	}
	return tokens;
}
