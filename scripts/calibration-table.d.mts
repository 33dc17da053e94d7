/** The folder of the recorded sessions (test/fixtures/sessions/recorded/). */
export const RECORDED: string;
/** The first billed requests of a session, which the table leaves out. */
export const WARM_UP: number;
/** The relative distance from the bill the table counts as a match (0.05). */
export const TOLERANCE: number;
/** One assistant entry replayed: its billed tokens (null when the usage cannot be read) and what each counter said before it. */
export interface ReplayRow {
	entryId: string;
	model: string;
	billed: number | null;
	reason: string | undefined;
	estimate: number;
	calibrated: number;
	kind: "estimate" | "calibrated" | "billed";
	label: string;
	observations: number;
}
/** The figures of one session over its billed requests after the warm-up. */
export interface SessionSummary {
	name: string;
	requests: number;
	billed: number;
	scored: number;
	estimateWithin: number;
	calibratedWithin: number;
	calibratedWithin1: number;
	estimateMedian: number;
	calibratedMedian: number;
	calibratedWorst: number;
	/** The billed tokens per estimated token the calibration learnt over the whole session. */
	ratio: number;
}
/** A session replayed: one row per assistant entry, and the ratio learnt at the end. */
export interface Replay {
	rows: ReplayRow[];
	ratio: number;
}
/** The recorded session files, sorted by name. */
export function recordedSessions(): string[];
/** Every assistant entry of a session replayed, in file order, through a fresh calibratedCounter(). */
export function replaySession(text: string, file?: string): Replay;
/** The figures of one session. */
export function summarize(name: string, replay: Replay): SessionSummary;
/** The markdown table of some sessions' summaries. */
export function renderTable(summaries: readonly SessionSummary[]): string;
/** The table of the given session files (default: the recorded ones). */
export function calibrationTable(files?: readonly string[]): string;
