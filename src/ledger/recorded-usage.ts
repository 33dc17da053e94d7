/**
 * What a session recorded of one request's bill, read without trusting it: pi-ai's `Usage` (`input`,
 * `output`, `cacheRead`, `cacheWrite`, `cost: { input, output, cacheRead, cacheWrite, total }`), each
 * figure kept exactly as recorded, or refused with the reason.
 */
import { billedUsage } from "../filters/billed-usage.js";
import { describeValue, isRecord } from "../values.js";

/**
 * One request's usage exactly as the session holds it.
 *
 * Contract: `input`, `cacheRead` and `cacheWrite` are finite numbers `>= 0` (a missing cache field
 * reads 0) and not all 0, as `billedUsage` accepts them; `output` and `cost` (`usage.cost.total`, in
 * USD) are the recorded numbers, or `null` when absent, not a number, `NaN`, infinite or negative.
 *
 * @example
 * const { recorded } = readRecorded(assistant.usage);
 * if (recorded !== null) console.log(recorded.input + recorded.cacheRead + recorded.cacheWrite, "billed prompt tokens");
 */
export interface RecordedUsage {
	input: number;
	output: number | null;
	cacheRead: number;
	cacheWrite: number;
	cost: number | null;
}

/** The four token kinds a price applies to. */
export type PriceField = "input" | "output" | "cacheRead" | "cacheWrite";
export const PRICE_FIELDS: readonly PriceField[] = Object.freeze(["input", "output", "cacheRead", "cacheWrite"]);

/** A usage read: the recorded figures (or `null`), the USD per token each field was billed at, and what was wrong. */
export interface ReadUsage {
	recorded: RecordedUsage | null;
	/** USD per token of each field whose tokens and cost are both recorded and valid (tokens > 0). */
	unitPrices: Partial<Record<PriceField, number>>;
	/** What could not be read, one sentence each. */
	problems: string[];
}

/** Reads `usage` (never throws). */
export function readRecorded(usage: unknown): ReadUsage {
	const billed = billedUsage(usage);
	if (billed.tokens === null) return { recorded: null, unitPrices: {}, problems: [billed.reason] };
	const record = usage as Record<string, unknown>;
	const problems: string[] = [];
	const output = numberAt(record, "output", "usage.output", problems);
	const costs = field(record, "cost");
	let cost: number | null = null;
	if (costs === undefined || costs === null) problems.push("no cost was recorded (usage.cost is missing)");
	else if (!isRecord(costs)) problems.push(`usage.cost is ${describeValue(costs)}, not an object`);
	else cost = numberAt(costs, "total", "usage.cost.total", problems);
	const unitPrices: Partial<Record<PriceField, number>> = {};
	if (isRecord(costs)) {
		const tokens: Record<PriceField, number | null> = {
			input: billed.input,
			output,
			cacheRead: billed.cacheRead,
			cacheWrite: billed.cacheWrite,
		};
		for (const name of PRICE_FIELDS) {
			const count = tokens[name];
			const paid = field(costs, name);
			if (count !== null && count > 0 && typeof paid === "number" && Number.isFinite(paid) && paid >= 0)
				unitPrices[name] = paid / count;
		}
	}
	return {
		recorded: { input: billed.input, output, cacheRead: billed.cacheRead, cacheWrite: billed.cacheWrite, cost },
		unitPrices,
		problems,
	};
}

/** A finite number `>= 0` at `key`, else `null` and a sentence saying why (nothing for an absent one but `total`). */
function numberAt(record: Record<string, unknown>, key: string, name: string, problems: string[]): number | null {
	const value = field(record, key);
	if (typeof value === "number" && Number.isFinite(value) && value >= 0) return value;
	problems.push(
		value === undefined ? `${name} is missing` : `${name} is ${describeValue(value)}, not a finite number >= 0`,
	);
	return null;
}

/** A field, read without letting a getter throw. */
function field(record: Record<string, unknown>, key: string): unknown {
	try {
		return record[key];
	} catch {
		return undefined;
	}
}
