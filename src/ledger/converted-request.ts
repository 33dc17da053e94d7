/**
 * One request as a configuration converts it: what the ledger needs of the output (its size by pi's
 * estimate, how it keeps the previous request's prefix), whichever path made it (whole-requests.ts
 * converts every request whole, message-requests.ts converts each message once).
 */
import type { Message } from "@earendil-works/pi-ai";
import { PrefixBreakNotice } from "../errors.js";
import { estimateTokens } from "../filters/estimate-tokens.js";
import { isSentToProvider } from "../filters/provider-facts.js";
import type { Prefix } from "../registry/types.js";
import { errorText, isInstance, isRecord } from "../values.js";

/** One converted request of a session, compared with the request before it. */
export interface ConvertedRequest {
	/** How many messages the conversion made. */
	messages: number;
	/** pi's chars/4 estimate of them all (`Infinity` when one cannot be estimated). */
	estimated: number;
	/** pi's estimate of the messages pi-ai sends (errored and aborted turns are left out). */
	sent: number;
	/** How it keeps the previous request's output; `undefined` for the first request. */
	prefix: Prefix | undefined;
	/** pi's estimate of the messages it sends from output `position` on (0 past the end). */
	sentFrom(position: number): number;
	/** The role of the message at the break, before and after (`undefined` past an end). */
	breakRoles: readonly [string | undefined, string | undefined];
	/** It adds a `system` message after the previous request's messages, which it keeps. */
	addsSystem: boolean;
	/** Why the conversion failed (its output is then empty), when it did. */
	failed: string | undefined;
	/** The output; valid until the next request is asked for. */
	output(): readonly Message[];
	/**
	 * The messages it adds to `earlier` (a request of the same list), when it sends `earlier`'s whole
	 * output first and the path that made it knows so without comparing them; else `undefined`.
	 */
	addedTo(earlier: ConvertedRequest): readonly Message[] | undefined;
}

/** Problems met converting, each line once (a break of the prefix is no problem: the ledger shows it). */
export class ConversionProblems {
	readonly lines: string[] = [];
	private readonly seen = new Set<string>();

	add(problems: readonly unknown[]): void {
		for (const problem of problems) {
			if (isInstance(problem, PrefixBreakNotice)) continue;
			const line = errorText(problem);
			if (this.seen.has(line)) continue;
			this.seen.add(line);
			this.lines.push(line);
		}
	}
}

/** A message's role, when it has a string one. */
export function roleOf(message: unknown): string | undefined {
	if (!isRecord(message)) return undefined;
	const role = message.role;
	return typeof role === "string" ? role : undefined;
}

/** pi's estimate of a message, and of what pi-ai sends of it. */
export function estimateOf(message: Message): { all: number; sent: number } {
	const all = estimateTokens(message);
	return { all, sent: isSentToProvider(message) ? all : 0 };
}

/** A request whose history could not be converted: no messages. */
export function emptyRequest(previous: Prefix | undefined, failed: string | undefined): ConvertedRequest {
	return {
		messages: 0,
		estimated: 0,
		sent: 0,
		prefix: previous,
		sentFrom: () => 0,
		breakRoles: [undefined, undefined],
		addsSystem: false,
		failed,
		output: () => [],
		addedTo: () => undefined,
	};
}
