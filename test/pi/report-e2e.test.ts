/**
 * `/llm-context --html` in the real pi CLI, on both pi lines (pi 1.6.0 on the Node >= 22.19 that
 * scripts/pi-node.mjs provides, pi 0.73.1 on this Node), in RPC mode against a loopback fake
 * provider: the report is written beside the session file, says where, and holds the conversion
 * `convert-to-llm --json` gives for that session, and the ledger chart and token figures of the
 * bills pi recorded (`--requests` counts the same requests).
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ReportData } from "../../src/report/report-data.js";
import { type FakeProvider, startFakeProvider } from "../support/pi-cli/fake-provider.js";
import type { PiLine } from "../support/pi-cli/rpc-client.js";
import { llmContext, piArgs, prepare, ROOT, script, withPi } from "../support/pi-cli/scenario.js";
import { dataText } from "../support/report-page.js";

const TICKET_EXTENSION = join(ROOT, "examples/pi-ticket-role");
const TICKET_PLUGIN = join(ROOT, "examples/plugins/ticket-role.mjs");

let fake: FakeProvider;
let base: string;

beforeAll(async () => {
	fake = await startFakeProvider(script);
	base = mkdtempSync(join(tmpdir(), "convert-to-llm-report-pi-"));
});

afterAll(async () => {
	await fake?.close();
	if (base !== undefined) rmSync(base, { recursive: true, force: true });
});

describe.each(["1.6.0", "0.73.1"] as PiLine[])("/llm-context --html in pi %s", (line) => {
	it("should write the report beside the session, say where, and hold what convert-to-llm --json gives", async () => {
		const { dirs, session } = prepare(join(base, line), fake);
		const args = piArgs(session, [ROOT, TICKET_EXTENSION]);
		const { result: said } = await withPi({ dirs, args, line, lifetimeMs: 45_000 }, (pi) => llmContext(pi, "--html"));
		const path = session.replace(/\.jsonl$/, ".llm-context.html");
		expect(said).toBe(
			`/llm-context: wrote the HTML report to ${path} (${said.match(/\(([\d.]+ KB)\)/)?.[1]}); open it in a browser.`,
		);
		expect(existsSync(path)).toBe(true);
		const data = JSON.parse(dataText(readFileSync(path, "utf8"))) as ReportData;
		const cli = spawnSync(
			process.execPath,
			[join(ROOT, "dist/cli.js"), "--json", "--plugin", TICKET_PLUGIN, session],
			{
				encoding: "utf8",
				timeout: 20_000,
			},
		);
		expect(cli.status, cli.stderr).toBe(0);
		const expected = JSON.parse(cli.stdout) as { role: string }[];
		// Before the run's first prompt, pi 1.x's next request also carries the system message pi adds then.
		const pending = line === "1.6.0" ? ["system"] : [];
		expect(data.output.map((item) => item.role)).toEqual([...expected.map((message) => message.role), ...pending]);
		expect(data.title).toBe(session);
		expect(data.rows.some((row) => row.mark === "compaction")).toBe(true);
		// The bills pi recorded in its entries: the token figures with their counters, and the ledger chart.
		const ledger = spawnSync(process.execPath, [join(ROOT, "dist/cli.js"), "--requests", "--json", session], {
			encoding: "utf8",
			timeout: 20_000,
		});
		expect(ledger.status, ledger.stderr).toBe(0);
		const requests = (JSON.parse(ledger.stdout) as { rows: unknown[] }).rows.length;
		expect(requests).toBeGreaterThan(0);
		expect(data.ledger.why).toBeUndefined();
		expect(data.ledger.requests).toBe(requests);
		expect(data.tokens.calibrated?.label).toMatch(/^calibrated on \d+ billed requests?$/);
		expect(fake.bodies.splice(0)).toEqual([]);
	}, 90_000);
});
