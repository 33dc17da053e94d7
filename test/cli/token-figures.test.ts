import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cli, DEMO, fixture, PLUGIN, root } from "../fixtures/sessions/run-cli.js";
import { sessionText, smallSession } from "../ledger/small-session.js";
import { reportDataOf } from "../support/report-page.js";
import { SECRETS } from "../support/secret-corpus.js";

const work = mkdtempSync(join(tmpdir(), "token-figures-"));

describe("convert-to-llm's token figures", () => {
	it("should end the view's footer with the calibrated count and the last bill of a session that recorded bills", async () => {
		const lines = (await cli(["--plugin", PLUGIN, DEMO])).stdout.trimEnd().split("\n");
		expect(lines.at(-2)).toContain("~1,460 tokens (chars/4 as pi estimates, 1,200 per image)");
		expect(lines.at(-1)).toMatch(
			/^ {3}~[\d,]+ tokens calibrated on 5 billed requests · 3,310 tokens billed for the last recorded request \(entry a1000020: input \+ cache read \+ cache write\)$/,
		);
	});

	it("should show a hostile entry id in the last bill's line as the view shows any history text: marked, never raw", async () => {
		const hostile = "a10\u202e界🙂\u200b\u001b[31m20";
		// The id written as JSON escapes it, so the file stays valid JSONL.
		const text = readFileSync(join(root, DEMO), "utf8").replaceAll("a1000020", JSON.stringify(hostile).slice(1, -1));
		const file = join(work, "hostile-ids.jsonl");
		writeFileSync(file, text);
		const run = await cli(["--plugin", PLUGIN, file]);
		const last = run.stdout.trimEnd().split("\n").at(-1) ?? "";
		expect(last).toContain("(entry a10⟨U+202E⟩界🙂⟨U+200B⟩␛[31m20: input + cache read + cache write)");
		for (const raw of ["\u202e", "\u200b", "\u001b"]) expect(run.stdout.includes(raw)).toBe(false);
	});

	it.each([
		["a history that is not a session", fixture("messages.json"), "the input is not a pi session"],
		["a session without usage", fixture("pi1-system-and-edits.jsonl"), "the session recorded no billed usage"],
	])("should say for %s that the estimate is pi's chars/4, typically below the bill", async (_, file, why) => {
		const last = (await cli([file])).stdout.trimEnd().split("\n").at(-1);
		expect(last).toBe(
			`   pi's chars/4 estimate only: typically 24–28% below what Claude bills (median on two recorded pi sessions, docs/filters.md); no bill to calibrate on (${why})`,
		);
	});

	it("should give the figures in --explain --json, each with its kind and label", async () => {
		const json = JSON.parse((await cli(["--json", "--explain", "--plugin", PLUGIN, DEMO])).stdout);
		expect(json.tokens.estimate).toEqual({
			kind: "estimate",
			tokens: 1_460,
			label: "pi estimate: chars/4, 1,200 per image",
		});
		expect(json.tokens.calibrated).toMatchObject({ kind: "calibrated", label: "calibrated on 5 billed requests" });
		expect(json.tokens.lastBilled).toMatchObject({ kind: "billed", tokens: 3_310, entryId: "a1000020" });
		// The plain --json stays the model input, an array.
		expect(Array.isArray(JSON.parse((await cli(["--json", DEMO])).stdout))).toBe(true);
	});

	it("should put the ledger in the report, and nothing the redaction would find in any of its strings", async () => {
		const ghp = (SECRETS.find((s) => s.kind === "github-classic-token") as (typeof SECRETS)[number]).value;
		const session = join(work, "secret-model.jsonl");
		writeFileSync(session, sessionText(smallSession({ a3: { model: `claude ${ghp}` } })));
		const out = join(work, "secret-model.html");
		const run = await cli(["--html", out, "--redact-secrets", session]);
		expect(run.code, run.stderr).toBe(0);
		const page = readFileSync(out, "utf8");
		expect(page).not.toContain(ghp);
		const data = reportDataOf(page);
		expect(data.requests).toHaveLength(4);
		expect(data.requests[2]?.model).not.toContain(ghp);
		expect(data.requests[2]?.model).toContain("[REDACTED");
		expect(data.ledger.configuration).toContain("redact-secrets");
		expect(data.tokens.calibrated?.kind).toBe("calibrated");
	});
});
