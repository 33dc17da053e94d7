/**
 * `requestLedger()`: the entrance of the ledger. Reads a session once (session-requests.ts), converts
 * every recorded request as it was sent and, when asked, with another configuration, and makes one
 * row per request: its prefix against the previous one, what the cache should have done, what it
 * was billed, what the configuration would have been billed, and every miss the bill shows that
 * nothing explains.
 */
import {
	type CalibratedCounter,
	calibratedCounter,
	PI_ESTIMATE_LABEL,
	type TokenCount,
} from "../filters/calibrated-counter.js";
import { createDefaultRegistry } from "../preset.js";
import type { Registry } from "../registry/types.js";
import { isRecord } from "../values.js";
import { ledgerPrefix, rewritesSystem } from "./break-cause.js";
import { CacheModel, type PrefixFacts } from "./cache-model.js";
import { Calibration } from "./calibration.js";
import { ConversionProblems, type ConvertedRequest } from "./converted-request.js";
import { LedgerProblems, totalsOf } from "./ledger-totals.js";
import type { CacheExpectation, LedgerMiss, LedgerPrefix, LedgerRow, RequestLedger } from "./ledger-types.js";
import { messageRequests } from "./message-requests.js";
import { type ModelLookup, modeledCost, PriceBook } from "./prices.js";
import { type ReadUsage, readRecorded } from "./recorded-usage.js";
import { Clock, warmingOf } from "./request-clock.js";
import { type LedgerSource, readRequests, type SessionRequests } from "./session-requests.js";
import { wholeRequests } from "./whole-requests.js";

/**
 * Options of {@link requestLedger}.
 *
 * Contract: without `configuration` the rows convert as the session was sent (pi's default
 * conversion) and `modeled` equals `recorded`; with it, each request is converted whole by
 * `configuration.registry`, in file order (a fresh registry: a filter's window state is the
 * session's own), and `modeled` says what that configuration would have been billed. `models` is
 * asked once per model of the session; without it only the session's own prices are known and every
 * cache lives 5 minutes.
 *
 * @example
 * const registry = createDefaultRegistry().use(trimToTokens({ maxTokens: 40_000, step: 10_000 }));
 * await requestLedger({ text }, { configuration: { name: "trim 40k step 10k", registry }, models });
 */
export interface LedgerOptions {
	configuration?: { readonly name: string; readonly registry: Registry };
	models?: ModelLookup;
	/**
	 * The calibrated counter the ledger teaches each request as sent (a fresh `calibratedCounter()`
	 * by default): pass one to count the next request with what the session's bills taught it.
	 */
	counter?: CalibratedCounter;
}

/** The labels of the figures (which counter made each). */
const COUNTERS = Object.freeze({
	estimated: PI_ESTIMATE_LABEL,
	calibrated: "calibratedCounter(), from the bills before the request (pi's estimate until the first)",
	recorded: "billed, the usage the session recorded",
	modeled: "modeled, the bill moved by what the configuration changes",
});

/**
 * The request ledger of a session: one row per recorded request (see {@link RequestLedger}).
 *
 * Contract: reads the session once; never throws on bad usage, bad costs, unknown models or a clock
 * that goes backwards (each is named in `problems` and in its row's); the rows of the configuration
 * the session was sent with are built in time linear in the session. A failed conversion (a plugin
 * that throws in strict mode, an async tap past its timeout) is a row problem with an empty request.
 *
 * @throws {InvalidSessionError} when the source is not a pi session.
 * @example
 * const ledger = await requestLedger({ chunks: createReadStream(path), file: path });
 * for (const row of ledger.rows) console.log(row.entryId, row.cache, row.recorded?.cost, row.modeled?.cost);
 */
export async function requestLedger(source: LedgerSource, options: LedgerOptions = {}): Promise<RequestLedger> {
	const session = await readRequests(source);
	const conversions = new ConversionProblems();
	const asSent = messageRequests(session, createDefaultRegistry(), conversions);
	const configured =
		options.configuration === undefined
			? undefined
			: wholeRequests(session, options.configuration.registry, conversions);
	const usages = session.requests.map((request) => readRecorded(request.message.usage));
	const book = await priceBook(session, usages, options.models);
	const problems = new LedgerProblems();
	for (const line of session.problems) problems.add("session", line);
	for (const model of book.all())
		if (!model.listed && options.models !== undefined)
			problems.add(
				"model",
				`${model.model} is not in the model table: its cache is taken to live ${model.cacheLifetimeMs / 60_000} minutes, and only prices the session recorded are known`,
			);

	const rows: LedgerRow[] = [];
	const counter = options.counter ?? calibratedCounter();
	const learnt = new Calibration(counter);
	const cache = new CacheModel();
	const clock = new Clock(session);
	let failed = 0;
	for (const request of session.requests) {
		const sent = asSent.next().value as ConvertedRequest;
		const shown = configured === undefined ? sent : ((await configured.next()).value as ConvertedRequest);
		const usage = usages[request.index] as ReadUsage;
		const previous = session.requests[request.index - 1];
		const model = book.get(request.model);
		const rowProblems: string[] = [];
		const note = (kind: Parameters<LedgerProblems["add"]>[0], message: string) => {
			rowProblems.push(message);
			problems.add(kind, message, request.entryId);
		};
		if (request.problem !== undefined) note("session", `The request of ${request.entryId}: ${request.problem}.`);
		for (const line of usage.problems) note(usage.recorded === null ? "usage" : "cost", line);
		if (shown.failed !== undefined || sent.failed !== undefined) {
			failed++;
			note("conversion", (shown.failed ?? sent.failed) as string);
		}

		const options = request.model === undefined ? undefined : { model: request.model };
		const count: TokenCount | undefined =
			configured === undefined ? undefined : counter.count(shown.output(), options);
		const observed = learnt.observe(sent, usage, request.message.usage, options);
		const calibrated = count ?? observed;

		const sinceMs = clock.since(request, note);
		const lifetime = model?.cacheLifetimeMs ?? 5 * 60_000;
		const expired = sinceMs !== null && sinceMs > lifetime;
		const first = previous === undefined;
		const modelChanged = !first && previous.model !== request.model;
		const thinkingChanged = !first && previous.thinkingLevel !== request.thinkingLevel;
		const folds = model?.foldsSystem ?? true;
		const prefixSent = ledgerPrefix(sent, request.since, folds);
		const prefix = configured === undefined ? prefixSent : ledgerPrefix(shown, request.since, folds);
		const billed = usage.recorded;
		const modeled = cache.row({
			billed,
			ratio: counter.state().ratio,
			first,
			expired,
			modelChanged,
			thinkingChanged,
			asSent: factsOf(sent, prefixSent),
			configured: factsOf(shown, prefix),
		});
		const miss: LedgerMiss | null =
			modeled.missed === null ? null : { tokens: modeled.missed, explainedBy: modeled.reason };
		const unexplained = miss !== null && miss.explainedBy === null;
		if (unexplained && sinceMs === null)
			rowProblems.push("the time since the previous request is unknown, so an expired cache cannot be ruled out");
		let cost: number | null = null;
		if (billed !== null && modeled.modeled !== null) {
			const priced = modeledCost(book, request.model, billed, modeled.modeled, usage.unitPrices);
			cost = priced.cost;
			if (priced.reason !== undefined) note("price", `Not priced: ${priced.reason}.`);
		}
		rows.push({
			index: request.index,
			entryId: request.entryId,
			leafId: request.leafId,
			line: request.line,
			model: request.model ?? null,
			sentAt: request.sentAt ?? null,
			sinceMs,
			messages: shown.messages,
			tokens: {
				estimated: shown.estimated,
				calibrated: calibrated.tokens,
				calibratedKind: calibrated.kind === "calibrated" ? "calibrated" : "estimate",
				calibratedLabel:
					calibrated.fallback === undefined ? calibrated.label : `${calibrated.label}: ${calibrated.fallback}`,
				billed: modeled.prompt,
			},
			prefix,
			cache: expectation({ first, expired, modelChanged, thinkingChanged, prefix }),
			recorded: billed,
			miss,
			unexplained,
			modeled: modeled.modeled === null ? null : { ...modeled.modeled, cost },
			problems: rowProblems,
		});
	}
	for (const line of conversions.lines) problems.add("conversion", line);
	return {
		file: session.file ?? null,
		configuration: {
			name: options.configuration?.name ?? "as sent (pi's default conversion)",
			asSent: options.configuration === undefined,
		},
		rows,
		totals: totalsOf(rows, failed, warmingOf(session)),
		models: book.all(),
		counters: COUNTERS,
		problems: problems.list(),
	};
}

/** The models of the session, looked up once each, with the prices the session recorded. */
async function priceBook(
	session: SessionRequests,
	usages: readonly ReadUsage[],
	lookup: ModelLookup | undefined,
): Promise<PriceBook> {
	const book = new PriceBook();
	const seen = new Set<string>();
	for (const request of session.requests) {
		const model = request.model;
		if (model === undefined || seen.has(model)) continue;
		seen.add(model);
		const { provider, model: id } = request.message as { provider: string; model: string };
		let facts: Awaited<ReturnType<ModelLookup>>;
		try {
			facts = lookup === undefined ? undefined : await lookup(provider, id);
		} catch {
			facts = undefined;
		}
		book.add(model, isRecord(facts) ? facts : undefined);
	}
	for (const request of session.requests)
		if (request.model !== undefined) book.learn(request.model, (usages[request.index] as ReadUsage).unitPrices);
	return book;
}

function factsOf(request: ConvertedRequest, prefix: LedgerPrefix): PrefixFacts {
	return {
		sent: request.sent,
		breakAt: prefix.breakAt,
		sentFrom: request.sentFrom,
		rewritesSystem: rewritesSystem(prefix),
	};
}

function expectation(facts: {
	first: boolean;
	expired: boolean;
	modelChanged: boolean;
	thinkingChanged: boolean;
	prefix: LedgerPrefix;
}): CacheExpectation {
	if (facts.first) return "first";
	if (facts.expired) return "expired";
	if (facts.modelChanged || facts.thinkingChanged || facts.prefix.breakAt === 0) return "write";
	return "read";
}
