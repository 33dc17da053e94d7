/**
 * Differential tests against the real pi-coding-agent 1.6.0 (`@earendil-works/*`): on generated
 * histories, the default preset must give output deep-equal and JSON byte-identical to pi 1.6.0's
 * `convertToLlm`, and the preset with `blockImages` must match pi 1.6.0's
 * `convertToLlmWithBlockImages` (the closure a real in-memory `createAgentSession` builds) with its
 * live setting toggled between calls.
 *
 * pi 1.x cannot be imported on the Node 20 that runs vitest, so pi's side runs in one long-lived
 * child on a Node >= 22.19 (test/support/pi1/child.mjs, started by client.ts). Histories are
 * generated here, sent through a lossless codec (test/support/pi1/codec.mjs: `undefined` keys,
 * `NaN`, `±Infinity`, `-0`, an own `__proto__` key and objects repeated in a history all survive),
 * and both sides convert a decoded copy of the same encoding; every history is first checked to
 * decode deep-equal to what fast-check generated. pi's output comes back through the same codec and
 * is compared here.
 *
 * Covered: every 0.73.1 role, system messages (leading, mid-conversation, string and text-block
 * content, `sections` with `null` values, `toolsAdded` with `parameters`, `toolsRemoved`),
 * `branchSummary.fromId: null`, the 1.x fields of assistant and tool-result messages, custom
 * messages with `excludeFromContext` (pi sends them), images for blockImages, deep-frozen input,
 * which messages and content arrays come back by reference (compared as indices into the input),
 * and, with `isolate: true`, that the output shares no object with the input. Not covered: object
 * identity between our output and the caller's own history objects across the process boundary
 * (each side sees its own copy), values JSON cannot carry at all (functions, symbols, class
 * instances; pi histories are JSON), and pi's provider-side handling of system messages (see
 * test/e2e/pi1-agent.test.ts).
 *
 * Also: on 0.73.1-shaped histories pi 1.6.0's `convertToLlm` equals 0.73.1's (output and what is
 * passed on by reference), so one preset can keep parity with both lines.
 *
 * Every mismatch is counted and classified; a failing test shows the smallest counterexample
 * fast-check finds (input, pi's output, ours, first differing path). The seed is fixed so the run
 * size printed at the end is reproducible; set `FC_SEED` to explore others.
 */
import { isDeepStrictEqual } from "node:util";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { Message } from "@earendil-works/pi-ai";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { blockImages } from "../../src/hooks/block-images.js";
import { convertToLlm, createDefaultRegistry } from "../../src/preset.js";
import {
	arbHistory,
	arbHistory16,
	arbImageHistory,
	arbImageHistory16,
	arbLeadingSystemHistory16,
	deepFreeze,
	type Pi1HistoryMessage,
} from "../support/arbitraries.js";
import { PI1_START_TIMEOUT, type Pi1Child, startPi1 } from "../support/pi1/client.js";
import { decode, encode, pack } from "../support/pi1/codec.mjs";
import { classify, MismatchLog, mismatchText, same, show } from "../support/pi1/compare.js";
import { sharing } from "../support/pi1/identity.mjs";
import { upstreamConvertToLlm } from "../support/upstream.js";

const seed = process.env.FC_SEED === undefined ? 20261201 : Number(process.env.FC_SEED);

/** Size of the differential run, printed once at the end. */
const run = { histories: 0, calls: 0, messages: 0, outputs: 0, mismatches: 0 };
/** How often the 1.x shapes occurred in the compared inputs. */
const seen = {
	system: 0,
	leadingSystem: 0,
	systemTextBlocks: 0,
	sectionsWithNull: 0,
	toolsAdded: 0,
	toolsRemoved: 0,
	fromIdNull: 0,
	customExcludeFromContext: 0,
};
const log = new MismatchLog();

/** What the child reports for one call of pi's function. */
type PiResult = { output: Message[]; sharing: [number, number][] } | { threw: string };

/** One generated input: a history and, for the live-setting tests, the blockImages value of each call. */
interface Case {
	history: Pi1HistoryMessage[];
	toggles?: boolean[];
}

/** A differential: pi's results per case and our outputs per case, one for each of pi's results, in order. */
interface Differential {
	arb: fc.Arbitrary<Case>;
	numRuns: number;
	/** pi's side, for a batch of encoded cases (what the child decodes and runs). */
	pi: (encoded: unknown[]) => Promise<PiResult[][]>;
	/** Our side, on the decoded copy; returns one output per entry of pi's results. */
	ours: (input: Case) => Promise<Message[][]>;
	/** Deep-freeze both sides' copies before converting, and check ours is unchanged after. */
	freeze?: boolean;
	/** Ours is an `isolate: true` registry: its output must share no object with the input. */
	isolated?: boolean;
}

let pi: Pi1Child;

beforeAll(async () => {
	pi = await startPi1();
}, PI1_START_TIMEOUT);

afterAll(async () => {
	await pi?.close();
	console.log(
		`[pi1 differential] ${run.histories} histories (${run.calls} conversions), ${run.messages} input messages, ${run.outputs} output messages compared with pi-coding-agent 1.6.0 (child on Node ${pi?.nodeVersion}): ${run.mismatches} mismatches ${log.summary()}; inputs seen: ${JSON.stringify(seen)}`,
	);
	if (log.total > 0) console.log(`[pi1 differential] mismatch classes:\n${log.report()}`);
	expect(run.histories).toBeGreaterThan(0);
	expect(run.mismatches).toBe(0);
});

/** Counts the 1.x shapes of one input. */
function countSeen(history: readonly Pi1HistoryMessage[]): void {
	history.forEach((message, i) => {
		if (message.role === "branchSummary" && message.fromId === null) seen.fromIdNull++;
		if (message.role === "custom" && (message as { excludeFromContext?: unknown }).excludeFromContext === true) {
			seen.customExcludeFromContext++;
		}
		if (message.role !== "system") return;
		seen.system++;
		if (i === 0) seen.leadingSystem++;
		if (Array.isArray(message.content)) seen.systemTextBlocks++;
		if (message.sections && Object.values(message.sections).includes(null)) seen.sectionsWithNull++;
		if (message.toolsAdded?.length) seen.toolsAdded++;
		if (message.toolsRemoved?.length) seen.toolsRemoved++;
	});
}

/**
 * Encodes `input` and checks the transport is lossless for it: the decoded copy must deep-equal
 * what fast-check generated, or the comparison would be about another input.
 */
function transport(input: Case): { encoded: unknown; copy: Case } {
	const encoded = encode(input);
	const copy = decode(JSON.parse(JSON.stringify(encoded))) as Case;
	if (!isDeepStrictEqual(copy, input)) throw new Error(`codec lost information on ${show(input)}`);
	return { encoded, copy };
}

/** Every object reachable from `value`. */
function reachable(value: unknown, into = new Set<object>()): Set<object> {
	if (value === null || typeof value !== "object" || into.has(value)) return into;
	into.add(value);
	for (const key of Object.keys(value)) reachable((value as Record<string, unknown>)[key], into);
	return into;
}

/** Where an isolated output shares an object with the input: the path of the first one, or `undefined`. */
function sharedWithInput(input: unknown, output: unknown): string | undefined {
	const inputs = reachable(input);
	const walk = (value: unknown, path: string): string | undefined => {
		if (value === null || typeof value !== "object") return undefined;
		if (inputs.has(value)) return path;
		for (const key of Object.keys(value)) {
			const step = Array.isArray(value) ? `[${key}]` : `.${key}`;
			const found = walk((value as Record<string, unknown>)[key], `${path}${step}`);
			if (found) return found;
		}
		return undefined;
	};
	return walk(output, "$");
}

/**
 * Compares one case; returns the text of its first mismatch, or `undefined`. Counts unless `quiet`.
 * Outputs must equal pi's and pass the same objects on by reference as pi, or, when `isolated`
 * (a registry with `isolate: true`), share no object at all with the input.
 */
function compareCase(
	copy: Case,
	ours: Message[][],
	theirs: PiResult[],
	quiet = false,
	isolated = false,
): string | undefined {
	if (ours.length !== theirs.length)
		throw new Error(`harness: ${ours.length} outputs of ours, ${theirs.length} of pi`);
	let first: string | undefined;
	for (let k = 0; k < theirs.length; k++) {
		const result = theirs[k] as PiResult;
		const output = ours[k] as Message[];
		const call = copy.toggles ? ` (call ${k}, blockImages ${copy.toggles[Math.floor(k / 2)]})` : ` (call ${k})`;
		let kind: string | undefined;
		const shared = isolated ? sharedWithInput(copy.history, output) : undefined;
		if ("threw" in result) kind = "pi threw";
		else if (!same(output, result.output)) kind = classify(output, result.output);
		else if (shared !== undefined) kind = "isolated output shares an object with the input";
		else if (!isolated && !isDeepStrictEqual(sharing(copy.history, output), result.sharing))
			kind = "same output, other references";
		if (!quiet) {
			run.calls++;
			run.outputs += "threw" in result ? 0 : result.output.length;
		}
		if (kind === undefined) continue;
		const text =
			"threw" in result
				? `pi threw ${result.threw}${call}\n      input: ${show(copy.history)}\n      ours:  ${show(output)}`
				: shared !== undefined
					? `${kind} at ${shared}${call}\n      input: ${show(copy.history)}\n      ours:  ${show(output)}`
					: kind === "same output, other references"
						? `${mismatchText(`${kind}${call}`, copy.history, output, result.output)}\n      pass-through (input index, content's input index) per output message: pi ${show(result.sharing)}, ours ${show(sharing(copy.history, output))}`
						: mismatchText(`${kind}${call}`, copy.history, output, result.output);
		if (!quiet) log.add(kind, () => text);
		first ??= text;
	}
	return first;
}

const BATCH = 200;

/** Runs a differential over `numRuns` generated cases, counts everything, and fails with the smallest counterexample. */
async function differential(spec: Differential): Promise<void> {
	const inputs = fc.sample(spec.arb, { seed, numRuns: spec.numRuns });
	let mismatching = 0;
	let firstText: string | undefined;
	for (let start = 0; start < inputs.length; start += BATCH) {
		const batch = inputs.slice(start, start + BATCH).map(transport);
		const results = await spec.pi(batch.map((item) => item.encoded));
		for (let i = 0; i < batch.length; i++) {
			const { copy } = batch[i] as { copy: Case };
			if (spec.freeze) deepFreeze(copy);
			const before = spec.freeze ? pack(copy) : "";
			const ours = await spec.ours(copy);
			if (spec.freeze && pack(copy) !== before) throw new Error(`ours changed its frozen input ${show(copy)}`);
			run.histories++;
			run.messages += copy.history.length;
			countSeen(copy.history);
			const text = compareCase(copy, ours, results[i] as PiResult[], false, spec.isolated);
			if (text !== undefined) {
				mismatching++;
				run.mismatches++;
				firstText ??= text;
			}
		}
	}
	if (mismatching === 0) return;
	throw new Error(
		`${mismatching} of ${inputs.length} generated cases differ from pi 1.6.0 (seed ${seed}).\n${await smallest(spec, firstText as string)}`,
	);
}

/** The smallest mismatching case fast-check can shrink to (bounded in time), as a report. */
async function smallest(spec: Differential, fallback: string): Promise<string> {
	let text: string | undefined;
	const result = await fc.check(
		fc.asyncProperty(spec.arb, async (input) => {
			const { encoded, copy } = transport(input);
			const [theirs] = await spec.pi([encoded]);
			if (spec.freeze) deepFreeze(copy);
			const found = compareCase(copy, await spec.ours(copy), theirs as PiResult[], true, spec.isolated);
			if (found !== undefined) text = found;
			return found === undefined;
		}),
		{ seed, numRuns: spec.numRuns, interruptAfterTimeLimit: 15_000 },
	);
	if (!result.failed || text === undefined) return `First mismatch of the run:\n${fallback}`;
	return `Smallest counterexample (${result.numShrinks} shrinks):\n${text}`;
}

const histories = (arb: fc.Arbitrary<Pi1HistoryMessage[]>): fc.Arbitrary<Case> =>
	arb.map((history): Case => ({ history }));
const asAgentMessages = (history: Pi1HistoryMessage[]): AgentMessage[] => history as AgentMessage[];

/** pi's `convertToLlm` on each case, `repeat` times (one per call of ours). */
const piConvert =
	(repeat = 1, freeze = false) =>
	async (encoded: unknown[]): Promise<PiResult[][]> => {
		const results = await pi.call<PiResult[]>("convert.convert", { encoded, freeze });
		return results.map((result) => Array.from({ length: repeat }, () => result));
	};

/** pi's `convertToLlmWithBlockImages`, once per toggle of each case, each result `repeat` times. */
const piBlockImages =
	(repeat = 1, freeze = false) =>
	async (encoded: unknown[]): Promise<PiResult[][]> => {
		const results = await pi.call<PiResult[][]>("convert.blockImages", { encoded, freeze });
		return results.map((perToggle) => perToggle.flatMap((result) => Array.from({ length: repeat }, () => result)));
	};

describe("the differential harness", () => {
	const history: Pi1HistoryMessage[] = [
		{ role: "system", content: "You are pi.", sections: { skills: null }, timestamp: 0 },
		{ role: "user", content: "hi", timestamp: 1 },
	];
	const piResults = async (input: Case): Promise<PiResult[]> =>
		((await piConvert()([transport(input).encoded])) as PiResult[][])[0] as PiResult[];

	it("should carry undefined keys, NaN, -0, an own __proto__ key and repeated objects to pi unchanged", async () => {
		const odd = {
			role: "user",
			content: "x",
			timestamp: Number.NaN,
			extra: undefined,
		} as unknown as Pi1HistoryMessage;
		Object.defineProperty(odd, "__proto__", { value: -0, enumerable: true, writable: true, configurable: true });
		const input: Case = { history: [odd, odd] };
		const [result] = await piResults(input);
		// pi passes user messages through, so what comes back is what pi was given.
		expect(result).toStrictEqual({
			output: [odd, odd],
			sharing: [
				[0, -1],
				[0, -1],
			],
		});
		const back = (result as { output: object[] }).output[0] as object;
		expect(Object.is(Object.getOwnPropertyDescriptor(back, "__proto__")?.value, -0)).toBe(true);
		expect(Object.getPrototypeOf(back)).toBe(Object.prototype);
	});

	// These build "ours" from pi's own output, so they check the harness, whatever the library does.
	it("should report no mismatch when ours passes the input's own objects on, as pi does", async () => {
		const { copy } = transport({ history });
		expect(compareCase(copy, [[...copy.history] as Message[]], await piResults({ history }), true)).toBeUndefined();
	});

	it("should report an isolated output that passes an input object on", async () => {
		const { copy } = transport({ history });
		const passedOn = [...copy.history] as Message[];
		const text = compareCase(copy, [passedOn], await piResults({ history }), true, true);
		expect(text?.startsWith("isolated output shares an object with the input at $[0]")).toBe(true);
	});

	it.each([
		{
			kind: "system dropped",
			ours: (output: Message[]) => output.filter((m) => (m as { role: string }).role !== "system"),
		},
		{ kind: "same output, other references", ours: (output: Message[]) => output.map((m) => ({ ...m })) },
		{
			kind: "deep-equal, JSON differs",
			ours: (output: Message[]) => output.map((m) => Object.fromEntries(Object.entries(m).reverse()) as Message),
		},
		{ kind: "other", ours: (output: Message[]) => output.map((m) => ({ ...m, extra: undefined })) },
	])("should report a mismatch of class '$kind'", async ({ kind, ours }) => {
		const { copy } = transport({ history });
		const theirs = await piResults({ history });
		const text = compareCase(copy, [ours((theirs[0] as { output: Message[] }).output)], theirs, true);
		expect(text).toBeDefined();
		expect(text?.startsWith(kind)).toBe(true);
	});
});

const corpora = [
	{ name: "0.73.1-shaped histories (no system messages)", arb: arbHistory, numRuns: 1000 },
	{ name: "histories with system messages anywhere", arb: arbHistory16, numRuns: 2000 },
	{
		name: "histories that start with a system message, as pi 1.x writes them",
		arb: arbLeadingSystemHistory16,
		numRuns: 800,
	},
] as const;

describe("convertToLlm (default preset) vs pi-coding-agent 1.6.0 convertToLlm", () => {
	it.each(corpora)("should produce deep-equal, byte-identical output on $name", async ({ arb, numRuns }) => {
		await differential({
			arb: histories(arb as fc.Arbitrary<Pi1HistoryMessage[]>),
			numRuns,
			pi: piConvert(),
			ours: async ({ history }) => [convertToLlm(asAgentMessages(history))],
		});
	});

	it("should match through createDefaultRegistry().convert and convertAsync too", async () => {
		const registry = createDefaultRegistry();
		await differential({
			arb: histories(fc.oneof(arbHistory16, arbLeadingSystemHistory16)),
			numRuns: 300,
			pi: piConvert(2),
			ours: async ({ history }) => [
				registry.convert(asAgentMessages(history)),
				await registry.convertAsync(asAgentMessages(history)),
			],
		});
	});

	it("should match pi with isolate: true, sharing no object with the input (sections, toolsAdded, toolsRemoved included)", async () => {
		const registry = createDefaultRegistry({ isolate: true });
		await differential({
			arb: histories(fc.oneof(arbHistory16, arbLeadingSystemHistory16, arbImageHistory16)),
			numRuns: 300,
			isolated: true,
			pi: piConvert(2),
			ours: async ({ history }) => [
				registry.convert(asAgentMessages(history)),
				await registry.convertAsync(asAgentMessages(history)),
			],
		});
	});

	it("should convert deep-frozen histories as pi does, without writing to them", async () => {
		const registry = createDefaultRegistry();
		await differential({
			arb: histories(fc.oneof(arbHistory16, arbLeadingSystemHistory16, arbImageHistory16)),
			numRuns: 300,
			freeze: true,
			pi: piConvert(2, true),
			ours: async ({ history }) => [
				convertToLlm(asAgentMessages(history)),
				registry.convert(asAgentMessages(history)),
			],
		});
	});
});

const imageHistories = fc.oneof(arbHistory16, arbLeadingSystemHistory16, arbImageHistory16, arbImageHistory);

describe("pi-coding-agent 1.6.0 convertToLlm vs 0.73.1's on 0.73.1-shaped histories", () => {
	it("should be the same function there, so one preset serves both lines", async () => {
		const inputs = fc.sample(arbHistory, { seed, numRuns: 1000 });
		const batch = inputs.map((history) => transport({ history }));
		const results = await pi.call<PiResult[]>("convert.convert", { encoded: batch.map((item) => item.encoded) });
		let differing = 0;
		let first: string | undefined;
		batch.forEach(({ copy }, i) => {
			const v16 = results[i] as PiResult;
			const v073 = upstreamConvertToLlm(copy.history as AgentMessage[]);
			const sameOutput =
				!("threw" in v16) && same(v16.output, v073) && isDeepStrictEqual(v16.sharing, sharing(copy.history, v073));
			if (sameOutput) return;
			differing++;
			first ??= mismatchText("pi 1.6.0 vs 0.73.1", copy.history, v16, v073, {
				ours: "pi 1.6.0",
				theirs: "pi 0.73.1",
			});
		});
		console.log(
			`[pi1 differential] pi 1.6.0 vs pi 0.73.1 convertToLlm on ${inputs.length} 0.73.1-shaped histories: ${differing} differ`,
		);
		expect(differing, first).toBe(0);
	});
});

describe("blockImages vs pi-coding-agent 1.6.0 convertToLlmWithBlockImages (from a real createAgentSession)", () => {
	it.each([
		{ enabled: true, numRuns: 1000 },
		{ enabled: false, numRuns: 300 },
	])("should match pi with blocking set to $enabled", async ({ enabled, numRuns }) => {
		const registry = createDefaultRegistry().use(blockImages({ enabled }));
		await differential({
			arb: (imageHistories as fc.Arbitrary<Pi1HistoryMessage[]>).map(
				(history): Case => ({ history, toggles: [enabled] }),
			),
			numRuns,
			pi: piBlockImages(2),
			ours: async ({ history }) => [
				registry.convert(asAgentMessages(history)),
				await registry.convertAsync(asAgentMessages(history)),
			],
		});
	});

	it("should read enabled() on every call, as pi reads its setting, when toggled between calls", async () => {
		let blocked = false;
		const registry = createDefaultRegistry().use(blockImages({ enabled: () => blocked }));
		await differential({
			arb: fc
				.tuple(
					imageHistories as fc.Arbitrary<Pi1HistoryMessage[]>,
					fc.array(fc.boolean(), { minLength: 2, maxLength: 6 }),
				)
				.map(([history, toggles]): Case => ({ history, toggles })),
			numRuns: 200,
			pi: piBlockImages(2),
			ours: async ({ history, toggles = [] }) => {
				const outputs: Message[][] = [];
				for (const toggle of toggles) {
					blocked = toggle;
					outputs.push(registry.convert(asAgentMessages(history)));
					outputs.push(await registry.convertAsync(asAgentMessages(history)));
				}
				return outputs;
			},
		});
	});

	it("should actually block images when toggled on (pi's setting is live), around a system message", async () => {
		const history: Pi1HistoryMessage[] = [
			{ role: "system", content: "You are pi.", timestamp: 0 },
			{ role: "user", content: [{ type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" }], timestamp: 1 },
		];
		const [[off, on]] = (await piBlockImages()([encode({ history, toggles: [false, true] })])) as [
			[PiResult, PiResult],
		];
		const placeholder = {
			role: "user",
			content: [{ type: "text", text: "Image reading is disabled." }],
			timestamp: 1,
		};
		expect(off).toMatchObject({ output: history });
		expect(on).toMatchObject({ output: [history[0], placeholder] });
	});
});
