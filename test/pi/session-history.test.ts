/**
 * `/llm-context`'s session history: pi's messages, with the entry ids, the `context_edit` effects and
 * the tree the session reader makes of the entries pi holds. `/llm-context --html` draws its history
 * column from that tree: the session file is not read again (it may be gone, or hold more than pi).
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCommand } from "../../src/pi/command.js";
import { createHost } from "../../src/pi/host.js";
import type { PiContext, PiExtensionApi } from "../../src/pi/pi-api.js";
import { createReporter } from "../../src/pi/report.js";
import { sessionHistory } from "../../src/pi/session-history.js";
import { DEFAULT_HARDENING } from "../../src/pi/settings.js";
import type { ReportData } from "../../src/report/report-data.js";
import { readSession } from "../../src/session/index.js";
import { root } from "../fixtures/sessions/run-cli.js";
import { dataText } from "../support/report-page.js";

const FIXTURE = join(root, "test", "fixtures", "sessions", "pi1-system-and-edits.jsonl");
const pi = { getFlag: () => undefined, on() {}, events: { on() {}, emit() {} } } as unknown as PiExtensionApi;
const tmp = mkdtempSync(join(tmpdir(), "ctl-session-history-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** pi's session manager over a version 3 session's text, its file at `file` (which need not exist). */
function sessionManagerOf(text: string, file: string) {
	const [header, ...entries] = text
		.trim()
		.split("\n")
		.map((line) => JSON.parse(line) as { id: string });
	return {
		getSessionFile: () => file,
		getLeafId: () => entries.at(-1)?.id ?? null,
		getHeader: () => header,
		getEntries: () => entries,
		buildSessionContext: () => ({ messages: readSession(text).messages }),
	};
}

describe("sessionHistory", () => {
	it("should give pi's messages with the reader's entry ids, edits and tree of pi's entries", () => {
		const text = readFileSync(FIXTURE, "utf8");
		const history = sessionHistory(sessionManagerOf(text, FIXTURE) as never);
		const read = readSession(text, { tree: true });
		expect(history.entryIds).toEqual(read.entryIds);
		expect(history.contextEdits).toEqual(read.contextEdits);
		expect(history.tree?.leafId).toBe(read.leafId);
		expect(history.tree?.session.entries).toEqual(read.tree?.session.entries);
	});
});

describe("/llm-context --html", () => {
	it("should draw the history column from pi's entries, without reading the session file again", async () => {
		const text = readFileSync(FIXTURE, "utf8");
		// The file pi would have read is not there: only pi's entries can give the tree.
		const file = join(tmp, "gone.jsonl");
		const shown: string[] = [];
		const ctx = {
			hasUI: true,
			mode: "rpc",
			cwd: tmp,
			ui: { notify: (said: string) => shown.push(said) },
			sessionManager: sessionManagerOf(text, file),
			abort() {},
		} as unknown as PiContext;
		await runCommand(createHost(pi, DEFAULT_HARDENING), createReporter(), "--html", ctx);
		expect(shown[0]).toMatch(/^\/llm-context: wrote the HTML report to /);
		const data = JSON.parse(dataText(readFileSync(join(tmp, "gone.llm-context.html"), "utf8"))) as ReportData;
		const types = data.rows.map((row) => row.type);
		expect(types).toContain("context_edit");
		expect(data.rows.find((row) => row.entry === "u0000001")?.state).toMatch(/^hidden by context_edit e0000001/);
	});
});
