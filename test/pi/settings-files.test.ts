/**
 * pi 0.73.1's settings as the extension reads them from pi's files, against pi 0.73.1's own
 * `SettingsManager.create(cwd, agentDir).getBlockImages()` and `getAgentDir()` on the same files
 * and environment: the oracle is pi itself.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { getAgentDir, SettingsManager } from "@mariozechner/pi-coding-agent";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import type { PiExtensionApi } from "../../src/pi/pi-api.js";
import { piSettingsPlaces, readPiSettingsFiles } from "../../src/pi/pi-settings-files.js";
import { piBlocksImages } from "../../src/pi/settings.js";

const base = mkdtempSync(join(tmpdir(), "convert-to-llm-pi-settings-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));

/** pi 0.73.1 gives extensions no getSettings(). */
const pi073 = { getFlag: () => undefined } as unknown as PiExtensionApi;

/** What a settings file may hold: nothing, text that is not JSON, or JSON of any shape around images. */
const fileText = fc.oneof(
	fc.constant(undefined),
	fc.constant(""),
	fc.constant("{ not json"),
	fc.constantFrom("null", "[]", "1", '"x"', "true"),
	fc
		.record(
			{
				images: fc.oneof(
					fc.record(
						{
							blockImages: fc.oneof(fc.boolean(), fc.constantFrom("true", "false", "", 0, 1, null)),
							autoResize: fc.boolean(),
						},
						{ requiredKeys: [] },
					),
					fc.constantFrom(null, "yes", 1, [] as unknown[]),
				),
				theme: fc.constantFrom("dark", "light"),
			},
			{ requiredKeys: [] },
		)
		.map((value) => JSON.stringify(value)),
);

let case_ = 0;
function writeCase(global: string | undefined, project: string | undefined): { cwd: string; agentDir: string } {
	const root = join(base, `case-${case_++}`);
	const agentDir = join(root, "agent");
	const cwd = join(root, "project");
	mkdirSync(agentDir, { recursive: true });
	mkdirSync(join(cwd, ".pi"), { recursive: true });
	if (global !== undefined) writeFileSync(join(agentDir, "settings.json"), global);
	if (project !== undefined) writeFileSync(join(cwd, ".pi", "settings.json"), project);
	return { cwd, agentDir };
}

describe("piBlocksImages on pi 0.73.1 (its settings files)", () => {
	it("should say what pi 0.73.1's own SettingsManager says, for any global and project settings files", () => {
		let blocked = 0;
		let open = 0;
		fc.assert(
			fc.property(fileText, fileText, (global, project) => {
				const places = writeCase(global, project);
				const pi = Boolean(SettingsManager.create(places.cwd, places.agentDir).getBlockImages());
				if (pi) blocked++;
				else open++;
				expect(piBlocksImages(pi073, places)).toBe(pi);
			}),
			{ numRuns: 400 },
		);
		// Both answers were met (the property is not checking one value only).
		expect(blocked).toBeGreaterThan(0);
		expect(open).toBeGreaterThan(0);
	});

	it("should let the project's setting win over the global one, and merge the images objects as pi does", () => {
		const places = writeCase(
			JSON.stringify({ images: { blockImages: true, autoResize: false } }),
			JSON.stringify({ images: { autoResize: true } }),
		);
		expect(readPiSettingsFiles(places).images).toEqual({ blockImages: true, autoResize: true });
		expect(piBlocksImages(pi073, places)).toBe(true);
		const off = writeCase(
			JSON.stringify({ images: { blockImages: true } }),
			JSON.stringify({ images: { blockImages: false } }),
		);
		expect(piBlocksImages(pi073, off)).toBe(false);
		expect(SettingsManager.create(off.cwd, off.agentDir).getBlockImages()).toBe(false);
	});

	it("should read a change made while pi runs (pi writes it to the global file)", () => {
		const places = writeCase(JSON.stringify({ images: { blockImages: false } }), undefined);
		expect(piBlocksImages(pi073, places)).toBe(false);
		writeFileSync(join(places.agentDir, "settings.json"), JSON.stringify({ images: { blockImages: true } }));
		expect(piBlocksImages(pi073, places)).toBe(true);
	});

	it("should say not blocked with no places to read, as before any session started", () => {
		expect(piBlocksImages(pi073)).toBe(false);
	});
});

describe("piSettingsPlaces", () => {
	it.each([
		["unset", undefined],
		["empty", ""],
		["an absolute path", "/srv/pi-agent"],
		["a path under ~", "~/custom/agent"],
		["~ alone", "~"],
		["a relative path", "relative/agent"],
	])("should find the agent directory pi 0.73.1's getAgentDir finds, with PI_CODING_AGENT_DIR %s", (_name, value) => {
		const saved = process.env.PI_CODING_AGENT_DIR;
		try {
			if (value === undefined) delete process.env.PI_CODING_AGENT_DIR;
			else process.env.PI_CODING_AGENT_DIR = value;
			expect(piSettingsPlaces("/work").agentDir).toBe(getAgentDir());
		} finally {
			if (saved === undefined) delete process.env.PI_CODING_AGENT_DIR;
			else process.env.PI_CODING_AGENT_DIR = saved;
		}
	});

	it("should keep the working directory it is given", () => {
		expect(piSettingsPlaces("/some/project", {})).toEqual({
			cwd: "/some/project",
			agentDir: join(homedir(), ".pi", "agent"),
		});
	});
});
