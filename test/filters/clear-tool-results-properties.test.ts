/**
 * The invariants of `clearToolResults` over generated histories and the whole option space
 * (`clearAtLeast` and `when` included): the input is never changed, no message is added or removed
 * and no call loses its result, nothing after the last user message changes, clearing a cleared
 * output changes nothing, steps only delay what `clearAtLeast: 0` clears, and over a run each request
 * repeats the previous one byte for byte unless the boundary moved by at least `clearAtLeast` tokens
 * (on a cold cache only, with `when: "cache-cold"`).
 */
import type { Message } from "@earendil-works/pi-ai";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type ClearToolResultsOptions, clearToolResults } from "../../src/filters/clear-tool-results.js";
import { createDefaultRegistry } from "../../src/preset.js";
import { deepFreeze } from "../support/arbitraries.js";
import { arbClearHistory, arbClearOptions, CLEAR_COUNTERS } from "../support/clear-histories.js";

type Counter = (message: Message) => number;

const arbCase = fc
	.tuple(arbClearHistory(), fc.constantFrom(...Object.keys(CLEAR_COUNTERS)))
	.chain(([history, counterName]) => {
		const counter = CLEAR_COUNTERS[counterName] as Counter;
		const total = history.reduce((sum, m) => sum + counter(m), 0);
		return fc
			.tuple(
				arbClearOptions(history, counter),
				fc.record(
					{
						clearAtLeast: fc.double({ min: 0, max: 0.5, noNaN: true }).map((s) => Math.floor(total * s)),
						when: fc.constantFrom("always" as const, "cache-cold" as const),
						cacheLifetimeMs: fc.constantFrom(0, 300_000, 600_000),
					},
					{ requiredKeys: [] },
				),
			)
			.map(([options, step]) => ({
				history,
				counter,
				options: { ...options, ...step, tokenCounter: counter } as ClearToolResultsOptions,
			}));
	});

function clear(history: readonly Message[], options: ClearToolResultsOptions): Message[] {
	return createDefaultRegistry()
		.use(clearToolResults(options))
		.run(history as never).output;
}

function lastUserOf(history: readonly Message[]): number {
	for (let i = history.length - 1; i >= 0; i--) if ((history[i] as Message).role === "user") return i;
	return -1;
}

/** The time of the request the history before assistant message `end` makes (the clock of that call). */
const at = (history: readonly Message[], end: number) => () =>
	end < history.length ? (history[end] as Message).timestamp : (history.at(-1)?.timestamp ?? 0) + 1;

const callIds = (message: Message): unknown[] =>
	message.role === "assistant" ? message.content.flatMap((b) => (b.type === "toolCall" ? [b.id] : [])) : [];

describe("clearToolResults", () => {
	it("should never change its input, add, remove or reorder a message, nor part a call from its result", () => {
		fc.assert(
			fc.property(arbCase, ({ history, options }) => {
				const frozen = deepFreeze(structuredClone(history));
				const { output, problems } = createDefaultRegistry()
					.use(clearToolResults({ ...options, now: at(frozen, frozen.length) }))
					.run(frozen as never);
				expect(frozen).toEqual(history);
				expect(problems.filter((p) => p.message.includes("threw"))).toEqual([]);
				expect(output).toHaveLength(frozen.length);
				for (let i = 0; i < frozen.length; i++) {
					const before = frozen[i] as Message;
					const after = output[i] as Message;
					expect(after.role).toBe(before.role);
					expect(callIds(after)).toEqual(callIds(before));
					if (before.role === "toolResult" && after.role === "toolResult") {
						expect([after.toolCallId, after.toolName, after.isError, after.timestamp]).toEqual([
							before.toolCallId,
							before.toolName,
							before.isError,
							before.timestamp,
						]);
					}
				}
			}),
			{ numRuns: 500 },
		);
	});

	it("should leave every message after the last user message as it is", () => {
		fc.assert(
			fc.property(arbCase, ({ history, options }) => {
				const output = clear(history, { ...options, now: at(history, history.length) });
				for (let i = lastUserOf(history) + 1; i < history.length; i++) expect(output[i]).toBe(history[i]);
			}),
			{ numRuns: 500 },
		);
	});

	it("should change nothing when it clears its own output again (idempotent)", () => {
		fc.assert(
			fc.property(arbCase, ({ history, options }) => {
				const same = { ...options, now: at(history, history.length) };
				const once = clear(history, same);
				expect(clear(once, same)).toEqual(once);
			}),
			{ numRuns: 500 },
		);
	});

	it("should clear no result that clearAtLeast: 0 would not (steps only delay)", () => {
		fc.assert(
			fc.property(arbCase, ({ history, options }) => {
				const now = at(history, history.length);
				const stepped = clear(history, { ...options, now });
				const exact = clear(history, { ...options, now, clearAtLeast: 0, when: "always" });
				for (let i = 0; i < history.length; i++) {
					const message = stepped[i] as Message;
					if (message === history[i]) continue;
					if (message.role === "toolResult") expect(message).toEqual(exact[i]);
					else {
						const blocks = (m: Message | undefined) => (m as Message & { role: "assistant" }).content;
						for (const [b, block] of blocks(message).entries())
							if (block.type === "toolCall" && block !== blocks(history[i])[b])
								expect(block).toEqual(blocks(exact[i])[b]);
					}
				}
			}),
			{ numRuns: 500 },
		);
	});

	it("should repeat the previous request byte for byte unless it clears at least clearAtLeast tokens at once", () => {
		let breaks = 0;
		let repeats = 0;
		fc.assert(
			fc.property(arbCase, ({ history, counter, options }) => {
				const requests = history.flatMap((m, i) => (m.role === "assistant" ? [i] : [])).concat(history.length);
				let previous: { output: Message[]; end: number } | undefined;
				for (const end of requests) {
					const output = clear(history.slice(0, end), { ...options, now: at(history, end) });
					if (previous !== undefined) {
						const prefix = JSON.stringify(output.slice(0, previous.output.length));
						if (prefix === JSON.stringify(previous.output)) repeats++;
						else {
							breaks++;
							expect(newlyCleared(history, previous.output, output, counter, options)).toBeGreaterThanOrEqual(
								options.clearAtLeast ?? 0,
							);
							if (options.when === "cache-cold") {
								const gap = at(history, end)() - at(history, previous.end)();
								expect(gap).toBeGreaterThan(options.cacheLifetimeMs ?? 300_000);
							}
						}
					}
					previous = { output, end };
				}
			}),
			{ numRuns: 200 },
		);
		expect(breaks).toBeGreaterThan(0);
		expect(repeats).toBeGreaterThan(breaks);
	});
});

/**
 * The tokens a move saved, as the plugin counts them: each result cleared in `next` and not in
 * `previous`, its tokens less its placeholder's, and with `clearToolInputs` its call's arguments
 * (the assistant message's tokens less those with that one call's arguments cleared).
 */
function newlyCleared(
	history: readonly Message[],
	previous: readonly Message[],
	next: readonly Message[],
	counter: Counter,
	options: ClearToolResultsOptions,
): number {
	let saved = 0;
	for (let i = 0; i < next.length; i++) {
		const original = history[i] as Message;
		if (original.role !== "toolResult" || next[i] === original) continue;
		if (i < previous.length && previous[i] !== original) continue;
		saved += Math.max(0, counter(original) - counter(next[i] as Message));
		if (!options.clearToolInputs) continue;
		let caller = i - 1;
		while (caller >= 0 && !callIds(history[caller] as Message).includes(original.toolCallId)) caller--;
		const assistant = history[caller] as Message & { role: "assistant" };
		const content = assistant.content.map((b) =>
			b.type === "toolCall" && b.id === original.toolCallId ? { ...b, arguments: {} } : b,
		);
		saved += Math.max(0, counter(assistant) - counter({ ...assistant, content }));
	}
	return saved;
}
