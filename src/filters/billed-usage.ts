/**
 * `billedUsage`: the billed prompt size of one request, read from the `usage` pi recorded on its response, or why
 * it cannot be trusted; its own file because the ledger and the calibrated counter both read the bill.
 */
import { describeValue, isJsonObject } from "../values.js";

/** The label of a figure read from a recorded usage. */
export const BILLED_LABEL = "billed";

/**
 * The billed size of one request, read from the `usage` pi recorded on the assistant message it
 * produced; or why it cannot be read.
 *
 * Contract: `tokens` is `input + cacheRead + cacheWrite`: every prompt token the provider billed,
 * whether it read it from the cache, wrote it to the cache or neither; `kind` and `label` say it is
 * the bill. `output` is not part of the request. When the usage cannot be trusted, `tokens` is
 * `null` and `reason` says why in one sentence.
 *
 * @example
 * const billed = billedUsage(assistant.usage);
 * if (billed.tokens === null) console.warn(billed.reason);
 */
export type BilledUsage =
	| {
			tokens: number;
			kind: "billed";
			label: typeof BILLED_LABEL;
			input: number;
			cacheRead: number;
			cacheWrite: number;
			reason?: undefined;
	  }
	| { tokens: null; reason: string };

/** The fields of a usage that make up the request's size, in the order they are checked. */
const PROMPT_FIELDS = ["input", "cacheRead", "cacheWrite"] as const;

/**
 * Reads the billed prompt tokens of a recorded `usage` (pi-ai's `Usage`: `input`, `output`,
 * `cacheRead`, `cacheWrite`, `totalTokens`, `cost`).
 *
 * Contract: never throws. `input` must be a finite number `>= 0`; `cacheRead` and `cacheWrite` must be
 * too, or absent (counted 0: providers without a prompt cache). Refused, with a reason: no usage (an
 * older session, a provider that omits it), a usage that is not an object, a field of the wrong type,
 * `NaN`, infinite or negative, and a usage whose three fields are all 0 (pi records zeros when the
 * provider reported nothing, e.g. a request aborted before it answered: no request is billed 0
 * tokens). `output`, `totalTokens` and `cost` are not read: a bad cost does not make the token
 * counts wrong.
 *
 * @example
 * billedUsage({ input: 3, output: 191, cacheRead: 0, cacheWrite: 1684 }).tokens; // 1687
 * billedUsage({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }).reason;    // "the usage is all zeros: …"
 */
export function billedUsage(usage: unknown): BilledUsage {
	if (usage === undefined || usage === null)
		return { tokens: null, reason: "no usage was recorded (an older session, or a provider that omits it)" };
	if (!isJsonObject(usage)) return { tokens: null, reason: `the usage is ${describeValue(usage)}, not an object` };
	const values: number[] = [];
	for (const field of PROMPT_FIELDS) {
		let value: unknown;
		try {
			value = usage[field];
		} catch {
			return { tokens: null, reason: `usage.${field} cannot be read` };
		}
		if (value === undefined && field !== "input") value = 0;
		if (typeof value !== "number" || !Number.isFinite(value) || value < 0)
			return { tokens: null, reason: `usage.${field} is ${describeValue(value)}, not a finite number >= 0` };
		values.push(value);
	}
	const [input = 0, cacheRead = 0, cacheWrite = 0] = values;
	const tokens = input + cacheRead + cacheWrite;
	if (tokens === 0)
		return {
			tokens: null,
			reason: "the usage is all zeros: the provider reported none (e.g. the request was aborted before it answered)",
		};
	return { tokens, kind: "billed", label: BILLED_LABEL, input, cacheRead, cacheWrite };
}
