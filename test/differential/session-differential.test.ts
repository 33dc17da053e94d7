/**
 * Differential tests of the session reader against pi-coding-agent 0.73.1: session files written by
 * pi's own `SessionManager` (random trees: every role, branches, branch summaries, compactions,
 * custom message entries, labels, session info, model and thinking changes) must read to the same
 * history as pi's `buildSessionContext`, at the last entry and at other leaves, and convert to the
 * same model input as pi's `convertToLlm`. Legacy version 1 and 2 files (generated, and the
 * hand-written fixtures) must read as pi's in-memory migration reads them, without a byte written.
 *
 * The seed is fixed so the run size printed at the end is reproducible; set `FC_SEED` to explore others.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import {
	SessionManager,
	buildSessionContext as upstreamBuildSessionContext,
	migrateSessionEntries as upstreamMigrate,
	parseSessionEntries as upstreamParse,
} from "@mariozechner/pi-coding-agent";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { convertToLlm } from "../../src/preset.js";
import { readSession, readSessionFile } from "../../src/session/index.js";
import { arbAgentMessage, arbName, arbText } from "../support/arbitraries.js";
import { arbOp073, arbPick, type SessionOp } from "../support/pi1/session-ops.js";
import { writeWith073 } from "../support/session-writer-073.js";
import { upstreamConvertToLlm } from "../support/upstream.js";

const seed = process.env.FC_SEED === undefined ? 20250131 : Number(process.env.FC_SEED);
const dir = mkdtempSync(join(tmpdir(), "ctl-session-diff-"));
const run = { sessions: 0, legacy: 0, entries: 0, contexts: 0, messages: 0, mismatches: 0 };
/** How often the interesting shapes occurred in the compared histories. */
const seen = { compactionSummary: 0, branchSummary: 0, custom: 0, bashExecution: 0, unknownRole: 0 };

type UpstreamContext = { messages: AgentMessage[]; thinkingLevel: string; model: unknown };
type Entry = { type: string; id: string };

/** pi reading a file without writing it: its parser, its in-memory migration, its context builder. */
function upstreamRead(text: string, leafId?: string | null): UpstreamContext {
	const entries = upstreamParse(text);
	upstreamMigrate(entries);
	const tree = entries.filter((entry) => entry.type !== "session") as Entry[];
	return upstreamBuildSessionContext(tree as never, leafId) as UpstreamContext;
}

/** Compares one context (history, settings, conversion) and counts it; pi-written files read without problems. */
function expectSame(actual: ReturnType<typeof readSession>, expected: UpstreamContext, problems = 0): void {
	run.contexts++;
	run.messages += expected.messages.length;
	for (const message of expected.messages) {
		const role = (message as { role: string }).role;
		if (role in seen) seen[role as keyof typeof seen]++;
		else if (!["user", "assistant", "toolResult"].includes(role)) seen.unknownRole++;
	}
	const ours = convertToLlm(actual.messages);
	const theirs = upstreamConvertToLlm(expected.messages);
	const same =
		isDeepStrictEqual(actual.messages, expected.messages) &&
		actual.thinkingLevel === expected.thinkingLevel &&
		isDeepStrictEqual(actual.model, expected.model) &&
		isDeepStrictEqual(ours, theirs) &&
		JSON.stringify(ours) === JSON.stringify(theirs);
	if (!same) run.mismatches++;
	expect(actual.messages).toStrictEqual(expected.messages);
	expect({ thinkingLevel: actual.thinkingLevel, model: actual.model }).toStrictEqual({
		thinkingLevel: expected.thinkingLevel,
		model: expected.model,
	});
	expect(ours).toStrictEqual(theirs);
	expect(actual.problems).toHaveLength(problems);
}

const asJson = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

/** One step of building a session with pi's `SessionManager` (0.73.1's steps of session-ops.ts); `pick` chooses among existing entries. */
type Op = SessionOp;
const arbOp = arbOp073;

/** Plays `ops` on a persisting `SessionManager`; returns it with its file (pi writes once an assistant message exists). */
function writeWithPi(ops: readonly Op[]): { manager: SessionManager; file: string } {
	const manager = writeWith073(ops, dir);
	return { manager, file: manager.getSessionFile() as string };
}

afterAll(() => {
	rmSync(dir, { recursive: true, force: true });
	console.log(
		`[session differential] ${run.sessions} pi-written sessions + ${run.legacy} legacy v1/v2 sessions, ${run.entries} entries, ${run.contexts} contexts (${run.messages} history messages) compared with pi-coding-agent 0.73.1: ${run.mismatches} mismatches; messages seen: ${JSON.stringify(seen)}`,
	);
	expect(run.sessions).toBeGreaterThan(0);
	expect(run.mismatches).toBe(0);
});

describe("readSessionFile vs pi-coding-agent 0.73.1 on sessions written by pi's SessionManager", () => {
	it("should read the same history, settings and model input at the last entry, the live leaf and other leaves", () => {
		fc.assert(
			fc.property(
				fc.array(arbOp, { minLength: 1, maxLength: 80, size: "large" }),
				fc.array(arbPick, { maxLength: 3 }),
				(ops, leaves) => {
					const { manager, file } = writeWithPi(ops);
					const bytes = readFileSync(file);
					const text = bytes.toString("utf8");
					const entries = manager.getEntries();
					run.sessions++;
					run.entries += entries.length;

					// The file as pi resumes it: the last entry is the leaf.
					expectSame(readSessionFile(file), upstreamRead(text));
					expectSame(
						readSessionFile(file),
						SessionManager.open(file, dir).buildSessionContext() as UpstreamContext,
					);
					// Where the live session stands (after branch() that may be an earlier entry); the live
					// objects still hold the `undefined` fields that JSON drops, so compare those as JSON.
					const live = manager.getLeafId();
					const atLive = readSession(text, { leafId: live });
					expectSame(atLive, upstreamRead(text, live));
					expect(asJson(atLive.messages)).toStrictEqual(asJson(manager.buildSessionContext().messages));
					// Other points of the tree.
					for (const n of leaves) {
						const leafId = (entries[n % entries.length] as Entry).id;
						expectSame(readSession(text, { leafId }), upstreamRead(text, leafId));
					}
					expect(readFileSync(file).equals(bytes)).toBe(true);
				},
			),
			{ seed, numRuns: 500 },
		);
	});
});

/** A legacy entry line: v1 has no ids; compactions point at a line index. */
type LegacyLine = Record<string, unknown>;

const arbV1Line: fc.Arbitrary<LegacyLine> = fc.oneof(
	{ weight: 6, arbitrary: arbAgentMessage.map((message) => ({ type: "message", message })) },
	{
		weight: 1,
		arbitrary: fc
			.record({
				role: fc.constant("hookMessage"),
				customType: arbName,
				content: arbText,
				display: fc.boolean(),
				timestamp: fc.nat(),
			})
			.map((message) => ({ type: "message", message })),
	},
	{
		weight: 2,
		arbitrary: fc.record({
			type: fc.constant("compaction"),
			summary: arbText,
			firstKeptEntryIndex: fc.integer({ min: -1, max: 45 }),
			tokensBefore: fc.nat(),
		}),
	},
	{ weight: 1, arbitrary: fc.record({ type: fc.constant("model_change"), provider: arbName, modelId: arbName }) },
	{
		weight: 1,
		arbitrary: fc.record({
			type: fc.constant("thinking_level_change"),
			thinkingLevel: fc.constantFrom("low", "high"),
		}),
	},
);

function legacyText(header: LegacyLine, lines: readonly LegacyLine[]): string {
	const timestamp = "2024-12-03T14:00:00.000Z";
	return `${[header, ...lines.map((line) => ({ ...line, timestamp }))].map((line) => JSON.stringify(line)).join("\n")}\n`;
}

describe("readSession vs pi-coding-agent 0.73.1's migration of legacy files", () => {
	it("should read generated version 1 files (no ids, firstKeptEntryIndex) as pi migrates them", () => {
		fc.assert(
			fc.property(fc.array(arbV1Line, { maxLength: 40, size: "large" }), fc.boolean(), (lines, withVersion) => {
				const header = {
					type: "session",
					...(withVersion ? { version: 1 } : {}),
					id: "v1-session",
					timestamp: "2024-12-03T14:00:00.000Z",
					cwd: "/p",
				};
				const text = legacyText(header, lines);
				run.legacy++;
				run.entries += lines.length;
				const actual = readSession(text);
				expect(actual.version).toBe(1);
				expectSame(actual, upstreamRead(text));
			}),
			{ seed, numRuns: 300 },
		);
	});

	it("should read version 2 files (a pi-written tree, header version 2, hookMessage roles) as pi migrates them", () => {
		fc.assert(
			fc.property(fc.array(arbOp, { minLength: 1, maxLength: 60, size: "large" }), (ops) => {
				const { manager, file } = writeWithPi(ops);
				const v2 = readFileSync(file, "utf8")
					.replace('"version":3', '"version":2')
					.replaceAll('"role":"custom"', '"role":"hookMessage"');
				run.legacy++;
				run.entries += manager.getEntries().length;
				const actual = readSession(v2);
				expect(actual.version).toBe(2);
				expectSame(actual, upstreamRead(v2));
			}),
			{ seed, numRuns: 150 },
		);
	});

	it.each(["v1-linear.jsonl", "v1-no-version.jsonl", "v2-tree.jsonl"])(
		"should read the fixture %s as pi migrates it, without changing a byte (pi's SessionManager.open rewrites it)",
		(name) => {
			const fixture = fileURLToPath(new URL(`../fixtures/sessions/${name}`, import.meta.url));
			const bytes = readFileSync(fixture);
			run.legacy++;
			run.entries += bytes.toString("utf8").trim().split("\n").length - 1;
			const actual = readSessionFile(fixture);
			expect(actual.messages.length).toBeGreaterThan(0);
			// v1-no-version.jsonl ends with a line cut off mid-write, which both readers skip.
			expectSame(actual, upstreamRead(bytes.toString("utf8")), name === "v1-no-version.jsonl" ? 1 : 0);
			expect(readFileSync(fixture).equals(bytes)).toBe(true);

			const copy = join(dir, `copy-${name}`);
			copyFileSync(fixture, copy);
			SessionManager.open(copy, dir);
			expect(readFileSync(copy).equals(bytes)).toBe(false);
		},
	);
});
