/**
 * The linear way to convert a session's requests, for a configuration that converts each message on
 * its own: the default preset (pi's conversion, what a session was sent with), whose converters read
 * nothing but their message and which taps no hook. Each message object is converted once, by
 * `registry.run([message])`, and a request's output is the concatenation of its messages' outputs:
 * what `registry.run(history)` returns for such a registry, in time linear in the session instead of
 * quadratic. Where a request does not extend the one before it (another branch, a compaction, a
 * context edit), both are converted whole with `run(history, { previous })` for the registry's own
 * prefix and cause, as whole-requests.ts does for every request.
 *
 * The two paths give the same requests on the same sessions (test/ledger/message-requests.test.ts
 * runs the case suite through both); the bench row in docs/ledger.md is why this one exists.
 */
import type { Message } from "@earendil-works/pi-ai";
import type { Conversion, Registry } from "../registry/types.js";
import {
	type ConversionProblems,
	type ConvertedRequest,
	emptyRequest,
	estimateOf,
	roleOf,
} from "./converted-request.js";
import { historyOf, type RecordedRequest, type RequestHistory, type SessionRequests } from "./session-requests.js";

/**
 * Each request of `session` converted by `registry`, which must convert each message on its own
 * (no hook tapped, no converter that reads `ctx.messages`): the default preset.
 *
 * Contract: the same requests {@link wholeRequests} gives for such a registry; each message object
 * is converted once (its outputs are shared by every request that sends it), and a request that
 * extends the previous one within a shared history costs only what it adds.
 */
export function* messageRequests(
	session: SessionRequests,
	registry: Registry,
	problems: ConversionProblems,
): Generator<ConvertedRequest> {
	const converted = new WeakMap<object, readonly Message[]>();
	const estimates = new WeakMap<object, { all: number; sent: number }>();
	const convert = (message: unknown): readonly Message[] => {
		const key = typeof message === "object" && message !== null ? message : undefined;
		const known = key === undefined ? undefined : converted.get(key);
		if (known !== undefined) return known;
		const conversion = registry.run([message as never]);
		problems.add(conversion.problems);
		if (key !== undefined) converted.set(key, conversion.output);
		return conversion.output;
	};
	const estimate = (message: Message): { all: number; sent: number } => {
		let known = estimates.get(message);
		if (known === undefined) {
			known = estimateOf(message);
			estimates.set(message, known);
		}
		return known;
	};
	const groups: (GroupOutputs | undefined)[] = [];
	const groupOf = (at: number): GroupOutputs => {
		let group = groups[at];
		if (group === undefined) {
			group = new GroupOutputs(session.histories[at] as RequestHistory, convert, estimate);
			groups[at] = group;
		}
		return group;
	};

	/** Where each request's output is: its shared history and how many of its outputs it sends. */
	const places = new WeakMap<ConvertedRequest, { history: number; end: number }>();
	let before: RecordedRequest | undefined;
	for (const request of session.requests) {
		if (request.history < 0) {
			yield emptyRequest(before === undefined ? undefined : prefixTo(before, undefined), undefined);
			before = request;
			continue;
		}
		const group = groupOf(request.history);
		group.ensure(request.length);
		const end = group.starts[request.length] as number;
		const all = group.all[end] as number;
		const sent = group.sent[end] as number;
		const current: ConvertedRequest = {
			messages: end,
			estimated: all,
			sent,
			prefix: undefined,
			sentFrom: (position) => sent - (group.sent[Math.min(Math.max(0, position), end)] as number),
			breakRoles: [undefined, undefined],
			addsSystem: false,
			failed: undefined,
			output: () => group.out.slice(0, end),
			addedTo: (earlier) => {
				const place = places.get(earlier);
				if (place === undefined || place.history !== request.history || place.end > end) return undefined;
				return group.out.slice(place.end, end);
			},
		};
		places.set(current, { history: request.history, end });
		if (before !== undefined) {
			const extends_ =
				before.history === request.history || before.history < 0 ? extension(before, request, groups) : undefined;
			if (extends_ !== undefined) {
				current.prefix = { kept: extends_, breakAt: null, cause: null };
				current.addsSystem = (group.systems[end] as number) > (group.systems[extends_] as number);
			} else {
				const prefix = prefixTo(before, request);
				current.prefix = prefix;
				// Kept whole: what follows the earlier request is new, and may add a system message.
				if (prefix.breakAt === null)
					for (let i = prefix.kept; i < end && !current.addsSystem; i++)
						current.addsSystem = roleOf(group.out[i]) === "system";
				if (prefix.breakAt !== null) {
					const previous = before.history < 0 ? undefined : groups[before.history];
					const previousEnd = previous === undefined ? 0 : (previous.starts[before.length] as number);
					current.breakRoles = [
						prefix.breakAt < previousEnd ? roleOf(previous?.out[prefix.breakAt]) : undefined,
						prefix.breakAt < end ? roleOf(group.out[prefix.breakAt]) : undefined,
					];
				}
			}
		}
		yield current;
		before = request;
	}

	/** The registry's own prefix of `request` against `previous`, both converted whole. */
	function prefixTo(previous: RecordedRequest, request: RecordedRequest | undefined) {
		const earlier: Conversion = registry.run(historyOf(session, previous));
		const later = registry.run(request === undefined ? [] : historyOf(session, request), { previous: earlier });
		return later.prefix ?? { kept: 0, breakAt: null, cause: null };
	}
}

/**
 * How many outputs `request` keeps of `before` when it extends it (`before`'s outputs all come
 * first): `before` had no history, or sent a prefix of the same shared history; else `undefined`.
 */
function extension(
	before: RecordedRequest,
	request: RecordedRequest,
	groups: readonly (GroupOutputs | undefined)[],
): number | undefined {
	if (before.history < 0) return 0;
	if (before.length > request.length) return undefined;
	return (groups[before.history] as GroupOutputs).starts[before.length] as number;
}

/** The outputs of one shared history's messages, converted as far as asked, with running sums. */
class GroupOutputs {
	/** Every output so far, in order. */
	readonly out: Message[] = [];
	/** Where message `i`'s outputs begin in {@link out}; the last entry is `out.length`. */
	readonly starts: number[] = [0];
	/** pi's estimate of `out[0..j)`: all of it, what pi-ai sends, and how many `system` messages. */
	readonly all: number[] = [0];
	readonly sent: number[] = [0];
	readonly systems: number[] = [0];

	constructor(
		private readonly history: RequestHistory,
		private readonly convert: (message: unknown) => readonly Message[],
		private readonly estimate: (message: Message) => { all: number; sent: number },
	) {}

	/** Converts the history's messages up to `length` (those not converted yet). */
	ensure(length: number): void {
		const { out, starts, all, sent, systems } = this;
		for (let i = starts.length - 1; i < length; i++) {
			const outputs = this.convert(this.history.messages[i]);
			for (let j = 0; j < outputs.length; j++) {
				const message = outputs[j] as Message;
				const estimate = this.estimate(message);
				out.push(message);
				all.push((all.at(-1) as number) + estimate.all);
				sent.push((sent.at(-1) as number) + estimate.sent);
				systems.push((systems.at(-1) as number) + (roleOf(message) === "system" ? 1 : 0));
			}
			starts.push(out.length);
		}
	}
}
