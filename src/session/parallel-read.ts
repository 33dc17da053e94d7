/**
 * A long session file read on two threads: a worker thread reads the start of the file (the
 * message entries the context will not send, held slim: see slim.ts) while the main thread reads
 * the rest, whose entries it needs whole; the two are then joined as one reader would have read the
 * whole file. pi reads on one thread; most machines have a second core.
 *
 * Every line is still parsed as pi parses it, on one thread or the other. Whatever the two cannot
 * join exactly (the worker does not start or fails, the start is not a version 3 session, the rest
 * meets a problem, whose line number and text depend on the start) gives `undefined`, and the
 * caller reads the file on one thread: a split can only cost time, never change a result.
 */
import { Worker } from "node:worker_threads";
import { InvalidSessionError } from "../errors.js";
import { isInstance } from "../values.js";
import { SessionLineParser } from "./line-parser.js";
import { LineSplitter } from "./lines.js";
import { contextOfSession, push, type ReadSessionOptions, type ReadSessionResult } from "./read.js";
import type { StartJob, StartResult } from "./read-start.js";
import { anySlim, type ReadAt } from "./slim.js";
import { decodeStart } from "./start-codec.js";

/** Where to split a file, and the id message entries are held slim until. */
export interface SplitPlan {
	/** The start's length: the offset just after a `\n`. */
	end: number;
	slimUntil: string;
}

/**
 * How much of a file the worker reads at most: it starts 50-70 ms after the main thread and parses
 * a little more slowly beside it, and the main thread waits for it before building the context. On
 * a 400,000-entry session compacted at 90%, with 0.42 the worker was done about 150 ms before the
 * main thread; with 0.48 the two end together (the main thread's rest then costs it less).
 */
export const START_SHARE = 0.48;

/** Files smaller than this are read on one thread: a worker takes 50-70 ms to start. */
export const MIN_PARALLEL_BYTES = 8 * 1024 * 1024;

/** How far before the latest compaction its kept entry is looked for. */
const KEPT_SEARCH_BYTES = 16 * 1024 * 1024;
const WINDOW = 1024 * 1024;

/**
 * Where a session file of `size` bytes splits: before the entry its latest compaction (slim.ts's
 * `latestCompaction`) keeps from (the context starts there, so the start's message entries are all
 * held slim), at most `share` of the file, at a line's end; `undefined` when the bytes do not tell.
 */
export function splitPlan(
	read: ReadAt,
	size: number,
	compaction: { keptId: string; at: number } | undefined,
	minBytes = MIN_PARALLEL_BYTES,
	share = START_SHARE,
): SplitPlan | undefined {
	if (size < minBytes || compaction === undefined) return undefined;
	const kept = keptLineStart(read, compaction.at, compaction.keptId);
	if (kept === undefined) return undefined;
	const end = lineStartBefore(read, Math.min(Math.floor(size * share), kept));
	if (end === undefined || end < minBytes / 2) return undefined;
	return { end, slimUntil: compaction.keptId };
}

/** The offset of the line `"id":<keptId>` is on, looked for backwards from `before`. */
function keptLineStart(read: ReadAt, before: number, keptId: string): number | undefined {
	const needle = Buffer.from(`"id":${JSON.stringify(keptId)},`);
	const buffer = Buffer.allocUnsafe(WINDOW + needle.length);
	for (let end = before; end > 0 && before - end < KEPT_SEARCH_BYTES; end -= WINDOW) {
		const start = Math.max(0, end - WINDOW);
		const bytes = buffer.subarray(0, read(buffer.subarray(0, Math.min(end + needle.length, before) - start), start));
		const at = bytes.lastIndexOf(needle);
		if (at === -1) continue;
		const line = bytes.lastIndexOf(0x0a, at);
		return line === -1 ? (start === 0 ? 0 : undefined) : start + line + 1;
	}
	return undefined;
}

/** The offset just after the last `\n` before `offset` (within a window of it). */
function lineStartBefore(read: ReadAt, offset: number): number | undefined {
	const start = Math.max(0, offset - 64 * 1024);
	const buffer = Buffer.allocUnsafe(offset - start);
	const bytes = buffer.subarray(0, read(buffer, start));
	const at = bytes.lastIndexOf(0x0a);
	return at === -1 ? undefined : start + at + 1;
}

/** Runs a {@link StartJob}; `undefined` when it could not (the caller then reads on one thread). */
export type StartRunner = (job: StartJob) => Promise<StartResult | undefined>;

/** What {@link readInParallel} read: the session, or `again` (the context sends a slim entry). */
export type ParallelRead = { kind: "session"; result: ReadSessionResult } | { kind: "again" };

/**
 * Reads the session whose first `job.end` bytes `runStart` reads (a worker thread, by default)
 * while `rest` (the file's bytes from `job.end` on) is read here. `undefined` when the two cannot
 * be joined (see the module's comment); errors of `rest` (a file past `--max-input`) are thrown.
 */
export async function readInParallel(
	job: StartJob,
	rest: Iterable<Uint8Array | string> | AsyncIterable<Uint8Array | string>,
	options: ReadSessionOptions,
	runStart: StartRunner = startInWorker,
): Promise<ParallelRead | undefined> {
	const started = runStart(job);
	const parser = new SessionLineParser({ file: options.file, slimUntil: job.slimUntil, rest: true });
	const splitter = new LineSplitter(parser);
	try {
		for await (const chunk of rest) push(splitter, chunk, options.file);
		splitter.end();
	} catch (error) {
		// A line too long for a string: its number is the start's to give.
		if (isInstance(error, InvalidSessionError)) return undefined;
		throw error;
	}
	// A start that failed is read again, on one thread, which says why.
	const start = await started.catch(() => undefined);
	if (start?.start === undefined) return undefined;
	const session = parser.withStart(decodeStart(start.start), start.lineCount);
	if (session === undefined) return undefined;
	let sendsSlim = false;
	const result = contextOfSession(session, options, options.file, (entries, chosen) => {
		sendsSlim = anySlim(entries, chosen);
	});
	return sendsSlim ? { kind: "again" } : { kind: "session", result };
}

/** The worker thread's file, beside this module's (both in dist/). */
const WORKER = "./read-worker.js";

/**
 * A larger young generation than the main thread's default (which a process cannot set for
 * itself once started): the start's parsed lines die young, and fewer scavenges copy the slim
 * entries that survive.
 */
const LIMITS = { maxYoungGenerationSizeMb: 48 };

/**
 * A worker thread started before its job is known, so that it boots (50-70 ms) while the main
 * thread reads the end of the file for the {@link SplitPlan}: `run` sends it the job (once), and
 * `cancel` ends it unused. Until it has a job, it does not keep the process alive.
 */
export interface StartedWorker {
	run: StartRunner;
	cancel(): void;
}

/** A {@link StartedWorker}; `undefined` when no worker thread can start. */
export function startWorker(): StartedWorker | undefined {
	let worker: Worker;
	try {
		worker = new Worker(new URL(WORKER, import.meta.url), { resourceLimits: LIMITS });
	} catch {
		return undefined;
	}
	worker.unref();
	const done = new Promise<StartResult | undefined>((resolve) => {
		worker.once("message", (message: StartResult | { failed: string }) => {
			resolve("failed" in message ? undefined : message);
			void worker.terminate();
		});
		worker.once("error", () => resolve(undefined));
		worker.once("exit", () => resolve(undefined));
	});
	return {
		run: (job) => {
			worker.ref();
			worker.postMessage(job);
			return done;
		},
		cancel: () => void worker.terminate(),
	};
}

/** {@link StartRunner} on a worker thread; `undefined` when it cannot start or fails. */
export const startInWorker: StartRunner = (job) => startWorker()?.run(job) ?? Promise.resolve(undefined);
