/**
 * `requestLedger` on a small session worked out by hand (small-session.ts): the rows as sent equal the
 * bill; a configuration that elides older tool results moves it exactly as the arithmetic in
 * docs/ledger.md says; an expiry explains a miss, and a miss nothing explains is flagged.
 */
import type { Message } from "@earendil-works/pi-ai";
import { describe, expect, it } from "vitest";
import { requestLedger } from "../../src/ledger/index.js";
import { createDefaultRegistry } from "../../src/preset.js";
import type { Plugin } from "../../src/registry/types.js";
import { PRICE, sessionText, smallSession, T0, usage } from "./small-session.js";

/** Replaces every tool result but the last with `[elided]` (2 estimated tokens): a filter that moves a window. */
const ELIDE = "test:elide-old-results";
const elide: Plugin = {
	name: ELIDE,
	apply(registry) {
		registry.hooks.afterConvert.tap(ELIDE, (messages: Message[]) => {
			let last = -1;
			messages.forEach((message, index) => {
				if (message.role === "toolResult") last = index;
			});
			return messages.map((message, index) =>
				message.role === "toolResult" && index !== last
					? { ...message, content: [{ type: "text" as const, text: "[elided]" }] }
					: message,
			);
		});
	},
};

const ledgerOf = (entries = smallSession(), configuration?: Plugin[]) =>
	requestLedger(
		{ text: sessionText(entries), file: "small.jsonl" },
		configuration === undefined
			? {}
			: { configuration: { name: "elide", registry: createDefaultRegistry({ plugins: configuration }) } },
	);

describe("requestLedger", () => {
	it("should make one row per assistant entry, each the conversion of its path up to its parent", async () => {
		const ledger = await ledgerOf();

		expect(ledger.rows.map((row) => [row.entryId, row.leafId, row.messages, row.sinceMs])).toEqual([
			["a1", "u1", 1, null],
			["a2", "t1", 3, 10_000],
			["a3", "t2", 5, 10_000],
			["a4", "u2", 7, 10_000],
		]);
		expect(ledger.rows.map((row) => row.prefix)).toEqual([
			{ kept: 0, breakAt: null, cause: null },
			{ kept: 1, breakAt: null, cause: null },
			{ kept: 3, breakAt: null, cause: null },
			{ kept: 5, breakAt: null, cause: null },
		]);
		expect(ledger.rows.map((row) => row.cache)).toEqual(["first", "read", "read", "read"]);
		expect(ledger.rows[0]?.sentAt).toBe(T0 + 10_000);
	});

	it("should say which counter made each token figure: pi's estimate, then calibrated on the bills before", async () => {
		const ledger = await ledgerOf();

		expect(ledger.rows.map((row) => row.tokens)).toEqual([
			{
				estimated: 100,
				calibrated: 100,
				calibratedKind: "estimate",
				calibratedLabel: "pi estimate (chars/4): no billed request observed yet",
				billed: 1000,
			},
			// 1,000 billed + 1 × (700 − 100): one bill teaches no ratio yet.
			{
				estimated: 700,
				calibrated: 1600,
				calibratedKind: "calibrated",
				calibratedLabel: "calibrated on 1 billed request",
				billed: 1720,
			},
			// 1,720 + 1.2 × (1,300 − 700): the ratio the two bills teach.
			{
				estimated: 1300,
				calibrated: 2440,
				calibratedKind: "calibrated",
				calibratedLabel: "calibrated on 2 billed requests",
				billed: 2440,
			},
			{
				estimated: 1500,
				calibrated: 2680,
				calibratedKind: "calibrated",
				calibratedLabel: "calibrated on 3 billed requests",
				billed: 2680,
			},
		]);
		expect(ledger.counters.estimated).toBe("pi estimate (chars/4)");
	});

	it("should model exactly the bill for the configuration the session was sent with", async () => {
		const ledger = await ledgerOf();

		for (const row of ledger.rows) {
			const recorded = row.recorded as NonNullable<typeof row.recorded>;
			expect(row.modeled).toEqual({
				cacheRead: recorded.cacheRead,
				cacheWrite: recorded.cacheWrite,
				input: recorded.input,
				cost: recorded.cost,
			});
			expect(row.miss).toBeNull();
			expect(row.unexplained).toBe(false);
		}
		expect(ledger.configuration).toEqual({ name: "as sent (pi's default conversion)", asSent: true });
		expect(ledger.totals.modeled).toEqual(ledger.totals.recorded);
		expect(ledger.totals.recorded).toMatchObject({
			requests: 4,
			input: 12,
			cacheRead: 5151,
			cacheWrite: 2677,
			output: 40,
		});
		expect(ledger.problems).toEqual([]);
	});

	it("should move the bill by what a configuration changes, as worked out by hand", async () => {
		const ledger = await ledgerOf(smallSession(), [elide]);
		const [first, second, third, fourth] = ledger.rows;

		// Until a second tool result comes, the configuration sends what was sent.
		expect(first?.modeled).toEqual({ cacheRead: 0, cacheWrite: 997, input: 3, cost: first?.recorded?.cost });
		expect(second?.modeled).toEqual({ cacheRead: 997, cacheWrite: 720, input: 3, cost: second?.recorded?.cost });
		// Then it elides T1 (500 → 2 estimated tokens): the prefix breaks at message 2 of 5, 802 estimated
		// tokens are sent instead of 1,300, 602 of them from the break on.
		expect(third).toMatchObject({
			messages: 5,
			prefix: { kept: 2, breakAt: 2, cause: ELIDE },
			cache: "read",
			// prompt: 2,440 + 1.2 × (802 − 1,300) = 1,842.4; calibrated: 1,720 + 1.2 × (802 − 700), the same.
			tokens: { estimated: 802, calibrated: 1842, billed: 1842 },
		});
		// Readable: up to the break, 1,842.4 − 1.2 × 602 = 1,119.6 of the 1,717 cached; the rest but the tail is written.
		expect(third?.modeled).toMatchObject({ cacheRead: 1120, cacheWrite: 719, input: 3 });
		expect(third?.modeled?.cost).toBeCloseTo(
			(third?.recorded?.cost as number) - 597 * PRICE.cacheRead - 1 * PRICE.cacheWrite,
			12,
		);
		// The second prompt adds no tool result: T1 stays elided, nothing breaks, 1,002 estimated tokens.
		expect(fourth).toMatchObject({
			prefix: { kept: 5, breakAt: null, cause: null },
			tokens: { estimated: 1002, calibrated: 2082, billed: 2082 },
		});
		// 2,680 + 1.2 × (1,002 − 1,500) = 2,082.4; all 1,839 the third request left in the cache are read.
		expect(fourth?.modeled).toMatchObject({ cacheRead: 1839, cacheWrite: 240, input: 3 });
		expect(fourth?.modeled?.cost).toBeCloseTo((fourth?.recorded?.cost as number) - 598 * PRICE.cacheRead, 12);
		expect(ledger.totals.modeled).toMatchObject({ cacheRead: 3956, cacheWrite: 2676, input: 12 });
		expect(ledger.totals.breaks).toBe(1);
		expect(ledger.models[0]?.perToken.cacheRead).toEqual({
			usd: expect.closeTo(PRICE.cacheRead, 15),
			from: "session",
		});
	});

	it("should explain a miss by the cache's lifetime, and model the configuration's miss too", async () => {
		const late = T0 + 30_000 + 6 * 60_000;
		const entries = smallSession({ a4: { timestamp: late, usage: usage(3, 0, 2677) } });
		const asSent = await ledgerOf(entries);
		const configured = await ledgerOf(entries, [elide]);

		expect(asSent.rows[3]).toMatchObject({
			cache: "expired",
			sinceMs: late - (T0 + 30_000),
			miss: { tokens: 2437, explainedBy: "expired" },
			unexplained: false,
		});
		// Nothing is read after an expiry, whatever the configuration: 2,082 tokens, all written but the tail.
		expect(configured.rows[3]?.modeled).toMatchObject({ cacheRead: 0, cacheWrite: 2079, input: 3 });
	});

	it("should flag a miss that nothing explains, and never hide it", async () => {
		const ledger = await ledgerOf(smallSession({ a4: { usage: usage(3, 0, 2677) } }));

		expect(ledger.rows[3]).toMatchObject({
			cache: "read",
			miss: { tokens: 2437, explainedBy: null },
			unexplained: true,
		});
		expect(ledger.totals).toMatchObject({ misses: 1, unexplained: 1 });
	});
});
