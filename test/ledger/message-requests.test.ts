/**
 * The ledger's two ways to convert a session's requests give the same requests: each request whole
 * through `registry.runAsync(history, { previous })` (whole-requests.ts), and, for the default
 * preset, each message once (message-requests.ts), on generated session trees and the fixtures; and
 * the histories the ledger builds once per stretch of the tree are those the session reader builds
 * per request. The message path's work grows with the session, not with its square.
 */
import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ConversionProblems, type ConvertedRequest } from "../../src/ledger/converted-request.js";
import { requestLedger } from "../../src/ledger/index.js";
import { messageRequests } from "../../src/ledger/message-requests.js";
import { historyOf, readRequests } from "../../src/ledger/session-requests.js";
import { wholeRequests } from "../../src/ledger/whole-requests.js";
import { createDefaultRegistry } from "../../src/preset.js";
import type { Registry } from "../../src/registry/types.js";
import { readSession } from "../../src/session/index.js";
import { billedSessionLines } from "../fixtures/sessions/billed-session.js";
import { arbSession } from "./arb-session.js";

const RUNS = { numRuns: 150 } as const;
const FIXTURES = [
	"test/fixtures/sessions/recorded/pi-mono-before-compaction.jsonl",
	"test/fixtures/sessions/v2-tree.jsonl",
	"test/fixtures/sessions/pi1-system-and-edits.jsonl",
	"test/fixtures/sessions/pi1-agent-session.jsonl",
	"examples/sessions/demo.jsonl",
];

/** What the ledger reads of a converted request, with `sentFrom` sampled at every position. */
function facts(request: ConvertedRequest) {
	const { messages, estimated, sent, prefix, breakRoles, addsSystem, failed } = request;
	const sentFrom = Array.from({ length: messages + 2 }, (_, position) => request.sentFrom(position));
	return { messages, estimated, sent, prefix, breakRoles, addsSystem, failed, sentFrom, output: request.output() };
}

async function bothPaths(text: string) {
	const session = await readRequests({ text });
	const problems = new ConversionProblems();
	const perMessage = [...messageRequests(session, createDefaultRegistry(), problems)].map(facts);
	const whole: ReturnType<typeof facts>[] = [];
	for await (const request of wholeRequests(session, createDefaultRegistry(), problems)) whole.push(facts(request));
	return { session, perMessage, whole };
}

describe("messageRequests and wholeRequests", () => {
	it("should give the same requests for the default preset on any session tree", async () => {
		await fc.assert(
			fc.asyncProperty(arbSession(), async (text) => {
				const { perMessage, whole } = await bothPaths(text);
				expect(perMessage).toEqual(whole);
			}),
			RUNS,
		);
	});

	it.each(FIXTURES)("should give the same ledger both ways on %s", async (file) => {
		const text = readFileSync(file, "utf8");
		const fast = await requestLedger({ text, file });
		const plain = await requestLedger(
			{ text, file },
			{ configuration: { name: "x", registry: createDefaultRegistry() } },
		);

		expect(fast.rows).toEqual(plain.rows);
		expect(fast.totals).toEqual(plain.totals);
	});
});

describe("readRequests", () => {
	it("should give each request the history the session reader builds from its parent", async () => {
		await fc.assert(
			fc.asyncProperty(arbSession(), async (text) => {
				const session = await readRequests({ text });
				for (const request of session.requests) {
					const expected = request.leafId === null ? [] : readSession(text, { leafId: request.leafId }).messages;
					expect(historyOf(session, request)).toEqual(expected);
				}
			}),
			RUNS,
		);
	});

	it("should build one history per stretch of the tree, not one per request", async () => {
		const text = [...billedSessionLines({ requests: 300, compactAt: 20_000 })].join("\n");
		const session = await readRequests({ text });
		const compactions = text.split('"type":"compaction"').length - 1;

		expect(compactions).toBeGreaterThan(1);
		expect(session.histories.length).toBe(compactions + 1);
	});
});

/** A registry that counts the messages it is given to convert. */
function counting(registry: Registry): { registry: Registry; messages: () => number } {
	let messages = 0;
	const counted: Registry = Object.create(registry);
	for (const method of ["run", "runAsync"] as const)
		Object.defineProperty(counted, method, {
			value: (history: readonly unknown[], options?: object) => {
				messages += history.length;
				return registry[method](history as never, options);
			},
		});
	return { registry: counted, messages: () => messages };
}

describe("messageRequests' work", () => {
	it("should grow with the session, where converting each request whole grows with its square", async () => {
		const work = async (requests: number) => {
			const session = await readRequests({ text: [...billedSessionLines({ requests })].join("\n") });
			const fast = counting(createDefaultRegistry());
			const plain = counting(createDefaultRegistry());
			for (const _ of messageRequests(session, fast.registry, new ConversionProblems()));
			for await (const _ of wholeRequests(session, plain.registry, new ConversionProblems()));
			return { fast: fast.messages(), plain: plain.messages() };
		};
		const small = await work(100);
		const large = await work(400);

		// ×4 requests: the message path converts ×4 the messages (each once), the plain path about ×16.
		expect(large.fast / small.fast).toBeLessThan(4.5);
		expect(large.plain / small.plain).toBeGreaterThan(12);
	});
});
