/**
 * The request ledger's result: one row per request a session recorded, what the prompt cache should
 * have done with it, what it was billed and what a configuration would have been billed. Plain data
 * (`JSON.stringify` writes it whole), made for the CLI's `--requests`, the HTML report's ledger
 * chart and the pi extension alike.
 */
import type { ModelPrices } from "./prices.js";
import type { RecordedUsage } from "./recorded-usage.js";

/** The causes of a prefix break that the session's own structure names (any other cause is a plugin's name). */
export const STRUCTURAL_CAUSES = Object.freeze(["compaction", "branch", "context_edit", "system", "history"] as const);

/**
 * What broke a request's prompt prefix: a plugin's name (`"convert-to-llm:trim-to-tokens"`), or
 * what the session did between the two requests.
 *
 * Contract: `"branch"` the earlier request's leaf is not on this one's path; `"compaction"` a
 * compaction lies between them; `"context_edit"` a `context_edit` lies between them; `"system"` the
 * system prompt or the tools changed (pi 1.x: a `system` message differs where the prefix breaks, or
 * one was added and the model takes none mid-conversation, so pi-ai folds it into the system prompt);
 * `"history"` the history differs and the session says nothing more; any other string is the name of
 * the plugin whose converter or tap changed the message.
 *
 * @example
 * const cause: BreakCause = "convert-to-llm:prune-messages";
 */
export type BreakCause = (typeof STRUCTURAL_CAUSES)[number] | (string & {});

/**
 * How a request keeps the previous request's prompt prefix.
 *
 * Contract: as the registry's `Prefix` (`kept` leading messages of the previous request's converted
 * output repeated byte for byte, `breakAt` `kept` when that is short of the previous output, else
 * `null`), except that a `system` message folded into the system prompt breaks at 0 (`kept` 0,
 * cause `"system"`), and a registry cause of `"history"` is refined from the session's structure.
 * The first request has `kept` 0, `breakAt` `null` and `cause` `null`.
 *
 * @example
 * if (row.prefix.breakAt !== null) console.log(`breaks at message ${row.prefix.breakAt}: ${row.prefix.cause}`);
 */
export interface LedgerPrefix {
	kept: number;
	breakAt: number | null;
	cause: BreakCause | null;
}

/**
 * What the provider should have done with the cache, given the prefix and the time since the
 * previous request.
 *
 * Contract: `"first"` no request came before; `"expired"` more than the model's cache lifetime
 * passed since the previous request (or a cache warming call); `"write"` nothing of the previous
 * request's messages can be read (the prefix breaks at 0, the system prompt changed, another model
 * or thinking level); `"read"` the request reads the previous request's messages up to the break (or
 * all of them) and writes the rest.
 *
 * @example
 * const misses = ledger.rows.filter((row) => row.cache !== "read").length;
 */
export type CacheExpectation = "first" | "read" | "write" | "expired";

/**
 * A request's size in tokens, each figure with the counter that made it.
 *
 * Contract: `estimated` is pi's chars/4 estimate of the converted messages (`estimateTokens` summed,
 * errored and aborted turns included as pi counts them); `calibrated` is `calibratedCounter()`'s
 * count of the configured request, trained on the bills of the requests before it only (what a host
 * would have known before sending), and `calibratedKind`/`calibratedLabel` say whether it is
 * calibrated or fell back to pi's estimate; `billed` is the request's prompt size in billed tokens:
 * the recorded `input + cacheRead + cacheWrite` for the configuration it was sent with, the modeled
 * one for another, `null` without a bill.
 *
 * @example
 * console.log(`${row.tokens.calibrated} (${row.tokens.calibratedLabel}), billed ${row.tokens.billed}`);
 */
export interface LedgerTokens {
	estimated: number;
	calibrated: number;
	calibratedKind: "estimate" | "calibrated";
	calibratedLabel: string;
	billed: number | null;
}

/**
 * A cache miss the recorded usage shows: the request read less than the previous billed request left
 * in the cache, and what explains it.
 *
 * Contract: `tokens` is how much less (beyond 1%, at least 16 tokens); `explainedBy` names the first
 * explanation that holds (`"expired"`, `"model"` another model, `"thinking"` another thinking
 * level, `"break"` the prefix as sent broke), or `null` when none does (the row is then
 * `unexplained`).
 *
 * @example
 * if (row.miss?.explainedBy === null) console.warn(`${row.entryId}: ${row.miss.tokens} tokens missed, unexplained`);
 */
export interface LedgerMiss {
	tokens: number;
	explainedBy: "expired" | "model" | "thinking" | "break" | null;
}

/**
 * A request's prompt tokens and cost as the ledger models them for its configuration.
 *
 * Contract: anchored on the bill: for the configuration the session was sent with, `cacheRead`,
 * `cacheWrite` and `input` are the recorded ones and `cost` the recorded cost; for another they move
 * by what it changes (see docs/ledger.md, "The model"). `cost` is in USD, `null` when a price it
 * needs is unknown (the row's `problems` say which).
 *
 * @example
 * const saved = (row.recorded?.cost ?? 0) - (row.modeled?.cost ?? 0);
 */
export interface LedgerModeled {
	cacheRead: number;
	cacheWrite: number;
	input: number;
	cost: number | null;
}

/**
 * One request the session recorded (an assistant entry) and the request it was: the conversion of its
 * path up to its parent, with the ledger's configuration.
 *
 * Contract: rows are in file order (the order pi sent them). `prefix`, `cache` and `sinceMs` compare
 * with the previous row. `recorded` is the usage exactly as the session holds it, or `null` when it
 * cannot be read (`problems` say why); `modeled` is `null` exactly when `recorded` is. `unexplained`
 * is `true` when the recorded usage shows a miss ({@link LedgerMiss}) that nothing explains: never
 * hidden. Times are ms since the epoch, as pi records them.
 *
 * @example
 * for (const row of ledger.rows) if (row.unexplained) console.warn(`${row.entryId}: unexplained cache miss`);
 */
export interface LedgerRow {
	index: number;
	/** The assistant entry. */
	entryId: string;
	/** The entry the request was sent from (its parent; `--leaf` and `--diff` take it). */
	leafId: string | null;
	/** The assistant entry's line in the file. */
	line: number;
	/** `provider/model` that answered. */
	model: string | null;
	/** When the request was sent (the assistant message's timestamp), in ms. */
	sentAt: number | null;
	/** Time since the previous request (or cache warming call), in ms; `null` for the first, or when the clock cannot tell. */
	sinceMs: number | null;
	/** Converted messages sent. */
	messages: number;
	tokens: LedgerTokens;
	prefix: LedgerPrefix;
	cache: CacheExpectation;
	recorded: RecordedUsage | null;
	miss: LedgerMiss | null;
	unexplained: boolean;
	modeled: LedgerModeled | null;
	/** What could not be read, priced or judged for this row, one sentence each. */
	problems: string[];
}

/**
 * Sums of recorded or modeled figures.
 *
 * Contract: over the rows that have the figure; `costMissing` counts the rows summed whose cost is
 * `null` (their cost is not in `cost`), `outputMissing` likewise for `output`.
 *
 * @example
 * console.log(`$${totals.recorded.cost.toFixed(2)} billed, $${totals.modeled.cost.toFixed(2)} modeled`);
 */
export interface LedgerSums {
	requests: number;
	input: number;
	output: number;
	cacheRead: number;
	cacheWrite: number;
	cost: number;
	costMissing: number;
	outputMissing: number;
}

/**
 * The ledger's totals.
 *
 * Contract: `recorded` and `modeled` are summed over the same rows (those with a bill), so that they
 * compare like with like; `modeled.output` is the recorded output (a configuration does not change
 * what the model answered). `failed`, `breaks`, `expired`, `misses` and `unexplained` count rows; `warming` is
 * what pi 1.x's cache warming calls (`usage` entries of kind `cache_warm`) recorded.
 *
 * @example
 * const change = totals.modeled.cost / totals.recorded.cost - 1; // -0.2: 20% cheaper
 */
export interface LedgerTotals {
	requests: number;
	billed: number;
	/** Requests whose conversion failed closed (an async tap past its time limit): their rows are empty. */
	failed: number;
	breaks: number;
	expired: number;
	misses: number;
	unexplained: number;
	recorded: LedgerSums;
	modeled: LedgerSums;
	warming: { calls: number; cost: number };
}

/**
 * Something the ledger could not read, price or judge, counted.
 *
 * Contract: `kind` says what it concerns; `message` is one sentence; `count` how many rows (or
 * lines) it concerns, `entryIds` the first few of them.
 *
 * @example
 * for (const problem of ledger.problems) console.warn(`${problem.message} (${problem.count}×)`);
 */
export interface LedgerProblem {
	kind: "session" | "conversion" | "usage" | "cost" | "price" | "clock" | "model";
	message: string;
	count: number;
	entryIds: string[];
}

/**
 * The counter behind each kind of figure, as a sentence to print beside it.
 *
 * @example
 * console.log(`estimated: ${ledger.counters.estimated}`);
 */
export interface LedgerCounters {
	estimated: string;
	calibrated: string;
	recorded: string;
	modeled: string;
}

/**
 * The request ledger of a session.
 *
 * Contract: one row per assistant entry of the session, in file order, whatever its usage says;
 * `configuration.asSent` is `true` when the rows convert as the session was sent (pi's default
 * conversion), in which case every row's `modeled` equals its `recorded` figures; `models` lists each
 * model the session used with the cache lifetime and prices the ledger used; `problems` names
 * everything it could not read, price or judge, and why.
 *
 * @example
 * const ledger = await requestLedger({ text }, { configuration: { name: "trim 40k", registry } });
 * console.log(ledger.totals.recorded.cost, ledger.totals.modeled.cost);
 */
export interface RequestLedger {
	file: string | null;
	configuration: { name: string; asSent: boolean };
	rows: LedgerRow[];
	totals: LedgerTotals;
	models: ModelPrices[];
	counters: LedgerCounters;
	problems: LedgerProblem[];
}
