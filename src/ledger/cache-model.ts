/**
 * The ledger's cache model: how many prompt tokens each request of a configuration reads from the
 * provider's cache, writes to it and sends uncached, anchored on what the session recorded.
 *
 * The provider keeps what a request wrote (everything up to its last cache breakpoint: all but its
 * uncached tail) for the model's cache lifetime; the next request reads as much of it as it repeats
 * byte for byte, and writes the rest up to its own breakpoint. For the configuration the session was
 * sent with, the model gives back the recorded figures exactly; another configuration moves them by
 * what it changes: fewer tokens sent, and, where it breaks the prefix, less read and more written.
 * Token counts of other configurations are in billed tokens: the difference of pi's estimates scaled
 * by the session's own billed-per-estimated-token ratio (the calibrated counter's).
 *
 * A request without a bill (its usage cannot be read: an aborted request the provider reported
 * nothing for) is taken not to have touched the cache: what happened since the last billed request
 * (a break, an expiry, another model or thinking level) counts for the next billed one.
 *
 * Pure arithmetic over one row at a time, with the little state a cache has; worked by hand in
 * test/ledger/cache-model.test.ts and docs/ledger.md.
 */

/** What a configuration's conversion of one request says about its prefix. */
export interface PrefixFacts {
	/** pi's estimate of the messages pi-ai sends. */
	sent: number;
	/** Where the previous request's messages stop being repeated; `null` when all are. */
	breakAt: number | null;
	/** pi's estimate of the messages it sends from output `position` on. */
	sentFrom(position: number): number;
	/** The system prompt itself changes (a `system` message folded into it): nothing is read. */
	rewritesSystem: boolean;
}

/** One request, as the model needs it. */
export interface RowFacts {
	/** The recorded prompt tokens, or `null` when the usage cannot be read. */
	billed: { input: number; cacheRead: number; cacheWrite: number } | null;
	/** Billed tokens per estimated token (the calibrated counter's ratio). */
	ratio: number;
	/** No request came before it. */
	first: boolean;
	/** More than the model's cache lifetime passed since the previous request. */
	expired: boolean;
	/** Another model than the previous request's. */
	modelChanged: boolean;
	/** Another thinking level than the previous request's (Anthropic keys the message cache on it). */
	thinkingChanged: boolean;
	asSent: PrefixFacts;
	configured: PrefixFacts;
}

/** Prompt tokens of one request: read from the cache, written to it, and sent uncached. */
export interface CacheTokens {
	cacheRead: number;
	cacheWrite: number;
	input: number;
}

/** Why a request cannot read (all of) what the last billed request left in the cache. */
export type MissReason = "expired" | "model" | "thinking" | "break";

/** What the model says of one request. */
export interface RowModel {
	/** The configured request's tokens, anchored on the bill; `null` without one. */
	modeled: CacheTokens | null;
	/** The configured request's size in billed tokens (`modeled`'s sum); `null` without a bill. */
	prompt: number | null;
	/**
	 * Tokens the recorded request did not read of what the last billed request left in the cache
	 * (beyond {@link missTolerance}), when it read less; `null` otherwise.
	 */
	missed: number | null;
	/** The first reason that holds since the last billed request, as sent; `null` when none does. */
	reason: MissReason | null;
}

/** A recorded read this far short of what was cached counts as a miss: 1% of it, and at least 16 tokens. */
export function missTolerance(cached: number): number {
	return Math.max(16, cached * 0.01);
}

/** What happened to one configuration's cache since the last billed request. */
interface Since {
	/** The earliest break of the prefix (an output position), or `null`. */
	breakAt: number | null;
	rewritesSystem: boolean;
}

/**
 * The cache model of a session, one row at a time in request order.
 *
 * Contract: `row(facts)` for each request in order. For a billed request and a configuration that
 * sends what was sent (same estimates, same prefix), `modeled` equals the recorded `input`,
 * `cacheRead` and `cacheWrite` exactly. Otherwise the prompt is the bill plus `ratio` × the
 * difference of the estimates, the uncached tail is the recorded one (at most the prompt), the read
 * is the recorded read moved by the difference of what each configuration can reuse of the cache,
 * within what the prompt allows, and the rest is written. Every figure is `>= 0`.
 */
export class CacheModel {
	/** What the last billed request left in the cache, as sent and as configured (billed tokens); `null` before one. */
	private cachedAsSent: number | null = null;
	private cachedConfigured: number | null = null;
	private readonly sinceAsSent: Since = { breakAt: null, rewritesSystem: false };
	private readonly sinceConfigured: Since = { breakAt: null, rewritesSystem: false };
	private reason: MissReason | null = null;

	row(facts: RowFacts): RowModel {
		const { billed, ratio } = facts;
		this.reason ??= facts.expired
			? "expired"
			: facts.modelChanged
				? "model"
				: facts.thinkingChanged
					? "thinking"
					: facts.asSent.breakAt !== null || facts.asSent.rewritesSystem
						? "break"
						: null;
		const asSent = merge(this.sinceAsSent, facts.asSent);
		const configured = merge(this.sinceConfigured, facts.configured);
		if (billed === null) return { modeled: null, prompt: null, missed: null, reason: null };

		const blocked = facts.first || this.reason === "expired" || this.reason === "model";
		const thinking = this.reason === "thinking";
		const recordedPrompt = billed.input + billed.cacheRead + billed.cacheWrite;
		// What is not moved is taken as recorded, not recomputed: the as-sent row is the bill exactly.
		const grown = ratio * (facts.configured.sent - facts.asSent.sent);
		const prompt = grown === 0 ? recordedPrompt : Math.max(0, Math.round(recordedPrompt + grown));
		const reuseAsSent = blocked
			? 0
			: reusable(this.cachedAsSent, recordedPrompt, facts.asSent, asSent, thinking, ratio);
		const reuseConfigured = blocked
			? 0
			: reusable(this.cachedConfigured, prompt, facts.configured, configured, thinking, ratio);

		const tail = Math.min(billed.input, prompt);
		const moved = reuseConfigured - reuseAsSent;
		const cacheRead = clamp(moved === 0 ? billed.cacheRead : Math.round(billed.cacheRead + moved), 0, prompt - tail);
		const input = Math.min(billed.input, prompt - cacheRead);
		const cacheWrite = prompt - cacheRead - input;

		const cached = this.cachedAsSent;
		const missed =
			cached === null || facts.first || cached - billed.cacheRead <= missTolerance(cached)
				? null
				: cached - billed.cacheRead;
		const reason = this.reason;
		this.cachedAsSent = billed.cacheRead + billed.cacheWrite;
		this.cachedConfigured = cacheRead + cacheWrite;
		for (const since of [this.sinceAsSent, this.sinceConfigured]) {
			since.breakAt = null;
			since.rewritesSystem = false;
		}
		this.reason = null;
		return { modeled: { cacheRead, cacheWrite, input }, prompt, missed, reason: missed === null ? null : reason };
	}
}

/** Adds a request's break to what happened since the last billed request; returns the sum. */
function merge(since: Since, prefix: PrefixFacts): Since {
	if (prefix.breakAt !== null && (since.breakAt === null || prefix.breakAt < since.breakAt))
		since.breakAt = prefix.breakAt;
	if (prefix.rewritesSystem) since.rewritesSystem = true;
	return since;
}

/**
 * Billed tokens of a `prompt`-token request that repeat what the cache holds (`cached`, or nothing):
 * all of it when the requests since the last billed one kept its messages; up to the earliest break
 * (the prompt less the messages from there on); up to the messages when the thinking level changed
 * (the system prompt and tools stay cached); nothing when the system prompt itself changed.
 */
function reusable(
	cached: number | null,
	prompt: number,
	request: PrefixFacts,
	since: Since,
	thinking: boolean,
	ratio: number,
): number {
	if (cached === null || since.rewritesSystem) return 0;
	if (thinking) return Math.min(cached, Math.max(0, prompt - ratio * request.sent));
	if (since.breakAt === null) return cached;
	return Math.min(cached, Math.max(0, prompt - ratio * request.sentFrom(since.breakAt)));
}

function clamp(value: number, low: number, high: number): number {
	return value < low ? low : value > high ? Math.max(low, high) : value;
}
