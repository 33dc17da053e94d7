/** The request ledger: `requestLedger()` and its result types. */

export { type LedgerOptions, requestLedger } from "./ledger.js";
export type {
	BreakCause,
	CacheExpectation,
	LedgerCounters,
	LedgerMiss,
	LedgerModeled,
	LedgerPrefix,
	LedgerProblem,
	LedgerRow,
	LedgerSums,
	LedgerTokens,
	LedgerTotals,
	RequestLedger,
} from "./ledger-types.js";
export { STRUCTURAL_CAUSES } from "./ledger-types.js";
export { piModelTable } from "./pi-model-table.js";
export { DEFAULT_CACHE_LIFETIME_MS, type ModelFacts, type ModelLookup, type ModelPrices } from "./prices.js";
export type { RecordedUsage } from "./recorded-usage.js";
export {
	type DiffMessage,
	type DiffRequest,
	type DiffSide,
	type RequestDiff,
	requestDiff,
	UnknownLeafError,
} from "./request-diff.js";
export type { LedgerSource } from "./session-requests.js";
