/**
 * Differential tests of the session reader against pi-coding-agent 1.6.0 (`@earendil-works/*`):
 * session files written by 1.6.0's own `SessionManager` (random trees: a leading system message
 * often, system patches of `sections` and tools, messages of every role, custom message entries,
 * compactions with the `systemMessage` checkpoint `appendCompaction` computes and a
 * `firstKeptEntryId` that is `null` (the compaction's own id), on the path, anywhere or unknown,
 * branches, `branchWithSummary`, `appendContextEdit` omitting or replacing, `appendUsage`, labels,
 * model and thinking changes, custom entries) must read with `readSessionFile`/`readSession` to the
 * history pi's `buildSessionContext` builds, at the last entry, the live leaf and other leaves, and
 * convert with our preset to what pi's `convertToLlm` sends; our `entryIds` and `contextEdits` must
 * say what pi's provenance-keeping `buildSessionProjection` says (which entry each message came from,
 * which entries a `context_edit` hid or replaced). And on files written by pi 0.73.1's
 * `SessionManager` (the generator of test/differential/session-differential.test.ts), pi 1.6.0's
 * `buildSessionContext` and `convertToLlm` must equal 0.73.1's: the 1.x rules leave 0.73.1 files
 * as they were, so one reader serves both lines.
 *
 * pi 1.x runs on Node >= 22.19 only: the 1.6 files are written and read by pi in the pi 1.x child
 * (test/support/pi1/session.mjs), into this suite's temp dir; our reader reads the same file here.
 * pi's contexts come back through the lossless codec (test/support/pi1/codec.mjs). Each context
 * carries the 1.x context rules that apply on its path, and a mismatch is classified by them
 * ("no 1.x rule on the path" would be a difference nobody has explained).
 *
 * Not covered: hand-edited or damaged 1.x files (test/session/session.test.ts), and the 0.80.10–0.86.1
 * duplicate-compaction behaviour, which 1.6.0 no longer has.
 *
 * The seed is fixed so the run size printed at the end is reproducible; set `FC_SEED` to explore others.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import {
	buildSessionContext as upstreamBuildSessionContext,
	migrateSessionEntries as upstreamMigrate,
	parseSessionEntries as upstreamParse,
} from "@mariozechner/pi-coding-agent";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { convertToLlm } from "../../src/preset.js";
import { readSession, readSessionFile } from "../../src/session/index.js";
import { PI1_START_TIMEOUT, type Pi1Child, startPi1 } from "../support/pi1/client.js";
import { decode, encode } from "../support/pi1/codec.mjs";
import { classify, MismatchLog, mismatchText, same, show } from "../support/pi1/compare.js";
import { arbOps16, arbOps073, arbPick, type SessionOp } from "../support/pi1/session-ops.js";
import { writeWith073 } from "../support/session-writer-073.js";
import { upstreamConvertToLlm } from "../support/upstream.js";

const seed = process.env.FC_SEED === undefined ? 20261201 : Number(process.env.FC_SEED);
const dir = mkdtempSync(join(tmpdir(), "ctl-pi1-session-"));

/** Size of the 1.6 run, printed once at the end. */
const run = {
	sessions: 0,
	entries: 0,
	contexts: 0,
	messages: 0,
	systemMessages: 0,
	/** Sessions with at least one mismatching reading. */
	mismatches: 0,
	/** Readings (contexts, and the live context as JSON) that differ. */
	mismatchingContexts: 0,
	historyMismatches: 0,
	modelInputMismatches: 0,
	settingsMismatches: 0,
	/** `entryIds` or `contextEdits` unlike pi's projection (buildSessionProjection) gives them. */
	provenanceMismatches: 0,
	problemsReported: 0,
};
/** The entry kinds of the 1.6-written files. */
const kinds: Record<string, number> = {};
/** How often each 1.x rule applied on a compared path. */
const rulesSeen: Record<string, number> = {};
/** For the history mismatches: how often each 1.x rule applied on their path ("none" would be unexplained). */
const historyMismatchRules: Record<string, number> = {};
const log = new MismatchLog();
/** Size of the 0.73.1-written run (pi 1.6.0 against pi 0.73.1). */
const cross = { sessions: 0, entries: 0, contexts: 0, messages: 0, mismatches: 0 };
const crossLog = new MismatchLog();

type Context = { messages: unknown[]; thinkingLevel: string; model: unknown };
/** pi 1.6.0's reading of one leaf, from the child. */
interface PiContext {
	leafId?: string | null;
	context: Context;
	converted: unknown[];
	rules: string[];
	/** From pi's projection (file readings only): the entry each message came from, what each edit did. */
	entryIds?: string[];
	contextEdits?: unknown[];
}
/** One session written by pi 1.6.0, from the child. */
interface Written {
	file: string;
	entryCount: number;
	kinds: Record<string, number>;
	atLast: PiContext;
	leaves: PiContext[];
	live: { leafId: string | null; json: string };
}
type Ours = ReturnType<typeof readSession>;

let pi: Pi1Child;

beforeAll(async () => {
	pi = await startPi1();
}, PI1_START_TIMEOUT);

afterAll(async () => {
	await pi?.close();
	rmSync(dir, { recursive: true, force: true });
	console.log(
		`[pi1 session differential] ${run.sessions} sessions written by pi-coding-agent 1.6.0's SessionManager (child on Node ${pi?.nodeVersion}), ${run.entries} entries, ${run.contexts} contexts (${run.messages} history messages, ${run.systemMessages} of them system): ${run.mismatches} sessions and ${run.mismatchingContexts} readings differ (contexts: ${run.historyMismatches} history, ${run.modelInputMismatches} model input, ${run.settingsMismatches} thinking level/model, ${run.provenanceMismatches} entryIds/contextEdits, ${run.problemsReported} with problems reported) ${log.summary()}`,
	);
	console.log(
		`[pi1 session differential] entries: ${JSON.stringify(kinds)}; 1.x rules on compared paths: ${JSON.stringify(rulesSeen)}`,
	);
	if (run.historyMismatches > 0) {
		console.log(
			`[pi1 session differential] 1.x rules on the paths of the history mismatches ("none": unexplained): ${JSON.stringify(historyMismatchRules)}`,
		);
	}
	if (log.total > 0) console.log(`[pi1 session differential] mismatch classes:\n${log.report()}`);
	console.log(
		`[pi1 session differential] ${cross.sessions} sessions written by pi-coding-agent 0.73.1, ${cross.entries} entries, ${cross.contexts} contexts (${cross.messages} history messages): pi 1.6.0 vs 0.73.1 buildSessionContext + convertToLlm: ${cross.mismatches} mismatches ${crossLog.summary()}`,
	);
	if (crossLog.total > 0) console.log(`[pi1 session differential] 1.6 vs 0.73.1 classes:\n${crossLog.report()}`);
	expect(run.sessions).toBeGreaterThan(0);
	expect(run.mismatches).toBe(0);
	expect(cross.mismatches).toBe(0);
});

/** `value`, once checked to cross to the child unchanged (the codec's round trip deep-equals it). */
function checked<T>(value: T): T {
	if (!isDeepStrictEqual(decode(JSON.parse(JSON.stringify(encode(value)))), value)) {
		throw new Error(`codec lost information on ${show(value)}`);
	}
	return value;
}

const systemCount = (messages: readonly unknown[]): number =>
	messages.filter((m) => (m as { role?: unknown }).role === "system").length;

/**
 * Compares our reading of one leaf with pi's; returns the text of the mismatch, or `undefined`.
 * Counts unless `quiet`.
 */
function compareContext(label: string, ours: Ours, theirs: PiContext, quiet: boolean): string | undefined {
	const oursConverted = convertToLlm(ours.messages);
	const historySame = same(ours.messages, theirs.context.messages);
	const settingsSame =
		ours.thinkingLevel === theirs.context.thinkingLevel && isDeepStrictEqual(ours.model, theirs.context.model);
	const inputSame = same(oursConverted, theirs.converted);
	const problems = ours.problems.length;
	const provenanceSame =
		theirs.entryIds === undefined ||
		(same(ours.entryIds, theirs.entryIds) && same(ours.contextEdits, theirs.contextEdits));
	if (!quiet) {
		run.contexts++;
		run.messages += theirs.context.messages.length;
		run.systemMessages += systemCount(theirs.context.messages);
		for (const rule of theirs.rules) rulesSeen[rule] = (rulesSeen[rule] ?? 0) + 1;
		if (!historySame) {
			run.historyMismatches++;
			for (const rule of theirs.rules.length > 0 ? theirs.rules : ["none"]) {
				historyMismatchRules[rule] = (historyMismatchRules[rule] ?? 0) + 1;
			}
		}
		if (!inputSame) run.modelInputMismatches++;
		if (!settingsSame) run.settingsMismatches++;
		if (!provenanceSame) run.provenanceMismatches++;
		if (problems > 0) run.problemsReported++;
	}
	if (historySame && inputSame && settingsSame && provenanceSame && problems === 0) return undefined;
	const rules = theirs.rules.length > 0 ? theirs.rules.join(" + ") : "no 1.x rule on the path";
	let kind: string;
	let text: string;
	if (!historySame) {
		kind = `history (${rules})`;
		text = mismatchText(`${kind}, ${label}`, "(the file below)", ours.messages, theirs.context.messages);
	} else if (!inputSame) {
		kind = `model input: ${classify(oursConverted, theirs.converted)}`;
		text = mismatchText(`${kind}, ${label}`, theirs.context.messages, oursConverted, theirs.converted);
	} else if (!settingsSame) {
		kind = "thinking level / model";
		text = `${kind}, ${label}: pi ${show({ thinkingLevel: theirs.context.thinkingLevel, model: theirs.context.model })}, ours ${show({ thinkingLevel: ours.thinkingLevel, model: ours.model })}`;
	} else if (!provenanceSame) {
		kind = `provenance (entryIds, contextEdits): ${rules}`;
		const provenance = (c: { entryIds?: unknown; contextEdits?: unknown }) => ({
			entryIds: c.entryIds,
			contextEdits: c.contextEdits,
		});
		text = mismatchText(`${kind}, ${label}`, theirs.context.messages, provenance(ours), provenance(theirs));
	} else {
		kind = "problems reported on a pi-written file";
		text = `${kind}, ${label}: ${ours.problems.map((p) => p.message).join(" | ")}`;
	}
	if (!quiet) log.add(kind, () => text);
	return text;
}

/** Compares every reading of one written session; returns the first mismatch's text with the file. */
function compareSession(written: Written, quiet = false): string | undefined {
	const bytes = readFileSync(written.file);
	const text = bytes.toString("utf8");
	const found: string[] = [];
	const check = (label: string, ours: Ours, theirs: PiContext): void => {
		const mismatch = compareContext(label, ours, theirs, quiet);
		if (mismatch !== undefined) found.push(mismatch);
	};
	const countFound = (): void => {
		if (!quiet) run.mismatchingContexts += found.length;
	};
	// The file as pi resumes it (SessionManager.open): the last entry is the leaf.
	check("at the last entry (readSessionFile vs SessionManager.open)", readSessionFile(written.file), written.atLast);
	for (const leaf of written.leaves) {
		check(`at leaf ${leaf.leafId}`, readSession(text, { leafId: leaf.leafId }), leaf);
	}
	// The live manager still holds the `undefined` fields JSON drops, so compare it as JSON values:
	// deep-equal, not byte-equal, since pi's own live and file readings can order keys differently (a
	// message written with `content: undefined` is read back with `content: []` last). The
	// byte-exact comparison at the live leaf is the one against pi's reading of the file, above.
	const atLive = readSession(text, { leafId: written.live.leafId }).messages;
	if (!isDeepStrictEqual(JSON.parse(JSON.stringify(atLive)), JSON.parse(written.live.json))) {
		const report = `live context at ${written.live.leafId} differs as JSON: pi ${show(written.live.json)}, ours ${show(atLive)}`;
		if (!quiet) log.add("live context (as JSON)", () => report);
		found.push(report);
	}
	if (!readFileSync(written.file).equals(bytes)) throw new Error(`reading ${written.file} changed it`);
	countFound();
	if (found.length === 0) return undefined;
	return `${found[0]}\n      the file (${written.entryCount} entries):\n${show(text, 4000)}`;
}

const BATCH = 25;
/** Sessions written per generator (the size of the 0.73.1 session differential's main run). */
const SESSIONS = 500;
const arbSession16 = fc.tuple(arbOps16, fc.array(arbPick, { maxLength: 3 }));

async function write16(sessions: [SessionOp[], number[]][]): Promise<Written[]> {
	return pi.call<Written[]>("session.write", {
		dir,
		sessions: sessions.map(([ops, picks]) => checked({ ops, picks })),
	});
}

describe("readSessionFile vs pi-coding-agent 1.6.0 on sessions written by 1.6.0's SessionManager", () => {
	it("should read the same history, settings and model input at the last entry, the live leaf and other leaves", async () => {
		const inputs = fc.sample(arbSession16, { seed, numRuns: SESSIONS });
		let mismatching = 0;
		let first: string | undefined;
		for (let start = 0; start < inputs.length; start += BATCH) {
			for (const written of await write16(inputs.slice(start, start + BATCH))) {
				run.sessions++;
				run.entries += written.entryCount;
				for (const [kind, n] of Object.entries(written.kinds)) kinds[kind] = (kinds[kind] ?? 0) + n;
				const mismatch = compareSession(written);
				if (mismatch !== undefined) {
					mismatching++;
					run.mismatches++;
					first ??= mismatch;
				}
			}
		}
		if (mismatching === 0) return;
		throw new Error(
			`${mismatching} of ${inputs.length} sessions read differently from pi 1.6.0 (seed ${seed}).\n${await smallestSession(first as string)}`,
		);
	});
});

/** The smallest mismatching session fast-check can shrink to (bounded in time), as a report. */
async function smallestSession(fallback: string): Promise<string> {
	let text: string | undefined;
	let ops: SessionOp[] = [];
	const result = await fc.check(
		fc.asyncProperty(arbSession16, async (input) => {
			const [written] = await write16([input]);
			const found = compareSession(written as Written, true);
			if (found !== undefined) {
				text = found;
				ops = input[0];
			}
			return found === undefined;
		}),
		{ seed, numRuns: SESSIONS, interruptAfterTimeLimit: 20_000 },
	);
	if (!result.failed || text === undefined) return `First mismatch of the run:\n${fallback}`;
	return `Smallest counterexample (${result.numShrinks} shrinks):\n${text}\n      the steps: ${show(ops, 3000)}`;
}

// pi 0.73.1's side of the cross-check, in this process (0.73.1 imports on Node 20).

/** pi 0.73.1 reading a file without writing it. */
function read073(text: string, leafId: string | null | undefined): { context: Context; converted: unknown[] } {
	const entries = upstreamParse(text);
	upstreamMigrate(entries);
	const tree = entries.filter((entry) => entry.type !== "session");
	const context = upstreamBuildSessionContext(tree as never, leafId) as Context;
	return { context, converted: upstreamConvertToLlm(context.messages as AgentMessage[]) };
}

describe("pi-coding-agent 1.6.0 vs 0.73.1 on sessions written by 0.73.1's SessionManager", () => {
	it("should build the same context and model input (the 1.x rules leave 0.73.1 files as they were)", async () => {
		const inputs = fc.sample(fc.tuple(arbOps073, fc.array(arbPick, { maxLength: 3 })), { seed, numRuns: SESSIONS });
		let first: string | undefined;
		for (let start = 0; start < inputs.length; start += BATCH) {
			const files = inputs.slice(start, start + BATCH).map(([ops, picks]) => {
				const manager = writeWith073(ops, dir);
				const entries = manager.getEntries();
				cross.sessions++;
				cross.entries += entries.length;
				const text = readFileSync(manager.getSessionFile() as string, "utf8");
				const leafIds = [
					undefined,
					manager.getLeafId(),
					...picks.map((n) => entries[n % entries.length]?.id as string),
				];
				return { text, leafIds };
			});
			const theirs = await pi.call<PiContext[][]>("session.read", { files: files.map(checked) });
			files.forEach(({ text, leafIds }, i) => {
				leafIds.forEach((leafId, k) => {
					const v16 = (theirs[i] as PiContext[])[k] as PiContext;
					const v073 = read073(text, leafId);
					cross.contexts++;
					cross.messages += v073.context.messages.length;
					const sameHistory = same(v16.context.messages, v073.context.messages);
					const sameSettings =
						v16.context.thinkingLevel === v073.context.thinkingLevel &&
						isDeepStrictEqual(v16.context.model, v073.context.model);
					const sameInput = same(v16.converted, v073.converted);
					if (sameHistory && sameSettings && sameInput) return;
					cross.mismatches++;
					const kind = !sameHistory ? "history" : !sameInput ? "model input" : "thinking level / model";
					const report = () =>
						`${mismatchText(`${kind} at leaf ${leafId}`, "(the file below)", { context: v16.context, converted: v16.converted }, v073, { ours: "pi 1.6.0", theirs: "pi 0.73.1" })}\n      the file:\n${show(text, 4000)}`;
					crossLog.add(kind, report);
					first ??= report();
				});
			});
		}
		expect(cross.mismatches, first).toBe(0);
	});
});
