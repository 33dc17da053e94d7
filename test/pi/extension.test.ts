/**
 * The pi extension's own units, in-process: how it reads its switches (pi's settings and its flag),
 * how its host builds the shared registry from offers, and the `pi.events` protocol in both load
 * orders. The extension in the real pi CLI is test/pi/extension-e2e.test.ts.
 */
import { EventEmitter } from "node:events";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { describe, expect, it } from "vitest";
import {
	PRUNE_MESSAGES_PLUGIN,
	REDACT_SECRETS_PLUGIN,
	TRIM_TO_TOKENS_PLUGIN,
	trimToTokens,
} from "../../src/filters/index.js";
import { BLOCK_IMAGES_PLUGIN, blockImages, escapeSummaries, safeFences } from "../../src/hooks/index.js";
import { ConversionError, ErrorCode, InvalidPluginError, type Plugin, UnknownRoleError } from "../../src/index.js";
import { runCommand } from "../../src/pi/command.js";
import { createHost } from "../../src/pi/host.js";
import { showPanel, titleLine } from "../../src/pi/panel.js";
import type { PiContext, PiEventBus, PiExtensionApi } from "../../src/pi/pi-api.js";
import { problemText } from "../../src/pi/problem-text.js";
import { READY_CHANNEL, USE_CHANNEL, usePlugins } from "../../src/pi/protocol.js";
import { createReporter } from "../../src/pi/report.js";
import { convertRequest, requestHandler, WITHHELD_TEXT } from "../../src/pi/request.js";
import { DEFAULT_HARDENING, type PiHardening, piBlocksImages, readHardening } from "../../src/pi/settings.js";
import { loadTuiColumns } from "../../src/pi/tui-columns.js";
import { convertToLlm, createDefaultRegistry } from "../../src/preset.js";
import { NINE_PROBLEMS, recordingCtx } from "../support/pi-context.js";
import { createUpstreamBlockImages } from "../support/upstream-session.mjs";

/** What `readHardening` reads of pi: its flag value and (pi 1.x) its settings. */
function piReading(flag: unknown, settings?: unknown): PiExtensionApi {
	const pi = { getFlag: () => flag } as unknown as PiExtensionApi;
	if (settings !== undefined) pi.getSettings = () => settings;
	return pi;
}

const on = (switches: Partial<PiHardening>): PiHardening => ({ ...DEFAULT_HARDENING, ...switches });

describe("readHardening", () => {
	it.each([
		["nothing set", undefined, undefined, on({})],
		[
			"switches in the flag",
			"escapeSummaries, safeFences",
			undefined,
			on({ escapeSummaries: true, safeFences: true }),
		],
		["lint without a mode", "lint", undefined, on({ lint: "report" })],
		["lint=repair and strict", "lint=repair,strict", undefined, on({ lint: "repair", strict: true })],
		[
			"switches in the settings",
			undefined,
			{ convertToLlm: { strictImages: true, lint: "repair" } },
			on({ strictImages: true, lint: "repair" }),
		],
		[
			"the flag over the settings",
			"safeFences=false",
			{ convertToLlm: { safeFences: true, blockImages: true } },
			on({ blockImages: true }),
		],
		["other settings only", undefined, { images: { blockImages: true } }, on({})],
	])("should read %s", (_name, flag, settings, expected) => {
		expect(readHardening(piReading(flag, settings))).toEqual({ hardening: expected, problems: [] });
	});

	it.each([
		["an unknown switch in the flag", "escapeSummary", undefined, '--convert-to-llm: unknown switch "escapeSummary"'],
		[
			"an unknown lint mode",
			"lint=fix",
			undefined,
			'--convert-to-llm: "lint=fix" is not understood; lint takes lint, lint=report, lint=repair or lint=off; every request is withheld until it is fixed.',
		],
		[
			"a lint mode with more after it",
			"lint=report=x",
			undefined,
			'--convert-to-llm: "lint=report=x" is not understood; lint takes lint, lint=report, lint=repair or lint=off; every request is withheld until it is fixed.',
		],
		["an empty lint mode", "lint=", undefined, '"lint=" is not understood; lint takes'],
		[
			"a switch value that is not true or false",
			"strict=yes",
			undefined,
			'--convert-to-llm: "strict=yes" is not understood; strict takes strict, strict=true or strict=false; every request is withheld until it is fixed.',
		],
		["a switch value with more after it", "strict=true=1", undefined, '"strict=true=1" is not understood'],
		["a switch in the wrong case", "Strict", undefined, 'unknown switch "Strict"'],
		[
			"settings that are not an object",
			undefined,
			{ convertToLlm: true },
			'settings "convertToLlm" is boolean true, not an object of switches',
		],
		[
			"a switch that is not a boolean",
			undefined,
			{ convertToLlm: { safeFences: "yes" } },
			'settings "convertToLlm.safeFences" is a string ("yes"): safeFences takes true or false; every request is withheld until it is fixed.',
		],
		[
			"an unknown switch in the settings",
			undefined,
			{ convertToLlm: { fences: true } },
			'settings "convertToLlm" has no switch "fences"',
		],
	])(
		"should leave the switch off and report a problem (which withholds requests) for %s",
		(_name, flag, settings, problem) => {
			const { hardening, problems } = readHardening(piReading(flag, settings));
			expect(hardening).toEqual(DEFAULT_HARDENING);
			expect(problems).toHaveLength(1);
			expect(problems[0]).toContain(problem);
		},
	);

	it("should never half-accept a token: what does not parse leaves the setting as it was, and the others apply", () => {
		const { hardening, problems } = readHardening(
			piReading("lint=report=x, strict=yes, safeFences", { convertToLlm: { lint: "repair", strict: true } }),
		);
		expect(hardening).toEqual(on({ lint: "repair", strict: true, safeFences: true }));
		expect(problems).toHaveLength(2);
		for (const problem of problems) expect(problem.split("\n")).toHaveLength(1);
	});

	it("should never throw when pi's getters do, and count what it could not read as problems", () => {
		const pi = {
			getFlag: () => {
				throw new Error("no flag");
			},
			getSettings: () => {
				throw new Error("no settings");
			},
		} as unknown as PiExtensionApi;
		expect(readHardening(pi)).toEqual({
			hardening: DEFAULT_HARDENING,
			problems: [
				"pi's settings could not be read (no settings); every request is withheld until it is fixed.",
				"--convert-to-llm could not be read (no flag); every request is withheld until it is fixed.",
			],
		});
	});
});

const ticket: Plugin = {
	name: "test:ticket",
	apply: (registry) => {
		registry.register("ticket" as never, () => null, { name: "test:ticket" } as never);
	},
};

describe("createHost", () => {
	const host = () => createHost(piReading(undefined), DEFAULT_HARDENING);

	it.each([
		["a non-object", 42, "must be { from, plugins }"],
		["no plugins list", { from: "ext" }, "ext offered no plugins list"],
		["a nameless plugin", { from: "ext", plugins: [{ apply() {} }] }, "not a plugin { name, apply(registry) }"],
		["no extension name", { plugins: [ticket] }, "an offer must name its extension"],
		[
			"a blank plugin name (use() would refuse it)",
			{ from: "ext", plugins: [{ name: " ", apply() {} }] },
			"not a plugin",
		],
		[
			"a throwing getter",
			Object.defineProperty({ from: "ext" }, "plugins", {
				get() {
					throw new Error("no");
				},
			}),
			"could not be read",
		],
		[
			"a revoked proxy",
			(() => {
				const { proxy, revoke } = Proxy.revocable({}, {});
				revoke();
				return proxy;
			})(),
			"could not be read",
		],
	])("should ignore an offer of %s and say why", (_name, offer, problem) => {
		const target = host();
		const [first, ...rest] = target.offer(offer);
		expect(rest).toEqual([]);
		expect(first).toContain(problem);
		expect(target.build().plugins).toEqual([]);
	});

	it("should leave out a plugin whose apply throws and still apply the others", () => {
		const target = host();
		const broken: Plugin = {
			name: "test:broken",
			apply: () => {
				throw new Error("boom");
			},
		};
		expect(target.offer({ from: "ext", plugins: [broken, ticket] })).toEqual([]);
		const built = target.build();
		expect(built.plugins.map(({ plugin }) => plugin.name)).toEqual(["test:ticket"]);
		expect(built.problems).toHaveLength(1);
		expect(built.problems[0]).toMatch(
			/^ext's plugin is not used \(the registry was rebuilt without it\): .*"test:broken".*boom/,
		);
		expect(built.registry.roles()).toContain("ticket");
	});

	it("should build once, and again only when an offer or the configuration changes", () => {
		const target = host();
		const first = target.build();
		expect(target.build()).toBe(first);
		target.offer({ from: "ext", plugins: [ticket] });
		const second = target.build();
		expect(second).not.toBe(first);
		target.configure(on({ safeFences: true }));
		expect(target.build()).not.toBe(second);
	});

	it("should replace an offered plugin by its name", () => {
		const target = host();
		const again: Plugin = { ...ticket };
		target.offer({ from: "ext", plugins: [ticket] });
		target.offer({ from: "ext (reloaded)", plugins: [again] });
		expect(target.build().plugins).toEqual([{ plugin: again, from: "ext (reloaded)" }]);
	});
});

/** pi's event bus as pi builds it: a Node EventEmitter, synchronous emit. */
function bus(): PiEventBus {
	const emitter = new EventEmitter();
	return {
		on: (channel, handler) => emitter.on(channel, handler),
		emit: (channel, data) => {
			emitter.emit(channel, data);
		},
	};
}

describe("usePlugins", () => {
	it.each([
		["after the convert-to-llm extension", true],
		["before the convert-to-llm extension", false],
	])("should deliver the offer exactly once when called %s", (_name, hostFirst) => {
		const events = bus();
		const received: unknown[] = [];
		const loadHost = () => {
			events.on(USE_CHANNEL, (data) => received.push(data));
			events.emit(READY_CHANNEL, { version: 1 });
		};
		if (hostFirst) loadHost();
		usePlugins({ events }, "ext", ticket);
		if (!hostFirst) loadHost();
		expect(received).toEqual([{ from: "ext", plugins: [ticket] }]);
	});
});

describe("showPanel", () => {
	/** Drives the component the way pi's TUI does: render at a width, then keys, until `done`. */
	async function drive(
		lines: string[],
		keys: string[],
		{ width = 40, rows }: { width?: number; rows?: unknown } = {},
	): Promise<{ frames: string[][]; closed: boolean }> {
		const frames: string[][] = [];
		let closed = false;
		const ctx = {
			hasUI: true,
			ui: {
				notify() {},
				custom: async (
					factory: (...args: unknown[]) => { render(w: number): string[]; handleInput(k: string): void },
				) => {
					let rendered = 0;
					const tui = { requestRender: () => rendered++, terminal: rows === undefined ? undefined : { rows } };
					const component = factory(tui, {}, {}, () => {
						closed = true;
					});
					frames.push(component.render(width));
					for (const key of keys) {
						component.handleInput(key);
						frames.push(component.render(width));
					}
					return rendered;
				},
			},
		} as unknown as PiContext;
		expect(await showPanel(ctx, "title", () => lines, await loadTuiColumns())).toBe(true);
		return { frames, closed };
	}

	it("should show a page of lines no wider than the terminal, scroll on ↓ and space, and close on q", async () => {
		const lines = Array.from({ length: 70 }, (_, i) => `line ${i} ${"x".repeat(i)}`);
		const { frames, closed } = await drive(lines, ["\x1b[B", " ", "q"], { rows: 24 });
		expect(frames[0]?.[1]).toBe("line 0 ");
		expect(frames[1]?.[1]).toBe("line 1 x");
		// A 24-row terminal: pi keeps 4 rows, the title takes one, 19 lines are shown; space moves a page.
		expect(frames[2]?.[1]).toBe(lines[20]);
		expect(frames[2]?.[18]).toBe(`line 37 ${"x".repeat(31)}…`);
		for (const frame of frames) for (const line of frame) expect(line.length).toBeLessThanOrEqual(40);
		expect(frames[0]).toHaveLength(20);
		expect(closed).toBe(true);
	});

	it.each([
		[24, 19],
		[30, 25],
		[60, 55],
		[200, 195],
		[6, 3],
		[1, 3],
	])("should fit a %i-row terminal with pi's footer: %i lines under the title", async (rows, page) => {
		const lines = Array.from({ length: 500 }, (_, i) => `line ${i}`);
		const { frames } = await drive(lines, ["\x1b[6~", "\x1b[5~", "j"], { rows, width: 80 });
		expect(frames.map((frame) => frame.length)).toEqual([page + 1, page + 1, page + 1, page + 1]);
		expect(frames.map((frame) => frame[1])).toEqual(["line 0", `line ${page}`, "line 0", "line 1"]);
		expect(frames[0]?.[0]).toBe(`title · lines 1–${page} of 500 · ↑↓ space b to scroll, q to close`);
	});

	it("should follow the terminal's height from one render to the next, and reach the last line", async () => {
		const lines = Array.from({ length: 41 }, (_, i) => `line ${i}`);
		const frames: string[][] = [];
		const terminal = { rows: 24 };
		const ctx = {
			hasUI: true,
			ui: {
				notify() {},
				custom: async (
					factory: (...args: unknown[]) => { render(w: number): string[]; handleInput(k: string): void },
				) => {
					const component = factory({ requestRender() {}, terminal }, {}, {}, () => {});
					component.render(80);
					for (const key of [" ", " ", " "]) component.handleInput(key);
					frames.push(component.render(80));
					terminal.rows = 60;
					frames.push(component.render(80));
				},
			},
		} as unknown as PiContext;
		expect(await showPanel(ctx, "title", () => lines, await loadTuiColumns())).toBe(true);
		expect(frames[0]?.at(-1)).toBe("line 40");
		expect(frames[0]?.[0]).toContain("lines 23–41 of 41");
		expect(frames[1]).toHaveLength(42);
		expect(frames[1]?.[0]).toContain("lines 1–41 of 41");
	});

	it.each([
		[100, "convert-to-llm · /llm-context · lines 1–19 of 300 · ↑↓ space b to scroll, q to close"],
		[80, "convert-to-llm · /llm-context · lines 1–19 of 300 · ↑↓ space b, q to close"],
		[60, "convert-to-llm · /llm-context · 1–19/300 · q to close"],
		[45, "lines 1–19 of 300 · ↑↓ space b, q to close"],
		[40, "1–19/300 · ↑↓ space b, q to close"],
		[30, "1–19/300 · q to close"],
		[20, "q to close"],
		[8, "q to cl…"],
	])("should keep the key to close in the title at %i columns", async (width, title) => {
		const columns = await loadTuiColumns();
		expect(titleLine("convert-to-llm · /llm-context", 1, 19, 300, width, columns)).toBe(title);
		const lines = Array.from({ length: 300 }, (_, i) => `line ${i}`);
		const { frames } = await drive(lines, [], { rows: 24, width });
		expect(frames[0]?.[0]).toMatch(/q to cl/);
	});

	it("should not scroll past either end", async () => {
		const { frames } = await drive(["a", "b"], ["\x1b[A", "\x1b[6~"]);
		expect(frames.map((frame) => frame[1])).toEqual(["a", "a", "a"]);
	});

	it("should say it showed nothing where pi's custom() never calls the factory (RPC mode)", async () => {
		const ctx = { hasUI: true, ui: { notify() {}, custom: async () => undefined } } as unknown as PiContext;
		expect(await showPanel(ctx, "title", () => ["a"], await loadTuiColumns())).toBe(false);
	});
});

describe("convertRequest", () => {
	const system = { role: "system", content: "You are pi.", timestamp: 1 };
	const history = [
		system,
		{ role: "user", content: "hi", timestamp: 2 },
		{
			role: "bashExecution",
			command: "ls",
			output: "a",
			exitCode: 0,
			cancelled: false,
			truncated: false,
			timestamp: 3,
		},
	];

	it("should send pi's own conversion with nothing configured, and show nothing", async () => {
		const { ctx, shown, aborted } = recordingCtx();
		const host = createHost(piReading(undefined), DEFAULT_HARDENING);
		const result = await convertRequest(host, createReporter(), history, ctx);
		expect(result.messages).toEqual(convertToLlm(history as AgentMessage[]));
		expect(result.messages[0]).toBe(system);
		expect(shown).toEqual([]);
		expect(aborted()).toBe(0);
	});

	it("should withhold the request when a post-conversion tap does not settle in time", async () => {
		const { ctx, shown, aborted } = recordingCtx();
		const host = createHost(piReading(undefined), DEFAULT_HARDENING, 20);
		const hang: Plugin = {
			name: "test:hang",
			apply: (registry) => {
				registry.hooks.afterConvertAsync.tapPromise("test:hang", () => new Promise(() => {}));
			},
		};
		host.offer({ from: "ext", plugins: [hang] });
		const result = await convertRequest(host, createReporter(), history, ctx);
		expect(result.messages).toEqual([
			system,
			{ role: "user", content: [{ type: "text", text: WITHHELD_TEXT }], timestamp: expect.any(Number) },
		]);
		expect(aborted()).toBe(1);
		expect(shown[0]?.level).toBe("error");
		expect(shown[0]?.text).toContain('request withheld (fail closed): plugin "test:hang" did not finish in time.');
	});

	it("should show each distinct problem once, and withhold under strict", async () => {
		const { ctx, shown } = recordingCtx();
		const host = createHost(piReading(undefined), DEFAULT_HARDENING);
		const reporter = createReporter();
		const unknown = [...history, { role: "ticket", timestamp: 4 }];
		await convertRequest(host, reporter, unknown, ctx);
		await convertRequest(host, reporter, unknown, ctx);
		expect(shown.map(({ level }) => level)).toEqual(["warning"]);
		host.configure(on({ strict: true }));
		const result = await convertRequest(host, reporter, unknown, ctx);
		expect(result.messages.at(-1)).toMatchObject({ content: [{ text: WITHHELD_TEXT }] });
		expect(shown.map(({ level }) => level)).toEqual(["warning", "error"]);
	});
	it("should show a problem that quotes the history as one sanitized, cut line", async () => {
		const { ctx, shown } = recordingCtx();
		const host = createHost(piReading(undefined), DEFAULT_HARDENING);
		const role = `\u009d52;c;cHduZWQ=\u009c\u001b[2J\u202e${"r".repeat(100_000)}`;
		await convertRequest(host, createReporter(), [...history, { role, timestamp: 4 }], ctx);
		const text = shown[0]?.text ?? "";
		expect(text).toContain("was left out of the request");
		const unsafe = [...text].filter(
			(c) => (c < " " && c !== "\n") || (c >= "\u007f" && c <= "\u009f") || c === "\u202e",
		);
		expect(unsafe).toEqual([]);
		expect(text.length).toBeLessThan(2_200);
	});
});

describe("runCommand --json", () => {
	const history = [{ role: "user", content: "a\u009b2Kb\u202ec", timestamp: 1 }];
	async function jsonShown(mode: "tui" | "rpc"): Promise<string> {
		const shown: string[] = [];
		const ctx = {
			hasUI: true,
			mode,
			cwd: "/",
			ui: { notify: (text: string) => shown.push(text) },
			sessionManager: { getSessionFile: () => undefined, buildSessionContext: () => ({ messages: history }) },
			abort() {},
		} as unknown as PiContext;
		await runCommand(createHost(piReading(undefined), DEFAULT_HARDENING), createReporter(), "--json", ctx);
		expect(shown).toHaveLength(1);
		return shown[0] as string;
	}

	it("should escape C1 and bidi characters in the TUI, as convert-to-llm --json does on a terminal, and parse to the same Message[]", async () => {
		const text = await jsonShown("tui");
		expect(text).toContain("a\\u009b2Kb\\u202ec");
		expect(text).not.toMatch(/[\u0080-\u009f\u202e]/);
		expect(JSON.parse(text)).toEqual(convertToLlm(history as AgentMessage[]));
	});

	it("should give an RPC client the JSON byte for byte", async () => {
		expect(await jsonShown("rpc")).toBe(JSON.stringify(convertToLlm(history as AgentMessage[]), null, 2));
	});
});

describe("createReporter", () => {
	const problems = Array.from({ length: 9 }, (_, i) => `problem ${i}`);

	it("should show five problems and say how many more, keep the rest for /llm-context, and show none twice", () => {
		const { ctx, shown } = recordingCtx();
		const reporter = createReporter();
		reporter.warn(ctx, problems);
		reporter.warn(ctx, problems);
		expect(shown).toHaveLength(1);
		expect(shown[0]?.text.split("\n")).toEqual([
			...problems.slice(0, 5).map((problem) => `convert-to-llm: ${problem}`),
			"convert-to-llm: … and 4 more (see /llm-context)",
		]);
		expect(reporter.notes()).toEqual(problems.slice(5));
	});

	it("should keep every configuration problem, the latest ones only, first among the notes", () => {
		const { ctx, shown } = recordingCtx();
		const reporter = createReporter();
		reporter.warn(ctx, ["a", "b", "c", "d", "e", "f"]);
		reporter.configuration(ctx, problems);
		expect(shown).toHaveLength(2);
		expect(reporter.notes()).toEqual([...problems, "f"]);
		reporter.configuration(ctx, ["problem 1"]);
		expect(reporter.notes()).toEqual(["problem 1", "f", ...problems.slice(5)]);
		expect(shown).toHaveLength(2);
	});
});

describe("runCommand's configuration problems", () => {
	/** The settings and flag of nine problems; the sixth turns redaction off and is past a notice's five. */
	const pi1 = piReading(NINE_PROBLEMS.flag, NINE_PROBLEMS.settings);
	const history = [{ role: "user", content: "hi", timestamp: 1 }];
	function rpcCtx() {
		const shown: { text: string; level: string | undefined }[] = [];
		const ctx = {
			hasUI: true,
			mode: "rpc",
			cwd: "/",
			ui: { notify: (text: string, level?: string) => shown.push({ text, level }) },
			sessionManager: { getSessionFile: () => undefined, buildSessionContext: () => ({ messages: history }) },
			abort() {},
		} as unknown as PiContext;
		return { ctx, shown };
	}

	it.each([
		[
			"warn",
			(reporter: ReturnType<typeof createReporter>, ctx: PiContext, problems: string[]) =>
				reporter.warn(ctx, problems),
		],
		[
			"configuration",
			(reporter: ReturnType<typeof createReporter>, ctx: PiContext, problems: string[]) =>
				reporter.configuration(ctx, problems),
		],
	])("should list in the text view every problem the notice left out, told with %s", async (_how, tell) => {
		const { hardening, problems } = readHardening(pi1);
		expect(problems).toHaveLength(9);
		expect(problems[5]).toContain(
			'"convertToLlm.redactSecrets" is a string ("true"): redactSecrets takes true or false',
		);
		const { ctx, shown } = rpcCtx();
		const reporter = createReporter();
		tell(reporter, ctx, problems);
		await runCommand(createHost(pi1, hardening), reporter, "", ctx);
		const view = shown.find((item) => item.level === "info")?.text ?? "";
		const unfolded = view.split("\n     ").join(" ");
		expect(unfolded).toContain("── Configuration problems and warnings not shown in full");
		for (const problem of problems.slice(5)) expect(unfolded).toContain(problem);
		if (_how === "configuration") for (const problem of problems) expect(unfolded).toContain(problem);
		for (const line of view.split("\n").filter((row) => row.startsWith("   - ") || row.startsWith("     ")))
			expect(line.length).toBeLessThanOrEqual(120);
	});

	it("should follow --json's Message[] with every problem as one warning, and list none where there are none", async () => {
		const { hardening, problems } = readHardening(pi1);
		const { ctx, shown } = rpcCtx();
		const reporter = createReporter();
		reporter.configuration(ctx, problems);
		shown.length = 0;
		await runCommand(createHost(pi1, hardening), reporter, "--json", ctx);
		expect(shown.map((item) => item.level)).toEqual(["info", "warning"]);
		expect(JSON.parse(shown[0]?.text ?? "")).toEqual(convertToLlm(history as AgentMessage[]));
		expect(shown[1]?.text.split("\n")).toEqual(problems.map((problem) => `convert-to-llm: ${problem}`));

		const clean = rpcCtx();
		await runCommand(createHost(piReading(undefined), DEFAULT_HARDENING), createReporter(), "", clean.ctx);
		expect(clean.shown).toHaveLength(1);
		expect(clean.shown[0]?.text).not.toContain("Configuration problems");
	});
});

describe("piBlocksImages", () => {
	it.each([
		[true, true],
		["true", true],
		[1, true],
		["no", true],
		[false, false],
		[0, false],
		["", false],
		[null, false],
		[undefined, false],
	])(
		"should read images.blockImages %j by truthiness, as pi's getBlockImages and sdk.js do (%j)",
		(value, blocked) => {
			expect(piBlocksImages(piReading(undefined, { images: { blockImages: value } }))).toBe(blocked);
		},
	);

	it.each([
		["no images object", {}],
		["images that is not an object", { images: "yes" }],
		["null settings", null],
	])("should say not blocked for %s, as pi does", (_name, settings) => {
		const pi = { getFlag: () => undefined, getSettings: () => settings } as unknown as PiExtensionApi;
		expect(piBlocksImages(pi)).toBe(false);
	});

	it("should say blocked when pi's settings cannot be read, and not blocked where pi has no settings (0.73.1)", () => {
		const throwing = {
			getSettings: () => {
				throw new Error("no");
			},
		} as unknown as PiExtensionApi;
		expect(piBlocksImages(throwing)).toBe(true);
		expect(piBlocksImages(piReading(undefined))).toBe(false);
	});

	it("should make the block plugin drop an image when pi's setting is a truthy string", async () => {
		const host = createHost(piReading(undefined, { images: { blockImages: "true" } }), on({ strictImages: true }));
		const image = { role: "user", content: [{ type: "image", data: "AAAA", mimeType: "image/png" }], timestamp: 1 };
		const { output } = await host.build().registry.runAsync([image] as unknown as AgentMessage[]);
		expect(JSON.stringify(output)).not.toContain("AAAA");
	});
});

describe("createHost with pi's own images.blockImages and no switch", () => {
	/** Images in a user message and a tool result, with a text block after one, as pi's closure dedupes them. */
	const history = [
		{
			role: "user",
			content: [
				{ type: "image", data: "AAAA", mimeType: "image/png" },
				{ type: "text", text: "Image reading is disabled." },
				{ type: "text", text: "look" },
			],
			timestamp: 1,
		},
		{
			role: "toolResult",
			toolCallId: "c1",
			toolName: "read",
			content: [{ type: "image", data: "BBBB", mimeType: "image/png" }],
			isError: false,
			timestamp: 2,
		},
	] as unknown as AgentMessage[];

	it.each([true, false])(
		"should show in the view what pi's own closure sends with the setting %s, and leave requests to pi",
		async (blocked) => {
			const upstream = await createUpstreamBlockImages(blocked);
			try {
				const host = createHost(piReading(undefined, { images: { blockImages: blocked } }), DEFAULT_HARDENING);
				const { output, problems } = await host.build("view").registry.runAsync(history);
				expect(problems).toEqual([]);
				expect(JSON.stringify(output)).toBe(JSON.stringify(upstream.convert(history)));
				// A request's and a summary's registry leave the rule to pi, which applies it after them.
				for (const purpose of ["request", "summary"] as const) {
					const sent = (await host.build(purpose).registry.runAsync(history)).output;
					expect(JSON.stringify(sent)).toBe(JSON.stringify(convertToLlm(history)));
				}
				// pi applies its closure after the extension's conversion: it then changes nothing.
				expect(JSON.stringify(upstream.convert(output as unknown as AgentMessage[]))).toBe(JSON.stringify(output));
			} finally {
				upstream.dispose();
			}
		},
	);

	it("should read the setting for every view, as pi does on every request (a change in /settings counts at once)", async () => {
		const settings = { images: { blockImages: false } };
		const host = createHost(piReading(undefined, settings), DEFAULT_HARDENING);
		const unblocked = host.build("view").registry;
		expect(JSON.stringify((await unblocked.runAsync(history)).output)).toContain("AAAA");
		settings.images.blockImages = true;
		expect(JSON.stringify((await host.build("view").registry.runAsync(history)).output)).not.toContain("AAAA");
		settings.images.blockImages = false;
		// Off again: the very registry made without the setting (nothing of it left behind).
		expect(host.build("view").registry).toBe(unblocked);
	});

	it("should read pi 0.73.1's project settings file in the working directory configure() is given", async () => {
		const cwd = mkdtempSync(join(tmpdir(), "convert-to-llm-host-cwd-"));
		try {
			mkdirSync(join(cwd, ".pi"));
			writeFileSync(join(cwd, ".pi", "settings.json"), JSON.stringify({ images: { blockImages: true } }));
			const host = createHost(piReading(undefined), DEFAULT_HARDENING);
			host.configure(on({ strictImages: true }), cwd);
			// strictImages: a block pi's own closure lets through ("Image" is not "image") is blocked too.
			const odd = [
				{ role: "user", content: [{ type: "Image", data: "CCCC" }], timestamp: 1 },
			] as unknown as AgentMessage[];
			expect(JSON.stringify((await host.build().registry.runAsync(odd)).output)).not.toContain("CCCC");
			host.configure(DEFAULT_HARDENING, cwd);
			expect(JSON.stringify((await host.build("view").registry.runAsync(history)).output)).not.toContain("AAAA");
		} finally {
			rmSync(cwd, { recursive: true, force: true });
		}
	});

	it("should leave images to an offered blockImages plugin, with no warning and no conflict", async () => {
		const host = createHost(piReading(undefined, { images: { blockImages: true } }), DEFAULT_HARDENING);
		host.offer({ from: "other-ext", plugins: [blockImages({ enabled: false })] });
		const built = host.build("view");
		expect(built.problems).toEqual([]);
		expect(built.plugins.map((item) => item.from)).toEqual(["other-ext"]);
		expect(JSON.stringify((await built.registry.runAsync(history)).output)).toContain("AAAA");
	});
});

describe("createHost duplicates", () => {
	const bash = {
		role: "bashExecution",
		command: "printf '```'",
		output: "```",
		exitCode: 0,
		cancelled: false,
		truncated: false,
		timestamp: 1,
	};

	it.each([
		["safeFences", safeFences, on({ safeFences: true })],
		["escapeSummaries", escapeSummaries, on({ escapeSummaries: true })],
		["blockImages", () => blockImages({ enabled: true }), on({ blockImages: true })],
	])(
		"should use %s once, with one warning, when another extension offers it and the user's switch turns it on",
		async (_name, factory, hardening) => {
			const target = createHost(piReading(undefined), hardening);
			expect(target.offer({ from: "other-ext", plugins: [factory(), ticket] })).toEqual([]);
			const built = target.build();
			expect(built.plugins.map(({ plugin }) => plugin.name)).toEqual(["test:ticket"]);
			expect(built.problems).toHaveLength(1);
			expect(built.problems[0]).toContain("other-ext offers");
			expect(built.problems[0]).toContain("it is used once, as your switches set it");
			expect(built.degraded).toBe(false);
			const { output, problems, failed } = await built.registry.runAsync([bash] as unknown as AgentMessage[]);
			expect(failed).toBe(false);
			expect(problems).toEqual([]);
			expect(output).toHaveLength(1);
		},
	);

	it("should send the request, not withhold it, for a duplicate used once, strict or not", async () => {
		const target = createHost(piReading(undefined), on({ safeFences: true, strict: true }));
		target.offer({ from: "other-ext", plugins: [safeFences()] });
		const shown: string[] = [];
		let aborted = 0;
		const ctx = {
			hasUI: true,
			ui: { notify: (text: string) => shown.push(text) },
			abort: () => aborted++,
		} as unknown as PiContext;
		const result = await convertRequest(target, createReporter(), [bash], ctx);
		expect(aborted).toBe(0);
		expect(JSON.stringify(result.messages)).toContain("````");
		expect(shown).toHaveLength(1);
		expect(shown[0]).toContain("used once");
	});

	it("should use a plugin two extensions offer once, as the last one offered it, and say so once", () => {
		const target = createHost(piReading(undefined), DEFAULT_HARDENING);
		const first = safeFences();
		const second = safeFences();
		expect(target.offer({ from: "ext-a", plugins: [first] })).toEqual([]);
		const problems = target.offer({ from: "ext-b", plugins: [second] });
		expect(problems).toHaveLength(1);
		expect(problems[0]).toContain("ext-a and ext-b both offer");
		expect(target.build().plugins).toEqual([{ plugin: second, from: "ext-b" }]);
		expect(target.build().problems).toEqual([]);
	});

	it("should leave out an offered plugin that a switch's plugin cannot stand beside (it uses the same plugin inside), and keep the switch", () => {
		const wrapper: Plugin = { name: "other-ext:bundle", apply: (registry) => void registry.use(safeFences()) };
		const target = createHost(piReading(undefined), on({ safeFences: true }));
		target.offer({ from: "other-ext", plugins: [wrapper, ticket] });
		const built = target.build();
		expect(built.plugins.map(({ plugin }) => plugin.name)).toEqual(["test:ticket"]);
		expect(built.degraded).toBe(true);
		expect(built.problems).toHaveLength(1);
		expect(built.problems[0]).toContain("other-ext's plugin is not used");
		expect(built.problems[0]).toContain("conflicts with a convert-to-llm switch");
	});
});

describe("convertRequest fail-closed", () => {
	const system = { role: "system", content: "You are pi.", timestamp: 1 };
	const history = [system, { role: "user", content: "my token is sk-live-123", timestamp: 2 }];
	/** Another extension's plugin that adds a tapable interceptor which throws on every call. */
	const interceptor: Plugin = {
		name: "other-ext:interceptor",
		apply: (registry) => {
			registry.hooks.afterConvert.intercept({
				call: () => {
					throw new Error("interceptor boom");
				},
			});
			registry.hooks.afterConvert.tap("other-ext:interceptor", (messages) => messages);
		},
	};

	it("should withhold every request, abort pi's run and say so each time, when an offered interceptor throws", async () => {
		const { ctx, shown, aborted } = recordingCtx();
		const host = createHost(piReading(undefined), DEFAULT_HARDENING);
		host.offer({ from: "other-ext", plugins: [interceptor] });
		const reporter = createReporter();
		for (let i = 0; i < 2; i++) {
			const result = await convertRequest(host, reporter, history, ctx);
			expect(result.messages).toEqual([
				system,
				{ role: "user", content: [{ type: "text", text: WITHHELD_TEXT }], timestamp: expect.any(Number) },
			]);
			expect(JSON.stringify(result.messages)).not.toContain("sk-live-123");
		}
		expect(aborted()).toBe(2);
		expect(shown.map(({ level }) => level)).toEqual(["error", "error"]);
		for (const { text } of shown) {
			expect(text).toContain("request withheld (fail closed): the conversion failed");
			expect(text).toContain("interceptor boom");
		}
	});

	it("should withhold when the host cannot build a registry at all", async () => {
		const { ctx, shown, aborted } = recordingCtx();
		const host = {
			build: () => {
				throw new Error("build boom");
			},
			hardening: () => DEFAULT_HARDENING,
			unreadable: () => [],
		} as unknown as ReturnType<typeof createHost>;
		const result = await convertRequest(host, createReporter(), history, ctx);
		expect(result.messages.at(-1)).toMatchObject({ content: [{ text: WITHHELD_TEXT }] });
		expect(aborted()).toBe(1);
		expect(shown[0]?.text).toContain("build boom");
	});
});

describe("requestHandler", () => {
	const ctxOf = (shown: string[], aborts: { count: number }) =>
		({
			hasUI: true,
			ui: { notify: (text: string) => shown.push(text) },
			abort: () => aborts.count++,
		}) as unknown as PiContext;

	it.each([
		[
			"the event's messages cannot be read",
			Object.defineProperty({}, "messages", {
				get() {
					throw new Error("no messages");
				},
			}),
			() => {},
		],
		[
			"what runs before the conversion throws",
			{ messages: [{ role: "user", content: "secret", timestamp: 1 }] },
			() => {
				throw new Error("flush boom");
			},
		],
	])("should withhold the request and abort when %s", async (_name, event, before) => {
		const shown: string[] = [];
		const aborts = { count: 0 };
		const handler = requestHandler(createHost(piReading(undefined), DEFAULT_HARDENING), createReporter(), before);
		const result = await handler(event as { messages: unknown[] }, ctxOf(shown, aborts));
		expect(result.messages).toEqual([
			{ role: "user", content: [{ type: "text", text: WITHHELD_TEXT }], timestamp: expect.any(Number) },
		]);
		expect(aborts.count).toBe(1);
		expect(shown[0]).toContain("request withheld (fail closed): the request could not be handled");
	});

	it("should convert as convertRequest does when nothing fails", async () => {
		const shown: string[] = [];
		const aborts = { count: 0 };
		const history = [{ role: "user", content: "hi", timestamp: 1 }];
		const handler = requestHandler(createHost(piReading(undefined), DEFAULT_HARDENING), createReporter(), () => {});
		const result = await handler({ messages: history }, ctxOf(shown, aborts));
		expect(result.messages).toEqual(convertToLlm(history as AgentMessage[]));
		expect(aborts.count).toBe(0);
		expect(shown).toEqual([]);
	});
});

describe("problemText", () => {
	it("should tell a pi user what an unknown role means for the request and which switch changes it, without library advice", () => {
		const error = new UnknownRoleError(
			'No converter for role "ticket" (message 5). It was dropped; register one with registry.register("ticket", converter, { name }) or use the plugin that declares this role.',
			{ role: "ticket", index: 5 },
		);
		const lenient = problemText(error);
		expect(lenient).toContain('message 5 (role "ticket") was left out of the request');
		expect(lenient).toContain(
			'turn on strict (--convert-to-llm strict, or "strict": true under "convertToLlm" in settings.json)',
		);
		expect(lenient).not.toContain("registry.register");
		expect(problemText(error, true)).toContain("strict is on, so the request is withheld");
	});

	it.each([
		[
			"a converter that failed",
			new ConversionError('Converter "ext:x" failed on message 2 (role "x"): boom. …; fix or remove the plugin.', {
				plugin: "ext:x",
				role: "x",
				index: 2,
				cause: new Error("boom"),
			}),
			'plugin "ext:x" failed on message 2 (role "x"): boom',
		],
		[
			"a plugin whose apply threw",
			new InvalidPluginError('Plugin "ext:y" threw from apply(): no. …; use it on a new registry.', {
				plugin: "ext:y",
				cause: new Error("no"),
			}),
			'plugin "ext:y" failed to set up: no. Report it to the extension that offered it',
		],
	])("should tell a pi user about %s without library advice", (_name, error, expected) => {
		const text = problemText(error);
		expect(text).toContain(expected);
		expect(text).not.toMatch(/fix or remove|new registry|registry\.register/);
	});

	it("should show the over-budget problem of the maxTokens switch with its own reason and the switch, not as a plugin crash", async () => {
		const registry = createDefaultRegistry().use(trimToTokens({ maxTokens: 5 }));
		const system = { role: "system", content: "x".repeat(400), timestamp: 0 } as unknown as AgentMessage;
		const user = { role: "user", content: "hello there", timestamp: 1 } as AgentMessage;
		const { problems } = await registry.runAsync([system, user]);
		const [problem] = problems;
		expect(problem?.plugin).toBe(TRIM_TO_TOKENS_PLUGIN);
		const text = problemText(problem as ConversionError);
		expect(text).toContain("nothing but the system messages fits the budget of 5 tokens");
		expect(text).toContain("raise maxTokens");
		expect(text).toContain(
			'the maxTokens switch (--convert-to-llm maxTokens=<n>, or "maxTokens" under "convertToLlm" in settings.json)',
		);
		expect(text).not.toMatch(/failed|pi's own conversion was used|Report it to the extension/);
		expect(problemText(problem as ConversionError, true)).toContain("strict is on, so the request is withheld");
	});

	it.each([
		[
			REDACT_SECRETS_PLUGIN,
			"redactSecrets: output message 2 could not be read: boom. It was dropped.",
			"the redactSecrets switch (--convert-to-llm redactSecrets",
		],
		[
			PRUNE_MESSAGES_PLUGIN,
			"pruneMessages: output message 1 could not be read: boom. It was dropped.",
			'the prune switch ("prune" under "convertToLlm"',
		],
		[
			BLOCK_IMAGES_PLUGIN,
			"blockImages: message 1 could not be read: boom.",
			"the blockImages and strictImages switches",
		],
	])(
		"should show a problem of the switch plugin %s with its own message and its switch",
		(plugin, message, switchText) => {
			const text = problemText(new ConversionError(message, { plugin, cause: new Error("boom") }));
			expect(text.startsWith(message)).toBe(true);
			expect(text).toContain(`It is set with ${switchText}`);
			expect(text).not.toContain("Report it to the extension");
		},
	);

	it("should still send an offered plugin's failure to the extension that offered it", () => {
		const text = problemText(new ConversionError("Converter failed.", { plugin: "other-ext:ticket", index: 3 }));
		expect(text).toContain('plugin "other-ext:ticket" failed on message 3');
		expect(text).toContain("Report it to the extension that offered the plugin");
	});

	it("should keep the registry's message for a kind it does not know", () => {
		const error = new UnknownRoleError("something else", { role: "x" });
		Object.defineProperty(error, "code", { value: ErrorCode.INVALID_SESSION });
		expect(problemText(error)).toBe("something else");
	});
});
