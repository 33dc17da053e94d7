/**
 * Differential tests against the real pi-coding-agent 0.73.1: on generated histories, the default
 * preset must give output deep-equal and JSON byte-identical to pi's `convertToLlm`, and the preset
 * with `blockImages` must match pi's `convertToLlmWithBlockImages` (the closure `createAgentSession`
 * builds) with its live `blockImages` setting.
 *
 * The seed is fixed so the run size printed at the end is reproducible; set `FC_SEED` to explore others.
 */
import { isDeepStrictEqual } from "node:util";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { Message } from "@earendil-works/pi-ai";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { blockImages } from "../../src/hooks/block-images.js";
import { convertToLlm, createDefaultRegistry } from "../../src/preset.js";
import { arbHistory, arbImageHistory, deepFreeze } from "../support/arbitraries.js";
import { createUpstreamBlockImages, upstreamConvertToLlm } from "../support/upstream.js";

const seed = process.env.FC_SEED === undefined ? 20250131 : Number(process.env.FC_SEED);
const runs = (numRuns: number): fc.Parameters<unknown> => ({ seed, numRuns });

/** Size of the differential run, printed once at the end. */
const run = { histories: 0, messages: 0, outputs: 0, mismatches: 0 };

/** Asserts `actual` deep-equals and serializes byte-identically to upstream's `expected`, and counts the comparison. */
function expectParity(input: readonly AgentMessage[], actual: Message[], expected: Message[]): void {
	const actualJson = JSON.stringify(actual);
	const expectedJson = JSON.stringify(expected);
	run.histories++;
	run.messages += input.length;
	run.outputs += expected.length;
	if (!isDeepStrictEqual(actual, expected) || actualJson !== expectedJson) run.mismatches++;
	expect(actual).toStrictEqual(expected);
	expect(actualJson).toBe(expectedJson);
}

/** Whether pi drops the message (only a `!!` bash run is dropped in a well-typed history). */
const isDropped = (message: AgentMessage): boolean =>
	message.role === "bashExecution" && Boolean(message.excludeFromContext);

/** Pairs each kept input message with its output (pi's conversion is one-to-one or drop). */
function pairs(input: readonly AgentMessage[], output: readonly Message[]): [AgentMessage, Message][] {
	const kept = input.filter((message) => !isDropped(message));
	expect(output).toHaveLength(kept.length);
	return kept.map((message, i) => [message, output[i] as Message]);
}

/** Calls `check` with each message of `history` that pi keeps, our output for it and pi's. */
function eachConverted(
	history: AgentMessage[],
	check: (input: AgentMessage, output: Message, upstreamOutput: Message) => void,
): void {
	const ours = pairs(history, convertToLlm(history));
	const theirs = pairs(history, upstreamConvertToLlm(history));
	for (let i = 0; i < ours.length; i++) {
		const [input, output] = ours[i] as [AgentMessage, Message];
		check(input, output, (theirs[i] as [AgentMessage, Message])[1]);
	}
}

let upstream: Awaited<ReturnType<typeof createUpstreamBlockImages>>;

beforeAll(async () => {
	upstream = await createUpstreamBlockImages(true);
});

afterAll(() => {
	upstream?.dispose();
	console.log(
		`[differential] ${run.histories} histories, ${run.messages} input messages, ${run.outputs} output messages compared with pi-coding-agent 0.73.1: ${run.mismatches} mismatches`,
	);
	expect(run.histories).toBeGreaterThan(0);
	expect(run.mismatches).toBe(0);
});

describe("convertToLlm (default preset) vs pi-coding-agent 0.73.1 convertToLlm", () => {
	it("should produce deep-equal, byte-identical output on generated histories", () => {
		fc.assert(
			fc.property(arbHistory, (history) => {
				expectParity(history, convertToLlm(history), upstreamConvertToLlm(history));
			}),
			runs(3000),
		);
	});

	it("should match through createDefaultRegistry().convert and convertAsync too", async () => {
		const registry = createDefaultRegistry();
		await fc.assert(
			fc.asyncProperty(arbHistory, async (history) => {
				const expected = upstreamConvertToLlm(history);
				expectParity(history, registry.convert(history), expected);
				expectParity(history, await registry.convertAsync(history), expected);
			}),
			runs(300),
		);
	});

	it("should return user, assistant and toolResult messages as the same objects, as pi does", () => {
		fc.assert(
			fc.property(arbHistory, (history) => {
				eachConverted(history, (input, output, upstreamOutput) => {
					const modelRole = input.role === "user" || input.role === "assistant" || input.role === "toolResult";
					expect(output === input).toBe(modelRole);
					expect(upstreamOutput === input).toBe(modelRole);
				});
			}),
			runs(300),
		);
	});

	it("should pass custom array content on by reference and build new content otherwise, as pi does", () => {
		fc.assert(
			fc.property(arbHistory, (history) => {
				eachConverted(history, (input, output, upstreamOutput) => {
					if (input.role !== "custom") return;
					const byReference = Array.isArray(input.content);
					expect(output.content === input.content).toBe(byReference);
					expect(upstreamOutput.content === input.content).toBe(byReference);
				});
			}),
			runs(300),
		);
	});
});

describe("blockImages vs pi-coding-agent 0.73.1 convertToLlmWithBlockImages", () => {
	it("should match pi with blocking on (enabled: true)", () => {
		const registry = createDefaultRegistry().use(blockImages({ enabled: true }));
		upstream.setBlockImages(true);
		fc.assert(
			fc.property(fc.oneof(arbHistory, arbImageHistory), (history) => {
				expectParity(history, registry.convert(history), upstream.convert(history));
			}),
			runs(2000),
		);
	});

	it("should match pi with blocking off (enabled: false)", () => {
		const registry = createDefaultRegistry().use(blockImages({ enabled: false }));
		upstream.setBlockImages(false);
		fc.assert(
			fc.property(fc.oneof(arbHistory, arbImageHistory), (history) => {
				expectParity(history, registry.convert(history), upstream.convert(history));
			}),
			runs(300),
		);
	});

	it("should read enabled() on every call, as pi reads its setting, when toggled between calls", async () => {
		let blocked = false;
		const registry = createDefaultRegistry().use(blockImages({ enabled: () => blocked }));
		await fc.assert(
			fc.asyncProperty(
				fc.oneof(arbHistory, arbImageHistory),
				fc.array(fc.boolean(), { minLength: 2, maxLength: 6 }),
				async (history, toggles) => {
					for (const toggle of toggles) {
						blocked = toggle;
						upstream.setBlockImages(toggle);
						const expected = upstream.convert(history);
						expectParity(history, registry.convert(history), expected);
						expectParity(history, await registry.convertAsync(history), expected);
					}
				},
			),
			runs(200),
		);
	});

	it("should actually block images when toggled on (the upstream setting is live)", () => {
		const history: AgentMessage[] = [
			{ role: "user", content: [{ type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" }], timestamp: 1 },
		];
		let blocked = false;
		const registry = createDefaultRegistry().use(blockImages({ enabled: () => blocked }));
		upstream.setBlockImages(false);
		expect(upstream.convert(history)).toStrictEqual(history);
		expect(registry.convert(history)).toStrictEqual(history);
		blocked = true;
		upstream.setBlockImages(true);
		const placeholder = [
			{ role: "user", content: [{ type: "text", text: "Image reading is disabled." }], timestamp: 1 },
		];
		expect(upstream.convert(history)).toStrictEqual(placeholder);
		expect(registry.convert(history)).toStrictEqual(placeholder);
	});
});

describe("conversion of frozen input", () => {
	it("should convert deep-frozen histories without throwing and leave them unchanged", () => {
		const plain = createDefaultRegistry();
		const blocking = createDefaultRegistry().use(blockImages({ enabled: true }));
		fc.assert(
			fc.property(fc.oneof(arbHistory, arbImageHistory), (history) => {
				const before = structuredClone(history);
				deepFreeze(history);
				const expected = upstreamConvertToLlm(history);
				expectParity(history, convertToLlm(history), expected);
				expectParity(history, plain.convert(history), expected);
				upstream.setBlockImages(true);
				expectParity(history, blocking.convert(history), upstream.convert(history));
				expect(history).toStrictEqual(before);
			}),
			runs(300),
		);
	});
});
