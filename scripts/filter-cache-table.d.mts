/** The budget of the trim rows, in pi's estimated tokens. */
export const MAX_TOKENS: number;
/** The tool-call window of the prune rows, in messages. */
export const PRUNE_WINDOW: number;
/** A history and its model calls: `calls[i]` is how many leading messages the i-th request converts. */
export interface CacheRun {
	history: unknown[];
	calls: number[];
}
/** What one configuration did over a run. */
export interface RunMeasure {
	requests: number;
	/** Tokens sent over the run (the estimate given). */
	sent: number;
	/** The largest request (the estimate given). */
	largest: number;
	/** Characters of the previous request repeated as a prefix by the next, over characters of the previous requests. */
	prefixKept: number;
	/** The same, from the first request the filter shortened on; `undefined` when none was. */
	prefixKeptFiltering: number | undefined;
	/** Requests that did not repeat the whole previous request as a prefix. */
	breaks: number;
	/** Input billed at cache prices (prefix at 0.1x, the rest at 1.25x), in tokens at the input price. */
	billed: number;
	/** The history's growth (estimated tokens) from the first request a filter shortened to the last. */
	growth: number;
}
/** The 120-turn history of the table (deterministic). */
export function cacheHistory(turns?: number, seed?: number): CacheRun;
/** Converts the history at each model call with `convert` and measures the run. */
export function measureRun<M>(
	convert: (history: never[]) => M[],
	run: CacheRun,
	estimate: (message: M) => number,
): RunMeasure;
/** The configurations of the table. */
export function configurations(): {
	label: string;
	trim: { maxTokens: number; step?: number } | undefined;
	prune: { toolCalls: string; step?: number } | undefined;
}[];
/** The markdown table of measured rows. */
export function renderTable(rows: ({ label: string } & RunMeasure)[]): string;
