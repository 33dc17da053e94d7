/**
 * Bad input gets a clear answer from the ledger and breaks nothing else: sessions without usage,
 * usage of zeros or of the wrong types, bad costs, unknown models and prices, a clock that goes
 * backwards or is missing, a request whose parent is not in the file, a model table that fails.
 */
import { describe, expect, it } from "vitest";
import { InvalidSessionError } from "../../src/errors.js";
import { pruneMessages } from "../../src/filters/index.js";
import { type LedgerOptions, requestLedger } from "../../src/ledger/index.js";
import { readRecorded } from "../../src/ledger/recorded-usage.js";
import { createDefaultRegistry } from "../../src/preset.js";
import { sessionText, smallSession, T0, usage } from "./small-session.js";

const ledgerOf = (entries: Record<string, unknown>[], options: LedgerOptions = {}) =>
	requestLedger({ text: sessionText(entries), file: "bad.jsonl" }, options);

/** A configuration that changes every request (its older tool results pruned), so that its costs must be priced. */
const pruning = (): LedgerOptions => ({
	configuration: {
		name: "prune",
		registry: createDefaultRegistry().use(pruneMessages({ toolCalls: [{ type: "before-last-message" }] })),
	},
});

describe("requestLedger on bad input", () => {
	it.each([
		["no usage", undefined, "no usage was recorded (an older session, or a provider that omits it)"],
		[
			"usage of zeros",
			{ input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
			"the usage is all zeros: the provider reported none (e.g. the request was aborted before it answered)",
		],
		["usage of the wrong type", "12 tokens", 'the usage is a string ("12 tokens"), not an object'],
		[
			"a field of the wrong type",
			{ input: "3", cacheRead: 0, cacheWrite: 1 },
			'usage.input is a string ("3"), not a finite number >= 0',
		],
		[
			"a negative field",
			{ input: 3, cacheRead: -1, cacheWrite: 1 },
			"usage.cacheRead is number -1, not a finite number >= 0",
		],
	])("should list a request with %s, unpriced, and say why", async (_, bad, reason) => {
		const ledger = await ledgerOf(smallSession({ a2: { usage: bad } }));
		const row = ledger.rows[1];

		expect(row).toMatchObject({ entryId: "a2", recorded: null, modeled: null, miss: null, unexplained: false });
		expect(row?.problems).toContain(reason);
		expect(ledger.problems).toContainEqual({ kind: "usage", message: reason, count: 1, entryIds: ["a2"] });
		expect(ledger.totals).toMatchObject({ requests: 4, billed: 3 });
		// The next request is still modeled from the bill before: nothing it recorded is lost.
		expect(ledger.rows[2]?.modeled).toMatchObject({ cacheRead: 1717, cacheWrite: 720, input: 3 });
	});

	it("should read a session without any usage: every figure pi's estimate, and nothing priced", async () => {
		const entries = smallSession(
			Object.fromEntries(["a1", "a2", "a3", "a4"].map((id) => [id, { usage: undefined }])),
		);
		const ledger = await ledgerOf(entries, pruning());

		expect(ledger.totals).toMatchObject({ requests: 4, billed: 0, misses: 0 });
		for (const row of ledger.rows) {
			expect(row).toMatchObject({
				recorded: null,
				modeled: null,
				tokens: { calibratedKind: "estimate", billed: null },
			});
			expect(row.tokens.calibrated).toBe(row.tokens.estimated);
		}
		expect(ledger.problems.map((problem) => [problem.message, problem.count])).toEqual([
			["no usage was recorded (an older session, or a provider that omits it)", 4],
		]);
	});

	it.each([
		["negative", -1, "usage.cost.total is number -1, not a finite number >= 0"],
		["not a number", "0.01", 'usage.cost.total is a string ("0.01"), not a finite number >= 0'],
		["null", null, "usage.cost.total is null, not a finite number >= 0"],
	])(
		"should keep the tokens of a usage whose cost is %s, and price it from the session's own prices",
		async (_, total, reason) => {
			const bad = { ...usage(3, 997, 720), cost: { ...usage(3, 997, 720).cost, total } };
			const ledger = await ledgerOf(smallSession({ a2: { usage: bad } }));
			const row = ledger.rows[1];

			expect(row?.recorded).toEqual({ input: 3, output: 10, cacheRead: 997, cacheWrite: 720, cost: null });
			expect(row?.problems).toEqual([reason]);
			// Priced at what the request itself was billed per token: the cost it should have recorded.
			expect(row?.modeled?.cost).toBeCloseTo(usage(3, 997, 720).cost.total, 12);
			expect(ledger.totals.recorded.costMissing).toBe(1);
			expect(ledger.totals.modeled.costMissing).toBe(0);
		},
	);

	it("should name what it cannot price for a model no table lists and no bill priced", async () => {
		const unknown = { provider: "acme", model: "x-1" };
		const totalOnly = (billed: ReturnType<typeof usage>) => ({ ...billed, cost: { total: billed.cost.total } });
		const entries = smallSession({
			a1: { ...unknown, usage: totalOnly(usage(3, 0, 997)) },
			a2: { ...unknown, usage: totalOnly(usage(3, 997, 720)) },
			a3: { ...unknown, usage: totalOnly(usage(3, 1717, 720)) },
			a4: { ...unknown, usage: totalOnly(usage(3, 2437, 240)) },
		});
		const ledger = await ledgerOf(entries, { ...pruning(), models: () => undefined });

		expect(ledger.models).toEqual([
			{
				model: "acme/x-1",
				cacheLifetimeMs: 300_000,
				cacheLifetimeFrom: "default",
				listed: false,
				foldsSystem: true,
				perToken: {},
			},
		]);
		const unpriced = ledger.rows.filter((row) => row.modeled !== null && row.modeled.cost === null);
		expect(unpriced.length).toBeGreaterThan(0);
		expect(ledger.problems.map((problem) => problem.message)).toContain(
			"acme/x-1 is not in the model table: its cache is taken to live 5 minutes, and only prices the session recorded are known",
		);
		expect(unpriced[0]?.problems.join(" ")).toMatch(
			/^Not priced: no cache(Read|Write) price for acme\/x-1: the model table does not list it, and no request of the session recorded one\.$/,
		);
	});

	it("should take a model table that throws, or answers nonsense, as not knowing the model", async () => {
		const throwing = await ledgerOf(smallSession(), {
			models: () => {
				throw new Error("offline");
			},
		});
		const nonsense = await ledgerOf(smallSession(), {
			models: () => ({ cost: { input: "3" }, cacheLifetimeSeconds: -5 }) as never,
		});

		expect(throwing.models[0]).toMatchObject({ listed: false, cacheLifetimeMs: 300_000 });
		expect(nonsense.models[0]).toMatchObject({
			listed: true,
			cacheLifetimeMs: 300_000,
			cacheLifetimeFrom: "default",
		});
		expect(nonsense.models[0]?.perToken.input).toMatchObject({ from: "session" });
	});

	it("should not judge an expiry when the clock goes backwards, and say so", async () => {
		const ledger = await ledgerOf(smallSession({ a3: { timestamp: T0 - 60_000 } }));

		expect(ledger.rows[2]).toMatchObject({ sinceMs: null, cache: "read" });
		expect(ledger.rows[3]?.sinceMs).toBe(T0 + 40_000 - (T0 - 60_000));
		expect(ledger.problems).toContainEqual({
			kind: "clock",
			message: `The clock goes backwards: a3 was sent at ${new Date(T0 - 60_000).toISOString()}, before the request or cache warming call before it (${new Date(T0 + 20_000).toISOString()}): whether the cache expired cannot be judged.`,
			count: 1,
			entryIds: ["a3"],
		});
	});

	it("should say when a request's time is not recorded", async () => {
		const entries = smallSession({ a3: { timestamp: "soon" } }).map((entry) =>
			entry.id === "a3" ? { ...entry, timestamp: "not a date" } : entry,
		);
		const ledger = await ledgerOf(entries);

		expect(ledger.rows[2]?.sinceMs).toBeNull();
		expect(ledger.rows[2]?.problems).toContain(
			"The time of a3 is not recorded: whether the cache expired before a3 cannot be judged.",
		);
	});

	it("should count a request whose parent is not in the file as sending nothing, and say so", async () => {
		const entries = smallSession().map((entry) => (entry.id === "a2" ? { ...entry, parentId: "gone" } : entry));
		const ledger = await ledgerOf(entries);

		expect(ledger.rows[1]).toMatchObject({ messages: 0, leafId: "gone" });
		expect(ledger.rows[1]?.problems).toContain(
			'The request of a2: its parent "gone" is not in the file, so the history it sent cannot be rebuilt (counted as empty).',
		);
	});

	it("should refuse what is not a pi session", async () => {
		await expect(requestLedger({ text: "[]\n", file: "array.json" })).rejects.toBeInstanceOf(InvalidSessionError);
	});
});

describe("readRecorded", () => {
	it.each([
		["NaN", Number.NaN, "usage.cost.total is number NaN, not a finite number >= 0"],
		["infinite", Number.POSITIVE_INFINITY, "usage.cost.total is number Infinity, not a finite number >= 0"],
		["negative", -0.5, "usage.cost.total is number -0.5, not a finite number >= 0"],
	])("should keep the tokens of a usage whose cost is %s and say why its cost is null", (_, total, reason) => {
		const read = readRecorded({
			input: 3,
			output: 5,
			cacheRead: 10,
			cacheWrite: 2,
			cost: { total, input: Number.NaN },
		});

		expect(read).toEqual({
			recorded: { input: 3, output: 5, cacheRead: 10, cacheWrite: 2, cost: null },
			unitPrices: {},
			problems: [reason],
		});
	});

	it("should say when no cost was recorded, or the output is missing", () => {
		expect(readRecorded({ input: 3, cacheRead: 0, cacheWrite: 2 }).problems).toEqual([
			"usage.output is missing",
			"no cost was recorded (usage.cost is missing)",
		]);
	});

	it("should read the price per token of each field that has tokens and a cost", () => {
		expect(readRecorded(usage(3, 1000, 0)).unitPrices).toEqual({
			input: expect.closeTo(3e-6, 15),
			output: expect.closeTo(15e-6, 15),
			cacheRead: expect.closeTo(0.3e-6, 15),
		});
	});
});
