/**
 * The HTML report of a conversion that redacts secrets holds none: not in the history column, the
 * hooks' diffs (which show the placeholder on both sides), an excluded `!!` run, a summary, a
 * compacted-away message, an entry a `context_edit` replaced, a tool call's arguments, or the title;
 * with `--redact-secrets` and with pi's `redactSecrets`. When the report's own scan fails, no report
 * is written. The text view and `--json` stay as clean as they were.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { redactSecrets } from "../../src/filters/redact-secrets.js";
import { runCommand } from "../../src/pi/command.js";
import { createHost } from "../../src/pi/host.js";
import type { PiContext, PiExtensionApi } from "../../src/pi/pi-api.js";
import { createReporter } from "../../src/pi/report.js";
import { DEFAULT_HARDENING } from "../../src/pi/settings.js";
import { createDefaultRegistry } from "../../src/preset.js";
import { ReportRedactionError, writeHtmlReport } from "../../src/report/html-report.js";
import { observeTaps } from "../../src/report/tap-snapshots.js";
import { readSession } from "../../src/session/read.js";
import { cli } from "../fixtures/sessions/run-cli.js";
import { reportDataOf } from "../support/report-page.js";
import { SECRETS } from "../support/secret-corpus.js";

const T = "2025-01-31T12:00:00.000Z";
const secret = (kind: string) => SECRETS.find((s) => s.kind === kind) as (typeof SECRETS)[number];
/** Where each secret is planted. */
const PLANTED = {
	compactedAway: secret("openai-key"),
	compactionSummary: secret("shopify-token"),
	user: secret("github-classic-token"),
	toolArguments: secret("sendgrid-key"),
	envFile: secret("aws-secret-access-key"),
	excludedRun: secret("npm-auth-token"),
	customMessage: secret("slack-bot-token"),
	replacedByEdit: secret("anthropic-key"),
	branchSummary: secret("linear-key"),
};
const VALUES = Object.values(PLANTED).map((s) => s.value);

const assistant = (content: unknown[]) => ({
	role: "assistant",
	content,
	provider: "anthropic",
	model: "claude-sonnet-4-5",
	api: "anthropic-messages",
	usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: {} },
	stopReason: "toolUse",
	timestamp: 2,
});

/** A pi session (format 3) with a secret in every place a report shows text. */
function writeSecretSession(dir: string): string {
	let parent: string | null = null;
	const lines: unknown[] = [{ type: "session", version: 3, id: "s", timestamp: T, cwd: "/p" }];
	const entry = (id: string, fields: Record<string, unknown>) => {
		lines.push({ id, parentId: parent, timestamp: T, ...fields });
		parent = id;
	};
	const message = (id: string, body: unknown) => entry(id, { type: "message", message: body });
	message("e0000001", { role: "user", content: PLANTED.compactedAway.text, timestamp: 1 });
	message("e0000002", assistant([{ type: "text", text: "noted" }]));
	entry("e0000003", {
		type: "compaction",
		summary: `The user set ${PLANTED.compactionSummary.text}`,
		firstKeptEntryId: "e0000004",
		tokensBefore: 100,
	});
	message("e0000004", { role: "user", content: `deploy with ${PLANTED.user.text}`, timestamp: 3 });
	message(
		"e0000005",
		assistant([
			{ type: "toolCall", id: "t1", name: "read", arguments: { path: ".env" } },
			{
				type: "toolCall",
				id: "t2",
				name: "bash",
				arguments: { env: { SENDGRID_API_KEY: PLANTED.toolArguments.value } },
			},
		]),
	);
	message("e0000006", {
		role: "toolResult",
		toolCallId: "t1",
		toolName: "read",
		content: [{ type: "text", text: `${PLANTED.envFile.text}\nexport AWS_REGION=eu-west-1` }],
		isError: false,
		timestamp: 4,
	});
	message("e0000007", {
		role: "toolResult",
		toolCallId: "t2",
		toolName: "bash",
		content: [{ type: "text", text: "ok" }],
		isError: false,
		timestamp: 5,
	});
	message("e0000008", {
		role: "bashExecution",
		command: "cat ~/.npmrc",
		output: PLANTED.excludedRun.text,
		exitCode: 0,
		cancelled: false,
		truncated: false,
		excludeFromContext: true,
		timestamp: 6,
	});
	entry("e0000009", { type: "custom_message", customType: "ci", content: PLANTED.customMessage.text, display: true });
	message("e0000010", assistant([{ type: "text", text: `use ${PLANTED.replacedByEdit.text}` }]));
	entry("e0000011", { type: "context_edit", targetId: "e0000010", replacement: { content: "[elided]" } });
	entry("e0000012", { type: "branch_summary", fromId: "e0000009", summary: `We tried ${PLANTED.branchSummary.text}` });
	message("e0000013", { role: "user", content: "continue", timestamp: 7 });
	const file = join(dir, "secrets.jsonl");
	writeFileSync(file, `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
	return file;
}

const temp = (): string => mkdtempSync(join(tmpdir(), "report-redaction-"));

/** The planted values found in `text`, also as JSON would escape them. */
const leaked = (text: string): string[] =>
	VALUES.filter((value) => text.includes(value) || text.includes(JSON.stringify(value).slice(1, -1)));

describe("the HTML report of a redacted conversation", () => {
	it("should hold no secret anywhere in the file with --redact-secrets, and the redaction's diff shows the placeholder on both sides", async () => {
		const dir = temp();
		const session = writeSecretSession(dir);
		const out = join(dir, "r.html");
		const run = await cli(["--redact-secrets", "--html", out, session], { cwd: dir });
		expect(run.code, run.stderr).toBe(0);
		const page = readFileSync(out, "utf8");
		expect(leaked(page)).toEqual([]);
		const data = reportDataOf(page);
		expect(leaked(JSON.stringify(data))).toEqual([]);
		// The report still shows where the secrets were.
		expect(JSON.stringify(data.history)).toContain("[REDACTED:");
		const tap = data.taps.find((item) => item.plugin === "convert-to-llm:redact-secrets");
		const diff = tap?.changes?.flatMap((change) => change.diff) ?? [];
		expect(diff.some(([op, text]) => op === "-" && text.includes("[REDACTED:"))).toBe(true);
		expect(diff.some(([op, text]) => op === "+" && text.includes("[REDACTED:"))).toBe(true);
	});

	it("should hold no secret of a compacted-away message or of an entry a context_edit replaced, whole tree read", async () => {
		const session = writeSecretSession(temp());
		const read = readSession(readFileSync(session, "utf8"), { tree: true });
		const plugin = redactSecrets();
		const registry = createDefaultRegistry().use(plugin);
		const snapshots = observeTaps(registry);
		const explanation = await registry.explainAsync(read.messages);
		const pieces: string[] = [];
		await writeHtmlReport(
			{
				title: `report of ${PLANTED.user.value}`,
				facts: [PLANTED.customMessage.text],
				messages: read.messages,
				explanation,
				entryIds: read.entryIds,
				contextEdits: read.contextEdits,
				tree: read.tree,
				snapshots,
			},
			{ out: { write: (text) => pieces.push(text) } },
			{ plugin },
		);
		const page = pieces.join("");
		expect(leaked(page)).toEqual([]);
		const rows = reportDataOf(page).rows;
		expect(rows.find((row) => row.entry === "e0000001")?.text).toContain("[REDACTED:");
		expect(rows.find((row) => row.entry === "e0000010")?.text).toContain("as stored (context_edit");
	});

	it("should hold no secret with pi's redactSecrets on (/llm-context --html)", async () => {
		const dir = temp();
		const session = writeSecretSession(dir);
		const read = readSession(readFileSync(session, "utf8"));
		const shown: string[] = [];
		const ctx = {
			hasUI: true,
			mode: "rpc",
			cwd: dir,
			ui: { notify: (text: string) => shown.push(text) },
			sessionManager: {
				getSessionFile: () => session,
				getLeafId: () => read.leafId,
				buildSessionContext: () => ({ messages: read.messages }),
			},
			abort() {},
		} as unknown as PiContext;
		const pi = {
			getFlag: () => undefined,
			on() {},
			registerFlag() {},
			registerCommand() {},
			events: { on() {}, emit() {} },
		};
		const host = createHost(pi as unknown as PiExtensionApi, { ...DEFAULT_HARDENING, redactSecrets: true });
		await runCommand(host, createReporter(), "--html", ctx);
		expect(shown[0]).toContain("wrote the HTML report to");
		const page = readFileSync(join(dir, "secrets.llm-context.html"), "utf8");
		expect(leaked(page)).toEqual([]);
		expect(page).toContain("[REDACTED:");
	});

	it("should write no report, and say so in one line, when the report's own scan fails", async () => {
		const dir = temp();
		const session = writeSecretSession(dir);
		// A redaction (by name) that lets the conversion pass and fails on the next scan: the report's.
		const plugin = join(dir, "flaky-redaction.mjs");
		writeFileSync(
			plugin,
			`let calls = 0;
export default {
	name: "convert-to-llm:redact-secrets",
	apply(registry) {
		registry.hooks.afterConvertAsync.tapPromise({ name: "convert-to-llm:redact-secrets" }, async (messages) => {
			if (++calls > 1) throw new Error("the scanner crashed");
			return messages;
		});
	},
};
`,
		);
		const out = join(dir, "r.html");
		const run = await cli(["--html", out, "--plugin", plugin, session], { cwd: dir });
		expect(run.code).toBe(2);
		expect(run.stderr).toMatch(
			/^convert-to-llm: the report was not written: its text could not be scanned for secrets \(.*the scanner crashed.*\), and a report of a redacted conversion must hold none\.\n/,
		);
		expect(existsSync(out)).toBe(false);
	});

	it("should refuse to write when the conversion redacts and the report cannot reach its redaction", async () => {
		const dir = temp();
		const out = join(dir, "r.html");
		const explanation = createDefaultRegistry().explain([{ role: "user", content: "hi", timestamp: 1 }]);
		await expect(
			writeHtmlReport(
				{ title: "t", facts: [], messages: [], explanation },
				{ path: out, reads: [] },
				{ plugin: undefined },
			),
		).rejects.toThrow(ReportRedactionError);
		expect(existsSync(out)).toBe(false);
	});

	it("should leave the text view and --json as clean as the conversion makes them", async () => {
		const dir = temp();
		const session = writeSecretSession(dir);
		// Tool-call arguments given as objects are the conversion's own matter (the model gets what
		// redactSecrets sends); every other planted secret is text it scans.
		const scanned = VALUES.filter((value) => value !== PLANTED.toolArguments.value);
		for (const argv of [["--redact-secrets"], ["--redact-secrets", "--json"]]) {
			const run = await cli([...argv, session], { cwd: dir });
			expect(run.code, run.stderr).toBe(0);
			expect(scanned.filter((value) => run.stdout.includes(value))).toEqual([]);
		}
	});
});
