/**
 * The worker thread of parallel-read.ts (built as its own entry, `dist/read-worker.js`): reads the
 * start of a session file ({@link readStart}) and posts it back, or `{ failed }` with what went
 * wrong (the main thread then reads the file alone and says it itself). The job is its
 * `workerData`, or, for a worker started before the job was known, the first message it is sent.
 */
import { parentPort, workerData } from "node:worker_threads";
import { readStart, type StartJob } from "./read-start.js";

function run(job: StartJob): void {
	try {
		const result = readStart(job);
		const transfer =
			result.start === undefined
				? []
				: [
						result.start.codes.buffer as ArrayBuffer,
						result.start.ends.buffer as ArrayBuffer,
						result.start.lines.buffer as ArrayBuffer,
					];
		parentPort?.postMessage(result, transfer);
	} catch (error) {
		parentPort?.postMessage({ failed: String(error) });
	}
}

if (workerData !== undefined && workerData !== null) run(workerData as StartJob);
else parentPort?.once("message", run);
