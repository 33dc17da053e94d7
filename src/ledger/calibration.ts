/** The calibrated counter as the ledger teaches it: each request as sent, in time linear in the session. */
import {
	type CalibratedCounter,
	type CalibrationOptions,
	PI_ESTIMATE_LABEL,
	type TokenCount,
} from "../filters/calibrated-counter.js";
import type { ConvertedRequest } from "./converted-request.js";
import type { ReadUsage } from "./recorded-usage.js";

/**
 * The calibrated counter, taught each request as sent, in time linear in the session: a request that
 * extends the last one the counter accepted is given as what it adds.
 */
export class Calibration {
	private anchor: ConvertedRequest | undefined;

	constructor(private readonly counter: CalibratedCounter) {}

	/** Learns `request` and its usage; returns what the counter predicted for it before. */
	observe(
		request: ConvertedRequest,
		read: ReadUsage,
		usage: unknown,
		options: CalibrationOptions | undefined,
	): TokenCount {
		if (this.anchor === undefined && read.recorded === null) {
			// Nothing learnt yet and nothing to learn now: the counter's own answer is pi's estimate.
			return {
				tokens: request.estimated,
				kind: "estimate",
				label: PI_ESTIMATE_LABEL,
				estimate: request.estimated,
				observations: 0,
				fallback: "no billed request observed yet",
			};
		}
		const added = this.anchor === undefined ? undefined : request.addedTo(this.anchor);
		const observation =
			added === undefined
				? this.counter.observe(request.output(), usage, options)
				: this.counter.observeAppended(added, usage, options);
		if (observation.accepted) this.anchor = request;
		return observation.predicted;
	}
}
