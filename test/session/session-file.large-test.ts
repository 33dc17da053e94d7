/**
 * `npm run test:large`: a session file larger than the longest string Node can hold (about 512 MiB),
 * generated in a temporary directory, reads correctly: `readSessionFile` and `readSessionStream`
 * give every entry, and the CLI's `--json` (with `--max-input` raised) writes exactly the bytes pi
 * 1.6.0's own path writes (`SessionManager.open` + `buildSessionContext` + `convertToLlm` +
 * `JSON.stringify`, on Node 22). Skipped, saying why, only where the disk has no room for it.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
	closeSync,
	createReadStream,
	mkdtempSync,
	openSync,
	readFileSync,
	rmSync,
	statfsSync,
	statSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { resolvePiNode } from "../../scripts/pi-node.mjs";
import { readSessionFile, readSessionStream } from "../../src/session/index.js";
import { writeLargeSession } from "../fixtures/sessions/large-session.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const STRING_LIMIT = 2 ** 29 - 24;
const ENTRIES = 1_150_000;
/** The file (about 600 MB), two outputs of a few MB, and room to spare. */
const NEEDED = 1.5 * 1024 ** 3;

const tmp = mkdtempSync(join(tmpdir(), "ctl-session-large-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const free = (() => {
	const stats = statfsSync(tmp);
	return stats.bavail * stats.bsize;
})();
const room = free >= NEEDED;
if (!room) {
	console.log(
		`[session large] skipped: ${tmp} has ${(free / 1024 ** 2).toFixed(0)} MiB free, and the test needs ${(NEEDED / 1024 ** 2).toFixed(0)} MiB`,
	);
}

/** sha256 of what `node args…` writes to stdout (sent to a file), and its status. */
function outputHash(node: string, args: string[], out: string) {
	const fd = openSync(out, "w");
	try {
		const run = spawnSync(node, args, { cwd: ROOT, stdio: ["ignore", fd, "pipe"], encoding: "utf8" });
		return {
			status: run.status,
			stderr: run.stderr,
			hash: createHash("sha256").update(readFileSync(out)).digest("hex"),
		};
	} finally {
		closeSync(fd);
	}
}

describe.runIf(room)("session reader on a file larger than Node's longest string", () => {
	const file = join(tmp, "large.jsonl");

	it("should read every entry of it with readSessionFile and readSessionStream, and convert it as pi 1.6.0 does", async () => {
		const { bytes } = writeLargeSession(file, ENTRIES, 1, 0.9);
		expect(bytes).toBe(statSync(file).size);
		expect(bytes).toBeGreaterThan(STRING_LIMIT);

		const read = readSessionFile(file);
		expect(read.entryCount).toBe(ENTRIES);
		expect(read.problems).toEqual([]);
		const streamed = await readSessionStream(createReadStream(file, { highWaterMark: 64 * 1024 + 7 }));
		expect(streamed.entryCount).toBe(ENTRIES);
		expect(streamed.messages).toEqual(read.messages);
		expect(streamed.entryIds).toEqual(read.entryIds);

		const ours = outputHash(
			process.execPath,
			[join(ROOT, "dist/cli.js"), "--json", "--max-input", "1G", file],
			join(tmp, "ours.json"),
		);
		expect(ours.status, ours.stderr).toBe(0);
		const pi = outputHash(
			resolvePiNode(),
			[join(ROOT, "bench/pi-session-path.mjs"), "@earendil-works", file],
			join(tmp, "pi.json"),
		);
		expect(pi.status, pi.stderr).toBe(0);
		expect(ours.hash).toBe(pi.hash);
		console.log(
			`[session large] ${ENTRIES.toLocaleString("en-US")} entries, ${(bytes / 1024 ** 2).toFixed(0)} MiB (Node's longest string: ${(STRING_LIMIT / 1024 ** 2).toFixed(0)} Mi characters): read whole by readSessionFile and readSessionStream; the CLI's --json output is byte for byte pi 1.6.0's (${read.messages.length.toLocaleString("en-US")} messages)`,
		);
	});
});
