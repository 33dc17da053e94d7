/**
 * The plain way to convert a session's requests: each one whole, through `registry.runAsync(history,
 * { previous })`, in file order, so that any configuration (filters that look at the whole history,
 * plugins, async taps, filters that keep a window between calls) converts each request exactly as it
 * would have been converted live. Quadratic in a long session (each request converts its whole
 * history); message-requests.ts is the linear path for the default preset.
 */
import type { Message } from "@earendil-works/pi-ai";
import type { Conversion, Registry } from "../registry/types.js";
import { type ConversionProblems, type ConvertedRequest, estimateOf, roleOf } from "./converted-request.js";
import { historyOf, type SessionRequests } from "./session-requests.js";

/**
 * Each request of `session` converted whole by `registry`, compared with the one before it.
 *
 * Contract: one `runAsync` per request, in file order, each given the previous one's result as
 * `previous` (the last that did not fail); a request's `prefix` is the registry's. The registry is
 * used for nothing else, so that a filter that keeps state between calls sees what it would live.
 */
export async function* wholeRequests(
	session: SessionRequests,
	registry: Registry,
	problems: ConversionProblems,
): AsyncGenerator<ConvertedRequest> {
	let previous: Conversion | undefined;
	for (const request of session.requests) {
		const conversion = await registry.runAsync(historyOf(session, request), { previous });
		problems.add(conversion.problems);
		const output = conversion.output;
		const failed = conversion.failed ? failure(conversion) : undefined;
		const before = previous?.output;
		const breakAt = conversion.prefix?.breakAt ?? null;
		let estimated = 0;
		// sums[i]: pi's estimate of what pi-ai sends of output[0..i).
		const sums = new Float64Array(output.length + 1);
		for (let i = 0; i < output.length; i++) {
			const estimate = estimateOf(output[i] as Message);
			estimated += estimate.all;
			sums[i + 1] = (sums[i] as number) + estimate.sent;
		}
		const sent = sums[output.length] as number;
		let addsSystem = false;
		if (before !== undefined && breakAt === null)
			for (let i = before.length; i < output.length && !addsSystem; i++) addsSystem = roleOf(output[i]) === "system";
		yield {
			messages: output.length,
			estimated,
			sent,
			prefix: previous === undefined ? undefined : conversion.prefix,
			sentFrom: (position) => sent - (sums[Math.min(Math.max(0, position), output.length)] as number),
			breakRoles: breakAt === null ? [undefined, undefined] : [roleOf(before?.[breakAt]), roleOf(output[breakAt])],
			addsSystem,
			failed,
			output: () => output,
			addedTo: () => undefined,
		};
		if (!conversion.failed) previous = conversion;
	}
}

function failure(conversion: Conversion): string {
	const last = conversion.problems.at(-1);
	return last === undefined ? "the conversion failed" : `the conversion failed: ${last.message}`;
}
