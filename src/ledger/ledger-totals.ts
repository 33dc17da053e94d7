/** The ledger's totals and its list of problems, gathered as the rows are made. */
import type { LedgerProblem, LedgerRow, LedgerSums, LedgerTotals } from "./ledger-types.js";

/** Entry ids a problem lists before it only counts. */
const LISTED_ENTRIES = 5;

/** Problems, each sentence once with how many rows it concerns. */
export class LedgerProblems {
	private readonly byMessage = new Map<string, LedgerProblem>();

	add(kind: LedgerProblem["kind"], message: string, entryId?: string): void {
		let problem = this.byMessage.get(message);
		if (problem === undefined) {
			problem = { kind, message, count: 0, entryIds: [] };
			this.byMessage.set(message, problem);
		}
		problem.count++;
		if (entryId !== undefined && problem.entryIds.length < LISTED_ENTRIES) problem.entryIds.push(entryId);
	}

	list(): LedgerProblem[] {
		return [...this.byMessage.values()];
	}
}

const emptySums = (): LedgerSums => ({
	requests: 0,
	input: 0,
	output: 0,
	cacheRead: 0,
	cacheWrite: 0,
	cost: 0,
	costMissing: 0,
	outputMissing: 0,
});

/** The totals of `rows` (see `LedgerTotals`). */
export function totalsOf(
	rows: readonly LedgerRow[],
	failed: number,
	warming: { calls: number; cost: number },
): LedgerTotals {
	const recorded = emptySums();
	const modeled = emptySums();
	let billed = 0;
	let breaks = 0;
	let expired = 0;
	let misses = 0;
	let unexplained = 0;
	for (const row of rows) {
		if (row.prefix.breakAt !== null) breaks++;
		if (row.cache === "expired") expired++;
		if (row.miss !== null) misses++;
		if (row.unexplained) unexplained++;
		const bill = row.recorded;
		if (bill === null || row.modeled === null) continue;
		billed++;
		recorded.requests++;
		modeled.requests++;
		recorded.input += bill.input;
		recorded.cacheRead += bill.cacheRead;
		recorded.cacheWrite += bill.cacheWrite;
		modeled.input += row.modeled.input;
		modeled.cacheRead += row.modeled.cacheRead;
		modeled.cacheWrite += row.modeled.cacheWrite;
		for (const sums of [recorded, modeled]) {
			if (bill.output === null) sums.outputMissing++;
			else sums.output += bill.output;
		}
		if (bill.cost === null) recorded.costMissing++;
		else recorded.cost += bill.cost;
		if (row.modeled.cost === null) modeled.costMissing++;
		else modeled.cost += row.modeled.cost;
	}
	return { requests: rows.length, billed, failed, breaks, expired, misses, unexplained, recorded, modeled, warming };
}
