/**
 * A configuration the pi extension cannot read fails closed: a misspelled switch may be a safety
 * switch the user meant to turn on (`"redactSecret": true`), so every request and summary is withheld,
 * with a notice that names the key and the nearest switch, until it is fixed. The real pi CLIs are
 * test/pi/fail-closed-e2e.test.ts.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { createHost } from "../../src/pi/host.js";
import { nearestName } from "../../src/pi/nearest-name.js";
import type { PiExtensionApi } from "../../src/pi/pi-api.js";
import { createReporter } from "../../src/pi/report.js";
import { convertRequest, WITHHELD_TEXT } from "../../src/pi/request.js";
import { readHardening } from "../../src/pi/settings.js";
import { hardenCompaction } from "../../src/pi/summaries.js";
import { recordingCtx } from "../support/pi-context.js";

/** pi's answers: its flag value and (pi 1.x) its settings. */
function piReading(flag: unknown, settings?: unknown): PiExtensionApi {
	const pi = { getFlag: () => flag, registerFlag: () => {} } as unknown as PiExtensionApi;
	if (settings !== undefined) pi.getSettings = () => settings;
	return pi;
}

/** The switches, as the extension's own problems list them. */
const SWITCHES = [
	"escapeSummaries",
	"safeFences",
	"blockImages",
	"strictImages",
	"strict",
	"lint",
	"redactSecrets",
	"maxTokens",
	"maxTokensStep",
	"prune",
	"pruneStep",
];

const SECRET_PROMPT = { role: "user", content: "deploy with AKIA2E0A8F3B244C9986", timestamp: 1 };

describe("readHardening's problems", () => {
	it.each([
		[
			"settings.json",
			undefined,
			{ convertToLlm: { redactSecret: true } },
			'settings "convertToLlm" has no switch "redactSecret"',
		],
		["the flag", "redactSecret", undefined, '--convert-to-llm: unknown switch "redactSecret"'],
		[
			"the flag, with a value",
			"redactSecret=true",
			undefined,
			'--convert-to-llm: unknown switch "redactSecret=true"',
		],
	])("should name a misspelled switch in %s and the one meant", (_where, flag, settings, named) => {
		const { hardening, problems } = readHardening(piReading(flag, settings));
		expect(hardening.redactSecrets).not.toBe(true);
		expect(problems).toHaveLength(1);
		expect(problems[0]).toContain(named);
		expect(problems[0]).toContain('(did you mean "redactSecrets"?)');
		expect(problems[0]).toContain(`the switches are ${SWITCHES.join(", ")}`);
		expect(problems[0]).toContain("every request is withheld until it is fixed");
	});

	it("should name as meant the switch any one-letter slip of it was (a letter left out, added, changed, or the case)", () => {
		const slip = fc
			.tuple(
				fc.constantFrom(...SWITCHES),
				fc.nat(),
				fc.constantFrom("drop", "add", "change", "case"),
				fc.string({ minLength: 1, maxLength: 1 }),
			)
			.map(([name, at, kind, letter]) => {
				const i = at % name.length;
				const typed =
					kind === "drop"
						? name.slice(0, i) + name.slice(i + 1)
						: kind === "add"
							? name.slice(0, i) + letter + name.slice(i)
							: kind === "change"
								? name.slice(0, i) + letter + name.slice(i + 1)
								: name.slice(0, i) + name.slice(i).toUpperCase();
				return { name, typed };
			})
			.filter(({ name, typed }) => typed !== name);
		fc.assert(
			fc.property(slip, ({ name, typed }) => {
				expect(nearestName(typed, SWITCHES)).toBe(name);
				const { problems } = readHardening(piReading(undefined, { convertToLlm: { [typed]: true } }));
				expect(problems.join("\n")).toContain(`did you mean ${JSON.stringify(name)}?`);
			}),
		);
	});

	it("should cut a huge key in its problem and still find the switch meant", () => {
		const typed = `redactSecret${"s".repeat(100_000)}`;
		const { problems } = readHardening(piReading(undefined, { convertToLlm: { [typed]: true } }));
		expect(problems[0]?.length).toBeLessThan(1_000);
		expect(problems[0]).toContain('(did you mean "redactSecrets"?)');
	});

	it.each([
		[
			"redactSecrets",
			"true",
			'settings "convertToLlm.redactSecrets" is a string ("true"): redactSecrets takes true or false',
		],
		["lint", "on", 'settings "convertToLlm.lint" is a string ("on"): lint takes "off", "report" or "repair"'],
		["maxTokens", 1.5, 'settings "convertToLlm.maxTokens" is number 1.5: maxTokens takes a whole number >= 0'],
		[
			"prune",
			{ reasoning: "some" },
			'settings "convertToLlm.prune" is an object without a string role: prune is not taken',
		],
	])("should name the switch %s and what it takes when its value cannot be read", (key, value, named) => {
		const { problems } = readHardening(piReading(undefined, { convertToLlm: { [key]: value } }));
		expect(problems).toHaveLength(1);
		expect(problems[0]).toContain(named);
	});

	it("should refuse prune in the flag, where it cannot be given", () => {
		const { problems } = readHardening(piReading("prune"));
		expect(problems).toEqual([
			'--convert-to-llm: prune is set in settings.json only ("prune" under "convertToLlm"), not in the flag; every request is withheld until it is fixed.',
		]);
	});

	describe("on pi 0.73.1, which gives extensions no settings", () => {
		const dir = mkdtempSync(join(tmpdir(), "ctl-settings-unreadable-"));
		afterAll(() => rmSync(dir, { recursive: true, force: true }));

		it("should read the extension's switches and their problems from pi's settings files, the project's over the global", () => {
			const agentDir = join(dir, "agent");
			const cwd = join(dir, "cwd");
			mkdirSync(agentDir, { recursive: true });
			mkdirSync(join(cwd, ".pi"), { recursive: true });
			writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ convertToLlm: { safeFences: true } }));
			writeFileSync(join(cwd, ".pi", "settings.json"), JSON.stringify({ convertToLlm: { redactSecret: true } }));
			const { hardening, problems } = readHardening(piReading(undefined), { cwd, agentDir });
			expect(hardening.safeFences).toBe(true);
			expect(problems).toHaveLength(1);
			expect(problems[0]).toContain('has no switch "redactSecret" (did you mean "redactSecrets"?)');
		});
	});
});

describe("a configuration with problems", () => {
	function hostOf(flag: unknown, settings?: unknown) {
		const pi = piReading(flag, settings);
		const { hardening, problems } = readHardening(pi);
		const host = createHost(pi, hardening);
		host.configure(hardening, undefined, problems);
		return host;
	}

	it.each([
		["a misspelled switch in settings.json", undefined, { convertToLlm: { redactSecret: true } }, '"redactSecret"'],
		["a misspelled switch in the flag", "redactSecret", undefined, '"redactSecret"'],
		["a switch value it cannot read", undefined, { convertToLlm: { redactSecrets: "true" } }, '"true"'],
		["settings that are not an object", undefined, { convertToLlm: ["redactSecrets"] }, "an array of 1"],
	])(
		"should withhold every request, for %s, naming the problem and where to fix it",
		async (_name, flag, settings, named) => {
			const host = hostOf(flag, settings);
			const reporter = createReporter();
			for (let i = 0; i < 2; i++) {
				const { ctx, shown, aborted } = recordingCtx();
				const result = await convertRequest(host, reporter, [SECRET_PROMPT], ctx);
				expect(JSON.stringify(result.messages)).not.toContain("AKIA");
				expect(result.messages).toEqual([
					{ role: "user", content: [{ type: "text", text: WITHHELD_TEXT }], timestamp: expect.any(Number) },
				]);
				expect(aborted()).toBe(1);
				expect(shown.map(({ level }) => level)).toEqual(["error"]);
				const text = shown[0]?.text ?? "";
				expect(text).toContain(
					"request withheld (fail closed): the convert-to-llm configuration holds what it cannot read",
				);
				expect(text).toContain('settings.json ("convertToLlm") or the --convert-to-llm flag, then /reload');
				expect(text).toContain(named);
			}
		},
	);

	it("should cancel pi's compaction too, whose request would carry the same history", async () => {
		const host = hostOf(undefined, { convertToLlm: { redactSecret: true } });
		const { ctx, shown } = recordingCtx();
		const preparation = { messagesToSummarize: [SECRET_PROMPT], turnPrefixMessages: [] };
		expect(await hardenCompaction(host, createReporter(), { preparation }, ctx)).toEqual({ cancel: true });
		expect(shown[0]?.text).toContain("compaction cancelled (fail closed)");
		expect(shown[0]?.text).toContain('"redactSecret"');
	});

	it("should send requests again once the configuration is read whole", async () => {
		const host = hostOf(undefined, { convertToLlm: { redactSecret: true } });
		const fixed = readHardening(piReading(undefined, { convertToLlm: { safeFences: true } }));
		host.configure(fixed.hardening, undefined, fixed.problems);
		const { ctx, aborted } = recordingCtx();
		const result = await convertRequest(host, createReporter(), [SECRET_PROMPT], ctx);
		expect(aborted()).toBe(0);
		expect(result.messages).toEqual([SECRET_PROMPT]);
	});
});
