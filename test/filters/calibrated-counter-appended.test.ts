/**
 * `calibratedCounter().observeAppended(added, usage)`: the same observation as `observe` of the last
 * accepted request followed by `added`, whatever the requests, usages and models, in time linear in
 * what is added (the request ledger replays long sessions with it).
 */
import type { Message } from "@earendil-works/pi-ai";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { calibratedCounter } from "../../src/filters/calibrated-counter.js";
import { estimateTokens } from "../../src/filters/estimate-tokens.js";
import { assistant, user } from "../support/fixtures.js";

const RUNS = { numRuns: 200 } as const;

/** A message pi estimates at `tokens` (a user message, or an aborted turn pi-ai does not send). */
const message = (tokens: number, aborted: boolean): Message =>
	aborted
		? assistant([{ type: "text", text: "a".repeat(tokens * 4) }], { stopReason: "aborted" })
		: user("u".repeat(tokens * 4));

/** A step of a session: messages the request adds, its usage (readable or not), its model. */
const arbStep = fc.record({
	added: fc.array(fc.tuple(fc.integer({ min: 0, max: 500 }), fc.boolean()), { maxLength: 4 }),
	usage: fc.oneof(
		fc.integer({ min: 1, max: 20_000 }).map((tokens) => ({ input: 3, output: 9, cacheRead: tokens, cacheWrite: 0 })),
		fc.constantFrom(undefined, { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, { input: Number.NaN }),
	),
	model: fc.constantFrom("anthropic/a", "anthropic/a", "anthropic/a", "openai/b"),
});

describe("calibratedCounter observeAppended", () => {
	it("should observe exactly what observe of the last accepted request plus the added messages observes", () => {
		fc.assert(
			fc.property(fc.array(arbStep, { maxLength: 12 }), (steps) => {
				const whole = calibratedCounter();
				const appended = calibratedCounter();
				let accepted: Message[] = [];
				for (const step of steps) {
					const added = step.added.map(([tokens, aborted]) => message(tokens, aborted));
					const request = [...accepted, ...added];
					const expected = whole.observe(request, step.usage, { model: step.model });
					const actual = appended.observeAppended(added, step.usage, { model: step.model });
					expect(actual).toEqual(expected);
					expect(appended.state()).toEqual(whole.state());
					if (actual.accepted) accepted = request;
					const next = [...accepted, user("next")];
					expect(appended.count(next)).toEqual(whole.count(next));
				}
			}),
			RUNS,
		);
	});

	it("should estimate only the messages it is given", () => {
		const counter = calibratedCounter();
		let estimated = 0;
		const counted = (tokens: number): Message => {
			const message = user("u".repeat(tokens * 4));
			return new Proxy(message, {
				get(target, key, receiver) {
					if (key === "content") estimated++;
					return Reflect.get(target, key, receiver);
				},
			});
		};
		counter.observeAppended([counted(100)], { input: 3, output: 1, cacheRead: 1000, cacheWrite: 0 });
		for (let i = 0; i < 50; i++)
			counter.observeAppended([counted(10)], { input: 3, output: 1, cacheRead: 1000 + 12 * (i + 1), cacheWrite: 0 });

		expect(estimated).toBe(51);
		expect(counter.state()).toMatchObject({ observations: 51, ratio: 1.2 });
		expect(estimateTokens(counted(10))).toBe(10);
	});
});
