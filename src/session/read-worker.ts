/**
 * The worker thread of parallel-read.ts (built as its own entry, `dist/read-worker.js`): reads the
 * start of a session file ({@link readStart}) and posts it back, then, when asked, the `--json` text
 * of each message entry of the rest ({@link readTexts}), a chunk at a time, until it is stopped; or `{ failed }` with what went wrong (the
 * main thread then reads the file alone and says it itself).
 */
import { parentPort, workerData } from "node:worker_threads";
import { readTexts } from "./message-texts.js";
import { readStart, type StartJob } from "./read-start.js";

const job = workerData as StartJob;
try {
	const result = readStart(job);
	const start = result.start;
	const transfer = start === undefined ? [] : [start.codes.buffer as ArrayBuffer, start.lines.buffer as ArrayBuffer];
	parentPort?.postMessage(result, transfer);
	if (start !== undefined && job.texts === true) {
		readTexts(job.path, job.end, job.slimUntil, (texts) => {
			parentPort?.postMessage({ texts }, [texts.chunk.buffer as ArrayBuffer, texts.places.buffer as ArrayBuffer]);
		});
	}
} catch (error) {
	parentPort?.postMessage({ failed: String(error) });
}
