/**
 * The ledger's cache model, worked by hand: the configuration a session was sent with gives back the
 * bill exactly; another moves it by what it changes (fewer tokens at the session's ratio, less read
 * and more written from its break on), and nothing is read past an expiry, another model, a folded
 * system prompt; a request without a bill leaves the cache as it was and hands its break on.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CacheModel, missTolerance, type PrefixFacts, type RowFacts } from "../../src/ledger/cache-model.js";

/** A request's prefix facts: `sent` tokens by pi's estimate, a break at `breakAt` after which `after` are sent. */
const prefix = (sent: number, breakAt: number | null = null, after = 0, rewritesSystem = false): PrefixFacts => ({
	sent,
	breakAt,
	sentFrom: (position) => (breakAt !== null && position >= breakAt ? after : sent),
	rewritesSystem,
});

const row = (fields: Partial<RowFacts> & Pick<RowFacts, "asSent" | "configured">): RowFacts => ({
	billed: null,
	ratio: 1.25,
	first: false,
	expired: false,
	modelChanged: false,
	thinkingChanged: false,
	...fields,
});

describe("CacheModel", () => {
	it("should give back every recorded figure exactly for the configuration the session was sent with", () => {
		const arbRow = fc.record({
			billed: fc.option(fc.record({ input: fc.nat(50), cacheRead: fc.nat(200_000), cacheWrite: fc.nat(50_000) }), {
				nil: null,
			}),
			ratio: fc.double({ min: 0.5, max: 2, noNaN: true }),
			expired: fc.boolean(),
			modelChanged: fc.boolean(),
			thinkingChanged: fc.boolean(),
			sent: fc.nat(100_000),
			breakAt: fc.option(fc.nat(40), { nil: null }),
			after: fc.nat(100_000),
			rewritesSystem: fc.boolean(),
		});
		fc.assert(
			fc.property(fc.array(arbRow, { minLength: 1, maxLength: 20 }), (rows) => {
				const model = new CacheModel();
				rows.forEach((r, index) => {
					const facts = prefix(r.sent, r.breakAt, Math.min(r.after, r.sent), r.rewritesSystem);
					const result = model.row(row({ ...r, first: index === 0, asSent: facts, configured: facts }));
					if (r.billed === null) expect(result.modeled).toBeNull();
					else {
						expect(result.modeled).toEqual(r.billed);
						expect(result.prompt).toBe(r.billed.input + r.billed.cacheRead + r.billed.cacheWrite);
					}
				});
			}),
			{ numRuns: 300 },
		);
	});

	it("should move the bill by what a configuration changes, as worked out by hand", () => {
		const model = new CacheModel();
		// Sent with 1,000 then 1,800 estimated tokens; the configuration breaks the second at message 2
		// and sends 1,400, of which 600 from the break on.
		const first = model.row(
			row({
				billed: { input: 3, cacheRead: 0, cacheWrite: 1997 },
				first: true,
				asSent: prefix(1000),
				configured: prefix(1000),
			}),
		);
		const second = model.row(
			row({
				billed: { input: 3, cacheRead: 1997, cacheWrite: 1000 },
				asSent: prefix(1800),
				configured: prefix(1400, 2, 600),
			}),
		);

		expect(first.modeled).toEqual({ input: 3, cacheRead: 0, cacheWrite: 1997 });
		// prompt 3,000 + 1.25 × (1,400 − 1,800) = 2,500; as sent it could read all 1,997 cached tokens,
		// configured only up to the break: 2,500 − 1.25 × 600 = 1,750; the rest but the tail is written.
		expect(second).toMatchObject({ prompt: 2500, modeled: { cacheRead: 1750, input: 3, cacheWrite: 747 } });

		// Six minutes later: the cache expired, as sent (the bill reads nothing) and as configured.
		const third = model.row(
			row({
				billed: { input: 3, cacheRead: 0, cacheWrite: 3497 },
				expired: true,
				asSent: prefix(2200),
				configured: prefix(1600),
			}),
		);
		expect(third).toEqual({
			prompt: 2750, // 3,500 + 1.25 × (1,600 − 2,200)
			modeled: { cacheRead: 0, input: 3, cacheWrite: 2747 },
			missed: 2997, // the 1,997 + 1,000 the second request left in the cache
			reason: "expired",
		});
	});

	it.each([
		["another model", { modelChanged: true }, "model"],
		["another thinking level", { thinkingChanged: true }, "thinking"],
		["a break of the prefix as sent", { asSent: prefix(1000, 0, 1000) }, "break"],
		["a system prompt pi-ai rewrites", { asSent: prefix(1000, 0, 1000, true) }, "break"],
		["nothing", {}, null],
	] as const)("should name %s as what explains a miss", (_, fields, reason) => {
		const model = new CacheModel();
		model.row(
			row({
				billed: { input: 3, cacheRead: 0, cacheWrite: 997 },
				first: true,
				asSent: prefix(800),
				configured: prefix(800),
			}),
		);
		const missed = model.row(
			row({
				billed: { input: 3, cacheRead: 0, cacheWrite: 1997 },
				asSent: prefix(1600),
				configured: prefix(1600),
				...fields,
			}),
		);

		expect(missed).toMatchObject({ missed: 997, reason });
	});

	it("should read the system prompt and tools only when the thinking level changed, and nothing when the system prompt changed", () => {
		const thinking = new CacheModel();
		const system = new CacheModel();
		for (const model of [thinking, system])
			model.row(
				row({
					billed: { input: 3, cacheRead: 0, cacheWrite: 1997 },
					first: true,
					asSent: prefix(1000),
					configured: prefix(1000),
				}),
			);
		// As sent the bill read 0; configured, 800 fewer estimated tokens.
		const facts = { billed: { input: 3, cacheRead: 0, cacheWrite: 2997 }, asSent: prefix(1800) };
		const onThinking = thinking.row(row({ ...facts, thinkingChanged: true, configured: prefix(1000) }));
		const onSystem = system.row(row({ ...facts, configured: prefix(1000, 0, 1000, true) }));

		// Thinking: up to the messages, 2,000 − 1.25 × 1,000 = 750 as configured, 3,000 − 1.25 × 1,800 = 750 as sent.
		expect(onThinking.modeled).toEqual({ cacheRead: 0, input: 3, cacheWrite: 1997 });
		// A rewritten system prompt reads nothing as configured; as sent it read nothing either.
		expect(onSystem.modeled).toEqual({ cacheRead: 0, input: 3, cacheWrite: 1997 });
	});

	it("should leave the cache as it was for a request without a bill, and hand its break on", () => {
		const model = new CacheModel();
		model.row(
			row({
				billed: { input: 3, cacheRead: 0, cacheWrite: 1997 },
				first: true,
				asSent: prefix(1000),
				configured: prefix(1000),
			}),
		);
		// An aborted request the provider reported nothing for: the configuration broke it at message 1.
		expect(model.row(row({ asSent: prefix(1200), configured: prefix(1200, 1, 1100) }))).toEqual({
			modeled: null,
			prompt: null,
			missed: null,
			reason: null,
		});
		// This one breaks at message 3 (300 from there on); from message 1 on it sends 1,300.
		const configured = { ...prefix(1400, 3, 300), sentFrom: (position: number) => (position <= 1 ? 1300 : 300) };
		const next = model.row(
			row({ billed: { input: 3, cacheRead: 1997, cacheWrite: 500 }, asSent: prefix(1400), configured }),
		);

		// The earlier break (message 1, 1,300 estimated tokens from there in this request) counts:
		// 2,500 − 1.25 × 1,300 = 875 can be read, the rest is written.
		expect(next.modeled).toEqual({ cacheRead: 875, input: 3, cacheWrite: 1622 });
	});

	it("should count a read short of the cache as a miss only beyond 1%, and at least 16 tokens", () => {
		expect(missTolerance(100)).toBe(16);
		expect(missTolerance(100_000)).toBe(1000);
		const model = new CacheModel();
		model.row(
			row({
				billed: { input: 3, cacheRead: 0, cacheWrite: 99_997 },
				first: true,
				asSent: prefix(1),
				configured: prefix(1),
			}),
		);
		const within = model.row(
			row({ billed: { input: 3, cacheRead: 99_000, cacheWrite: 2000 }, asSent: prefix(2), configured: prefix(2) }),
		);
		expect(within.missed).toBeNull();
	});
});
