/**
 * `calibratedCounter`: a token counter that learns from billed requests how far pi's chars/4 estimate is off, and
 * `TokenCount`, a figure that says which counter made it (estimate, calibrated or billed).
 */
import type { Message } from "@earendil-works/pi-ai";
import { billedUsage } from "./billed-usage.js";
import { estimateTokens } from "./estimate-tokens.js";
import { isSentToProvider } from "./provider-facts.js";

/**
 * Which counter made a token figure: pi's chars/4 estimate, the calibrated counter, or the bill
 * (`billedUsage`).
 */
export type TokenCountKind = "estimate" | "calibrated" | "billed";

/** The label of a figure made by {@link estimateTokens}. */
export const PI_ESTIMATE_LABEL = "pi estimate (chars/4)";

/**
 * A token figure of a whole request, with the counter that made it.
 *
 * Contract: `kind` and `label` say which counter made `tokens` (`"pi estimate (chars/4)"`,
 * `"calibrated on 12 billed requests"`); `estimate` is pi's chars/4 estimate of the same request,
 * to show beside it; `fallback` says why a calibrated counter gave the estimate. `tokens` is
 * `Infinity` when a message cannot be estimated (it never fits a budget), as with `estimateTokens`.
 *
 * @example
 * const { tokens, label, estimate } = counter.count(request);
 * console.log(`${tokens} tokens (${label}); pi's estimate ${estimate}`);
 */
export interface TokenCount {
	tokens: number;
	kind: TokenCountKind;
	label: string;
	/** pi's estimate of the same request ({@link estimateTokens} summed). */
	estimate: number;
	/** Billed requests the calibration had when it counted. */
	observations: number;
	/** Why the figure is pi's estimate rather than a calibrated one; absent when it is calibrated. */
	fallback?: string;
}

/**
 * What {@link CalibratedCounter.observe} made of one billed request.
 *
 * Contract: `accepted: false` when the usage cannot be trusted (see `billedUsage`) or the request
 * holds a message that cannot be estimated: nothing was learnt and `reason` says why. Otherwise
 * `billed` is the request's billed tokens, `predicted` what `count(request)` said just before, and
 * `error` how far that was from the bill: `(predicted.tokens - billed) / billed`. `restarted` says
 * the calibration started over (another model) before learning this request.
 *
 * @example
 * const seen = counter.observe(request, assistant.usage, { model: "anthropic/claude-opus-4-5" });
 * if (seen.accepted) console.log(`${seen.predicted.label}: ${(seen.error * 100).toFixed(1)}% from the bill`);
 */
export type Observation =
	| { accepted: true; billed: number; predicted: TokenCount; error: number; restarted?: string }
	| { accepted: false; reason: string; predicted: TokenCount };

/** Options of {@link CalibratedCounter.observe} and {@link CalibratedCounter.count}. */
export interface CalibrationOptions {
	/**
	 * The model the request went (or goes) to, e.g. `"anthropic/claude-opus-4-5"`. Token counts
	 * differ between tokenizers: observing another model starts the calibration over, and counting
	 * for another model than the one calibrated gives pi's estimate. Omitted: not checked.
	 */
	model?: string;
}

/**
 * What a calibration has learnt so far.
 *
 * Contract: `ratio` is the billed tokens per estimated token of what was added between consecutive
 * billed requests (1 until two requests that extend one another were observed); `overhead` is the
 * last billed request's tokens beyond `ratio` × its messages' estimate (the system prompt and tools
 * where the history does not hold them, the provider's framing); `null` before the first observation.
 */
export interface CalibrationState {
	observations: number;
	ratio: number;
	overhead: number | null;
	model: string | undefined;
	label: string;
}

/**
 * A token counter calibrated on what a session was billed: a function of one message, usable as
 * `trimToTokens`' `tokenCounter`, with the calibration it reads.
 *
 * Contract: before the first accepted observation every figure is pi's estimate (parity with
 * `estimateTokens`). After it, `count(request)` is the last billed request's tokens plus `ratio` ×
 * the estimate of what the request adds to it (or minus what it drops), messages pi-ai does not send
 * (errored and aborted turns) counting 0; and `counter(message)` is `ratio` × the message's estimate
 * (0 for a message pi-ai does not send), rounded up, so the counts of a request's messages plus
 * `state().overhead` make `count(request)`. Every method is an arrow function over this counter's
 * own state (no `this`, no module state); nothing throws on bad usage or unreadable messages.
 *
 * @example
 * const counter = calibratedCounter();
 * const registry = createDefaultRegistry().use(trimToTokens({ maxTokens: 150_000, tokenCounter: counter }));
 * // after each response: the request that produced it, and the usage it recorded
 * counter.observe(request, response.usage, { model: `${response.provider}/${response.model}` });
 * console.log(counter.count(nextRequest)); // { tokens: 51_412, kind: "calibrated", label: "calibrated on 7 billed requests", … }
 */
export interface CalibratedCounter {
	(message: Message): number;
	/** Learns one billed request: the messages sent and the usage recorded for its response. */
	observe: (request: readonly Message[], usage: unknown, options?: CalibrationOptions) => Observation;
	/**
	 * {@link CalibratedCounter.observe} of the last request this counter accepted (none before the
	 * first) followed by `added`: for a host that knows a request only appended to the previous one,
	 * in time linear in `added` rather than in the whole request.
	 */
	observeAppended: (added: readonly Message[], usage: unknown, options?: CalibrationOptions) => Observation;
	/** The billed tokens the request would have, as this calibration predicts them. */
	count: (request: readonly Message[], options?: CalibrationOptions) => TokenCount;
	/** What the calibration has learnt so far. */
	state: () => CalibrationState;
}

/** The ratio a pair of requests may teach: outside, the usage is not of these requests. */
const MIN_RATIO = 0.25;
const MAX_RATIO = 4;

/**
 * The last billed request: its tokens, the estimate of each message (0 for one not sent), their sum,
 * and pi's estimate of it all (for a request that appends to it).
 */
interface Anchor {
	billed: number;
	estimates: number[];
	total: number;
	estimate: number;
}

/**
 * A token counter calibrated on a session's own bill; see {@link CalibratedCounter}.
 *
 * Measured on two real pi sessions with Claude (test/fixtures/sessions/recorded/, `node --import tsx
 * scripts/calibration-table.mjs`): within ±5% of the billed tokens for 99.8% and 100% of the requests
 * after the fifth, where pi's chars/4 estimate is within 5% for none.
 *
 * @example
 * const counter = calibratedCounter();
 * counter.count(request); // { kind: "estimate", label: "pi estimate (chars/4)", fallback: "no billed request observed yet", … }
 */
export function calibratedCounter(): CalibratedCounter {
	let anchor: Anchor | undefined;
	let model: string | undefined;
	let observations = 0;
	let addedBilled = 0;
	let addedEstimate = 0;

	const ratio = (): number => (addedEstimate > 0 ? addedBilled / addedEstimate : 1);
	const label = (): string =>
		observations === 0
			? PI_ESTIMATE_LABEL
			: `calibrated on ${observations} billed request${observations === 1 ? "" : "s"}`;

	const counter = (message: Message): number => {
		if (anchor === undefined) return estimateTokens(message);
		return isSentToProvider(message) ? Math.ceil(ratio() * estimateTokens(message)) : 0;
	};

	const predict = ({ estimates, total, estimate }: Measured, options?: CalibrationOptions): TokenCount => {
		const fallback =
			anchor === undefined
				? "no billed request observed yet"
				: options?.model !== undefined && model !== undefined && options.model !== model
					? `calibrated on ${model}, not on ${options.model}`
					: estimates === undefined
						? "a message cannot be estimated"
						: undefined;
		if (anchor === undefined || fallback !== undefined)
			return { tokens: estimate, kind: "estimate", label: PI_ESTIMATE_LABEL, estimate, observations, fallback };
		const tokens = Math.max(0, Math.round(anchor.billed + ratio() * (total - anchor.total)));
		return { tokens, kind: "calibrated", label: label(), estimate, observations };
	};

	const count = (request: readonly Message[], options?: CalibrationOptions): TokenCount =>
		predict(measure(request), options);

	/**
	 * Learns a measured request: `extendsAnchor` says whether it repeats the anchor's messages first,
	 * `estimatesOf` gives its per-message estimates once it is accepted.
	 */
	const learn = (
		measured: Measured,
		extendsAnchor: () => boolean,
		estimatesOf: () => number[],
		usage: unknown,
		options: CalibrationOptions | undefined,
	): Observation => {
		const predicted = predict(measured, options);
		const billed = billedUsage(usage);
		if (billed.tokens === null) return { accepted: false, reason: billed.reason, predicted };
		const { total } = measured;
		if (measured.estimates === undefined)
			return { accepted: false, reason: "a message of the request cannot be estimated", predicted };
		let restarted: string | undefined;
		if (options?.model !== undefined && model !== undefined && options.model !== model) {
			restarted = `the model changed from ${model} to ${options.model}`;
			anchor = undefined;
			observations = 0;
			addedBilled = 0;
			addedEstimate = 0;
		}
		if (options?.model !== undefined) model = options.model;
		if (anchor !== undefined && total > anchor.total && extendsAnchor()) {
			const pair = (billed.tokens - anchor.billed) / (total - anchor.total);
			if (pair >= MIN_RATIO && pair <= MAX_RATIO) {
				addedBilled += billed.tokens - anchor.billed;
				addedEstimate += total - anchor.total;
			}
		}
		anchor = { billed: billed.tokens, estimates: estimatesOf(), total, estimate: measured.estimate };
		observations++;
		const error = (predicted.tokens - billed.tokens) / billed.tokens;
		return restarted === undefined
			? { accepted: true, billed: billed.tokens, predicted, error }
			: { accepted: true, billed: billed.tokens, predicted, error, restarted };
	};

	const observe = (request: readonly Message[], usage: unknown, options?: CalibrationOptions): Observation => {
		const measured = measure(request);
		const estimates = measured.estimates as number[];
		return learn(
			measured,
			() => startsWith(estimates, (anchor as Anchor).estimates),
			() => estimates,
			usage,
			options,
		);
	};

	const observeAppended = (added: readonly Message[], usage: unknown, options?: CalibrationOptions): Observation => {
		const tail = measure(added);
		const base = anchor;
		const measured: Measured = {
			estimates: tail.estimates,
			total: (base?.total ?? 0) + tail.total,
			estimate: (base?.estimate ?? 0) + tail.estimate,
		};
		// The anchor is replaced when the request is accepted: its estimates are extended in place.
		const estimatesOf = (): number[] => {
			const estimates = base?.estimates ?? [];
			for (const estimate of tail.estimates as number[]) estimates.push(estimate);
			return estimates;
		};
		return learn(measured, () => base !== undefined && anchor === base, estimatesOf, usage, options);
	};

	const state = (): CalibrationState => ({
		observations,
		ratio: ratio(),
		overhead: anchor === undefined ? null : anchor.billed - ratio() * anchor.total,
		model,
		label: label(),
	});

	return Object.assign(counter, { observe, observeAppended, count, state });
}

/**
 * A request measured: each message's estimate as the provider sees it (0 for a message pi-ai does
 * not send; `undefined` when one is not finite), their sum, and pi's own estimate of the request.
 */
interface Measured {
	estimates: number[] | undefined;
	total: number;
	estimate: number;
}

function measure(request: readonly Message[]): Measured {
	const estimates: number[] = [];
	let total = 0;
	let estimate = 0;
	for (const message of request) {
		const tokens = estimateTokens(message);
		estimate += tokens;
		const sent = isSentToProvider(message) ? tokens : 0;
		estimates.push(sent);
		total += sent;
	}
	return { estimates: Number.isFinite(total) ? estimates : undefined, total, estimate };
}

/** Whether `request` starts with the messages of `previous` (compared by their estimates). */
function startsWith(request: readonly number[], previous: readonly number[]): boolean {
	if (request.length < previous.length) return false;
	for (let i = 0; i < previous.length; i++) if (request[i] !== previous[i]) return false;
	return true;
}
