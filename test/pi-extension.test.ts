/**
 * The pi extension's own units, in-process: how it reads its switches (pi's settings and its flag),
 * how its host builds the shared registry from offers, and the `pi.events` protocol in both load
 * orders. The extension in the real pi CLI is test/pi-extension-e2e.test.ts.
 */
import { EventEmitter } from "node:events";
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { describe, expect, it } from "vitest";
import type { Plugin } from "../src/index.js";
import { runCommand } from "../src/pi/command.js";
import { createHost } from "../src/pi/host.js";
import { showPanel } from "../src/pi/panel.js";
import type { PiContext, PiEventBus, PiExtensionApi } from "../src/pi/pi-api.js";
import { READY_CHANNEL, USE_CHANNEL, usePlugins } from "../src/pi/protocol.js";
import { createReporter } from "../src/pi/report.js";
import { convertRequest, WITHHELD_TEXT } from "../src/pi/request.js";
import { DEFAULT_HARDENING, type PiHardening, readHardening } from "../src/pi/settings.js";
import { loadTuiColumns } from "../src/pi/tui-columns.js";
import { convertToLlm } from "../src/preset.js";

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
		["an unknown lint mode", "lint=fix", undefined, "--convert-to-llm: lint=fix is not a lint mode"],
		[
			"settings that are not an object",
			undefined,
			{ convertToLlm: true },
			'settings "convertToLlm" must be an object',
		],
		[
			"a switch that is not a boolean",
			undefined,
			{ convertToLlm: { safeFences: "yes" } },
			'"convertToLlm.safeFences" must be true or false',
		],
		[
			"an unknown switch in the settings",
			undefined,
			{ convertToLlm: { fences: true } },
			'settings "convertToLlm" has no switch "fences"',
		],
	])("should leave the switch off and say so for %s", (_name, flag, settings, problem) => {
		const { hardening, problems } = readHardening(piReading(flag, settings));
		expect(hardening).toEqual(DEFAULT_HARDENING);
		expect(problems).toHaveLength(1);
		expect(problems[0]).toContain(problem);
	});

	it("should never throw when pi's getters do", () => {
		const pi = {
			getFlag: () => {
				throw new Error("no flag");
			},
			getSettings: () => {
				throw new Error("no settings");
			},
		} as unknown as PiExtensionApi;
		expect(readHardening(pi)).toEqual({ hardening: DEFAULT_HARDENING, problems: [] });
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
	async function drive(lines: string[], keys: string[], width = 40): Promise<{ frames: string[][]; closed: boolean }> {
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
					const tui = { requestRender: () => rendered++ };
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
		const { frames, closed } = await drive(lines, ["\x1b[B", " ", "q"]);
		expect(frames[0]?.[1]).toBe("line 0 ");
		expect(frames[1]?.[1]).toBe("line 1 x");
		expect(frames[2]?.[1]).toBe(lines[31]);
		expect(frames[2]?.[10]).toBe(`line 40 ${"x".repeat(31)}…`);
		for (const frame of frames) for (const line of frame) expect(line.length).toBeLessThanOrEqual(40);
		expect(frames[0]).toHaveLength(31);
		expect(closed).toBe(true);
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
	/** A ctx that records what the extension shows and whether it aborted pi's run. */
	function recordingCtx() {
		const shown: { text: string; level: string | undefined }[] = [];
		let aborted = 0;
		const ctx = {
			hasUI: true,
			ui: { notify: (text: string, level?: string) => shown.push({ text, level }) },
			abort: () => aborted++,
		} as unknown as PiContext;
		return { ctx, shown, aborted: () => aborted };
	}
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
		expect(text).toContain("No converter for role");
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
