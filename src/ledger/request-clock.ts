/** The time between a session's requests, and its cache warming calls (pi 1.x `usage` entries). */
import { readRecorded } from "./recorded-usage.js";
import type { RecordedRequest, SessionRequests } from "./session-requests.js";

/**
 * The time between requests: since the previous request, or a pi 1.x cache warming call between
 * the two, whichever is later; `null` (and a problem) when a time is missing or goes backwards.
 */
export class Clock {
	private last: number | undefined;
	private lastRequest: RecordedRequest | undefined;
	private call = 0;

	constructor(private readonly session: SessionRequests) {}

	since(request: RecordedRequest, note: (kind: "clock", message: string) => void): number | null {
		const previous = this.lastRequest;
		let last = this.last;
		const calls = this.session.calls;
		while (this.call < calls.length && (calls[this.call]?.line as number) < request.line) {
			const call = calls[this.call++];
			if (call?.kind === "cache_warm" && call.at !== undefined && (last === undefined || call.at > last))
				last = call.at;
		}
		this.last = request.sentAt;
		this.lastRequest = request;
		if (previous === undefined) return null;
		if (request.sentAt === undefined || last === undefined) {
			note(
				"clock",
				`The time of ${request.sentAt === undefined ? request.entryId : previous.entryId} is not recorded: whether the cache expired before ${request.entryId} cannot be judged.`,
			);
			return null;
		}
		if (request.sentAt < last) {
			note(
				"clock",
				`The clock goes backwards: ${request.entryId} was sent at ${new Date(request.sentAt).toISOString()}, before the request or cache warming call before it (${new Date(last).toISOString()}): whether the cache expired cannot be judged.`,
			);
			return null;
		}
		return request.sentAt - last;
	}
}

/** What the session's cache warming calls recorded. */
export function warmingOf(session: SessionRequests): { calls: number; cost: number } {
	let calls = 0;
	let cost = 0;
	for (const call of session.calls) {
		if (call.kind !== "cache_warm") continue;
		calls++;
		const recorded = readRecorded(call.usage).recorded;
		if (recorded?.cost != null) cost += recorded.cost;
	}
	return { calls, cost };
}
