#!/usr/bin/env node
/**
 * How far each token counter is from the bill, on real recorded pi sessions: the table in
 * docs/filters.md ("Token counts that match the bill").
 *
 * Each assistant entry whose `usage` can be read is one billed request: `input + cacheRead +
 * cacheWrite` tokens. The request is the conversion (default preset) of the session's path up to the
 * entry's parent, read with the project's own session reader. Replayed in file order through one
 * `calibratedCounter()` per session: each request is counted first (from the requests before it
 * only), then observed. The table compares, on the requests after the fifth billed one, pi's chars/4
 * estimate and the calibrated count with the bill.
 *
 * Usage: node --import tsx scripts/calibration-table.mjs [session.jsonl ...]
 *   (default: every file of test/fixtures/sessions/recorded/)
 */
import { readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { calibratedCounter } from "../src/filters/calibrated-counter.js";
import { createDefaultRegistry } from "../src/preset.js";
import { buildSessionContext, parseSession } from "../src/session/index.js";
import { markdownTable as table } from "./markdown-table.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
export const RECORDED = join(ROOT, "test/fixtures/sessions/recorded");
/** The first billed requests of a session, which the table leaves out: the calibration is learning. */
export const WARM_UP = 5;
/** The share of requests within this relative distance of the bill is what the table shows. */
export const TOLERANCE = 0.05;

/** The recorded sessions, sorted by name. */
export function recordedSessions() {
	return readdirSync(RECORDED)
		.filter((name) => name.endsWith(".jsonl"))
		.sort()
		.map((name) => join(RECORDED, name));
}

/**
 * Every assistant entry of a session, in file order, as a billed request replayed through a fresh
 * `calibratedCounter()`: `rows` of `{ entryId, model, billed (null when the usage cannot be read),
 * reason, estimate, calibrated, kind, label, observations }`, and the `ratio` learnt at the end.
 */
export function replaySession(text, file) {
	const session = parseSession(text, { file });
	const registry = createDefaultRegistry();
	const counter = calibratedCounter();
	const rows = [];
	for (const entry of session.entries) {
		if (entry.type !== "message" || entry.message?.role !== "assistant") continue;
		const assistant = entry.message;
		const context = buildSessionContext(session, { leafId: entry.parentId, file });
		const request = registry.convert(context.messages);
		const model = `${assistant.provider}/${assistant.model}`;
		const seen = counter.observe(request, assistant.usage, { model });
		rows.push({
			entryId: entry.id,
			model,
			billed: seen.accepted ? seen.billed : null,
			reason: seen.accepted ? undefined : seen.reason,
			estimate: seen.predicted.estimate,
			calibrated: seen.predicted.tokens,
			kind: seen.predicted.kind,
			label: seen.predicted.label,
			observations: seen.predicted.observations,
		});
	}
	return { rows, ratio: counter.state().ratio };
}

/** The figures of one session: the billed requests after the warm-up, and how each counter did on them. */
export function summarize(name, { rows, ratio }) {
	const billed = rows.filter((row) => row.billed !== null);
	const scored = billed.slice(WARM_UP);
	const errors = (pick) => scored.map((row) => Math.abs(pick(row) - row.billed) / row.billed).sort((a, b) => a - b);
	const within = (pick, tolerance) => errors(pick).filter((error) => error <= tolerance).length / scored.length;
	const median = (pick) => errors(pick)[Math.floor(scored.length / 2)] ?? Number.NaN;
	const estimate = (row) => row.estimate;
	const calibrated = (row) => row.calibrated;
	return {
		name,
		requests: rows.length,
		billed: billed.length,
		scored: scored.length,
		estimateWithin: within(estimate, TOLERANCE),
		calibratedWithin: within(calibrated, TOLERANCE),
		calibratedWithin1: within(calibrated, 0.01),
		estimateMedian: median(estimate),
		calibratedMedian: median(calibrated),
		calibratedWorst: errors(calibrated).at(-1) ?? Number.NaN,
		ratio,
	};
}

const percent = (share, digits = 1) => `${(share * 100).toFixed(digits)}%`;

/** The markdown table of some sessions' summaries. */
export function renderTable(summaries) {
	const header = [
		"session",
		"assistant entries (billed)",
		"scored",
		"within ±5%: pi estimate (chars/4)",
		"within ±5%: calibrated",
		"within ±1%: calibrated",
		"median error: pi estimate",
		"median error: calibrated",
		"worst: calibrated",
		"ratio learnt",
	];
	const rows = summaries.map((s) => [
		`\`${s.name}\``,
		`${s.requests} (${s.billed})`,
		String(s.scored),
		percent(s.estimateWithin),
		`**${percent(s.calibratedWithin)}**`,
		percent(s.calibratedWithin1),
		percent(s.estimateMedian),
		percent(s.calibratedMedian, 2),
		percent(s.calibratedWorst),
		s.ratio.toFixed(3),
	]);
	return `${table(header, rows)}\n`;
}

/** The table of the given session files (default: the recorded ones). */
export function calibrationTable(files = recordedSessions()) {
	return renderTable(files.map((file) => summarize(basename(file), replaySession(readFileSync(file, "utf8"), file))));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
	const files = process.argv.slice(2);
	process.stdout.write(calibrationTable(files.length > 0 ? files : undefined));
}
