/**
 * `calibratedCounter` against the bill of two real pi sessions with Claude
 * (test/fixtures/sessions/recorded/, from pi's own repository): every assistant entry is a billed
 * request, rebuilt as the default conversion of its path up to its parent, counted before it is
 * observed (scripts/calibration-table.mjs, the table in docs/filters.md).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import {
	RECORDED,
	type Replay,
	type ReplayRow,
	renderTable,
	replaySession,
	summarize,
	WARM_UP,
} from "../../scripts/calibration-table.mjs";
import { PI_ESTIMATE_LABEL } from "../../src/filters/calibrated-counter.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const ZEROS = "the usage is all zeros: the provider reported none (e.g. the request was aborted before it answered)";

/** The sessions, what was measured on them, and the level each figure is held at. */
const SESSIONS = [
	{ file: "pi-mono-before-compaction.jsonl", requests: 484, billed: 471, calibratedWithin: 0.995 },
	{ file: "pi-mono-large-session.jsonl", requests: 453, billed: 439, calibratedWithin: 0.995 },
] as const;

const replayed = new Map<string, Replay>();
const replayOf = (file: string): Replay => {
	let replay = replayed.get(file);
	if (replay === undefined) {
		replay = replaySession(readFileSync(join(RECORDED, file), "utf8"), file);
		replayed.set(file, replay);
	}
	return replay;
};
const rowsOf = (file: string): ReplayRow[] => replayOf(file).rows;
const off = (row: ReplayRow, tokens: number): number =>
	Math.abs(tokens - (row.billed as number)) / (row.billed as number);

describe("calibratedCounter on recorded sessions", () => {
	it.each(SESSIONS)("should read every billed request of $file, refusing only the zero usages", (session) => {
		const rows = rowsOf(session.file);

		expect(rows).toHaveLength(session.requests);
		expect(rows.filter((row) => row.billed !== null)).toHaveLength(session.billed);
		for (const row of rows.filter((row) => row.billed === null)) expect(row.reason).toBe(ZEROS);
	});

	it.each(SESSIONS)(
		"should be within ±5% of the bill for at least $calibratedWithin of the requests after the fifth of $file, where chars/4 is for none",
		(session) => {
			const summary = summarize(session.file, replayOf(session.file));

			expect(summary.scored).toBe(session.billed - WARM_UP);
			expect(summary.calibratedWithin).toBeGreaterThanOrEqual(session.calibratedWithin);
			expect(summary.estimateWithin).toBe(0);
			expect(summary.calibratedMedian).toBeLessThan(0.002);
			expect(summary.estimateMedian).toBeGreaterThan(0.2);
		},
	);

	it.each(SESSIONS)("should say which counter made each figure of $file", (session) => {
		let observed = 0;
		for (const row of rowsOf(session.file)) {
			if (observed === 0) expect([row.kind, row.label]).toEqual(["estimate", PI_ESTIMATE_LABEL]);
			else
				expect([row.kind, row.label]).toEqual([
					"calibrated",
					`calibrated on ${observed} billed request${observed === 1 ? "" : "s"}`,
				]);
			if (row.billed !== null) observed++;
		}
	});

	it("should count nothing for a turn that ended in an error, as pi-ai sends none of it", () => {
		const rows = rowsOf("pi-mono-large-session.jsonl");
		// Entry 00000033 stopped with an error after 4,335 estimated tokens of text; the next request
		// was billed 59 tokens more than it.
		const after = rows.find((row) => row.entryId === "00000035") as ReplayRow;

		expect(after.billed).toBe(37_811);
		expect(off(after, after.calibrated)).toBeLessThan(0.01);
	});

	it("should be the table docs/filters.md shows", () => {
		const docs = readFileSync(join(ROOT, "docs/filters.md"), "utf8");
		const open = "<!-- calibration-table: node --import tsx scripts/calibration-table.mjs -->\n";
		const start = docs.indexOf(open);
		const end = docs.indexOf("<!-- /calibration-table -->", start);
		expect(start, "docs/filters.md has no calibration table").toBeGreaterThan(-1);

		const shown = docs.slice(start + open.length, end);
		const files = [...SESSIONS].map((session) => session.file).sort();
		expect(shown).toBe(renderTable(files.map((file) => summarize(file, replayOf(file)))));
	});
});
