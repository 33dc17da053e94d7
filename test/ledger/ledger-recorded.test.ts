/**
 * The request ledger of two real pi sessions with Claude that recorded their bills
 * (test/fixtures/sessions/recorded/, from pi's own repository): the configuration they were sent
 * with is modeled as billed, every cache miss the bill shows is explained or flagged (found again
 * here from the raw usage, independently of the ledger), and a filter's what-if sends no more than was sent.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { trimToTokens } from "../../src/filters/index.js";
import { type RequestLedger, requestLedger } from "../../src/ledger/index.js";
import { createDefaultRegistry } from "../../src/preset.js";

const RECORDED = fileURLToPath(new URL("../fixtures/sessions/recorded", import.meta.url));

/** The sessions, and what their ledgers say (docs/ledger.md shows the same figures). */
const SESSIONS = [
	{ file: "pi-mono-before-compaction.jsonl", requests: 484, billed: 471, breaks: 2, misses: 12, unexplained: 8 },
	{ file: "pi-mono-large-session.jsonl", requests: 453, billed: 439, breaks: 0, misses: 37, unexplained: 30 },
] as const;

const text = (file: string): string => readFileSync(join(RECORDED, file), "utf8");
const ledgers = new Map<string, Promise<RequestLedger>>();
const asSent = (file: string): Promise<RequestLedger> => {
	let ledger = ledgers.get(file);
	if (ledger === undefined) {
		ledger = requestLedger({ text: text(file), file });
		ledgers.set(file, ledger);
	}
	return ledger;
};

/** The assistant entries' usages, in file order, straight from the JSON lines. */
function usages(file: string): { input: number; cacheRead: number; cacheWrite: number }[] {
	const out = [];
	for (const line of text(file).split("\n")) {
		if (line.trim() === "") continue;
		const entry = JSON.parse(line);
		if (entry.type === "message" && entry.message?.role === "assistant") out.push(entry.message.usage);
	}
	return out;
}

describe("requestLedger on recorded sessions", () => {
	it.each(SESSIONS)("should make one row per assistant entry of $file, $billed of them billed", async (session) => {
		const ledger = await asSent(session.file);

		expect(ledger.rows).toHaveLength(session.requests);
		expect(ledger.totals).toMatchObject({
			requests: session.requests,
			billed: session.billed,
			breaks: session.breaks,
		});
	});

	it.each(SESSIONS)("should model $file as sent within 1% of the bill, row by row and in total", async (session) => {
		const ledger = await asSent(session.file);

		for (const row of ledger.rows) {
			if (row.recorded === null) {
				expect(row.modeled).toBeNull();
				continue;
			}
			const modeled = row.modeled as NonNullable<typeof row.modeled>;
			for (const field of ["cacheRead", "cacheWrite", "input"] as const)
				expect(Math.abs(modeled[field] - row.recorded[field])).toBeLessThanOrEqual(row.recorded[field] * 0.01);
			expect(Math.abs((modeled.cost as number) - (row.recorded.cost as number))).toBeLessThanOrEqual(
				(row.recorded.cost as number) * 0.01,
			);
		}
		const { recorded, modeled } = ledger.totals;
		expect(Math.abs(modeled.cost - recorded.cost)).toBeLessThanOrEqual(recorded.cost * 0.01);
		expect(modeled).toEqual(recorded);
	});

	it.each(SESSIONS)("should explain or flag every cache miss $file's bill shows", async (session) => {
		const ledger = await asSent(session.file);
		const billed = usages(session.file);
		// Brute force: a billed request that read less than the last billed one left in the cache.
		let cached: number | null = null;
		const missed: number[] = [];
		billed.forEach((usage, index) => {
			const tokens = usage.input + usage.cacheRead + usage.cacheWrite;
			if (tokens === 0) return;
			if (cached !== null && cached - usage.cacheRead > Math.max(16, cached * 0.01)) missed.push(index);
			cached = usage.cacheRead + usage.cacheWrite;
		});

		expect(ledger.rows.filter((row) => row.miss !== null).map((row) => row.index)).toEqual(missed);
		for (const row of ledger.rows) expect(row.unexplained).toBe(row.miss !== null && row.miss.explainedBy === null);
		expect(ledger.totals).toMatchObject({ misses: session.misses, unexplained: session.unexplained });
	});

	it("should find the compactions of the recorded session as breaks of what was sent", async () => {
		const ledger = await asSent("pi-mono-before-compaction.jsonl");

		expect(ledger.rows.filter((row) => row.prefix.breakAt !== null).map((row) => [row.entryId, row.prefix])).toEqual([
			["00000362", { kept: 0, breakAt: 0, cause: "compaction" }],
			["00000631", { kept: 0, breakAt: 0, cause: "compaction" }],
		]);
		// The first request after the first compaction: its miss is the compaction's, though the aborted request before it broke.
		expect(ledger.rows.find((row) => row.entryId === "00000364")?.miss?.explainedBy).toBe("break");
	});

	it("should send no more than was sent with trimToTokens, and name the filter where it breaks the prefix", async () => {
		const file = "pi-mono-large-session.jsonl";
		const registry = createDefaultRegistry().use(trimToTokens({ maxTokens: 40_000, step: 10_000 }));
		const ledger = await requestLedger({ text: text(file), file }, { configuration: { name: "trim", registry } });
		const sent = await asSent(file);

		ledger.rows.forEach((row, index) => {
			const original = sent.rows[index] as (typeof sent.rows)[number];
			if (row.tokens.billed !== null)
				expect(row.tokens.billed).toBeLessThanOrEqual(original.tokens.billed as number);
			expect(row.recorded).toEqual(original.recorded);
			if (row.prefix.breakAt !== null) expect(row.prefix.cause).toBe("convert-to-llm:trim-to-tokens");
		});
		expect(ledger.totals.breaks).toBeGreaterThan(0);
		expect(ledger.totals.modeled.cost).toBeLessThan(ledger.totals.recorded.cost);
	});
});
