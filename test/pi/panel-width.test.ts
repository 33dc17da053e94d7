/**
 * `/llm-context`'s panel in columns, as pi's TUI measures them (pi-tui's `visibleWidth`, which
 * throws pi's TUI out on a rendered line wider than the terminal): CJK, emoji (ZWJ sequences,
 * variation selectors), combining marks and tabs, at terminal widths 20 to 200, on both pi lines'
 * pi-tui; the CLI's view in columns by string-width.
 */

import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import * as tui16 from "@earendil-works/pi-tui";
import * as tui073 from "@mariozechner/pi-tui";
import fc from "fast-check";
import stringWidth from "string-width";
import { describe, expect, it } from "vitest";
import { terminalColumns } from "../../src/cli/terminal-columns.js";
import { runCommand } from "../../src/pi/command.js";
import { createHost } from "../../src/pi/host.js";
import { showPanel } from "../../src/pi/panel.js";
import type { PiContext, PiExtensionApi } from "../../src/pi/pi-api.js";
import { createReporter } from "../../src/pi/report.js";
import { DEFAULT_HARDENING } from "../../src/pi/settings.js";
import { loadTuiColumns, piTuiUrls } from "../../src/pi/tui-columns.js";
import { viewLines } from "../../src/pi/view.js";
import { createDefaultRegistry } from "../../src/preset.js";
import { type Columns, graphemeColumns } from "../../src/view/columns.js";
import { createStyle } from "../../src/view/style.js";
import { renderConversion } from "../../src/view/view.js";
import { arbTerminalText } from "../support/arbitraries.js";

const PI_TUI = [
	{ line: "pi 0.73.1", visibleWidth: tui073.visibleWidth },
	{ line: "pi 1.6.0", visibleWidth: tui16.visibleWidth },
];

const assistant = (text: string, extra: object = {}) => ({
	role: "assistant",
	content: [{ type: "text", text }],
	provider: "anthropic",
	model: "claude",
	stopReason: "stop",
	api: "anthropic-messages",
	usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: {} },
	timestamp: 1,
	...extra,
});

/** A Chinese prompt, and an English reply with two ✅ on one long line. */
const REPRODUCTION = [
	{ role: "user", content: "请帮我修复这个失败的测试，并解释为什么它会失败。".repeat(4), timestamp: 0 },
	assistant(`Fixed the parser ✅ and the failing test ✅ ${"and explained each step of the change ".repeat(6)}`),
] as unknown as AgentMessage[];

/** A ctx whose TUI renders the panel at each width, as pi's TUI does, keeping every frame. */
function tuiCtx(history: readonly unknown[], widths: readonly number[]) {
	const frames: { width: number; lines: string[] }[] = [];
	const notes: string[] = [];
	const ctx = {
		hasUI: true,
		mode: "tui",
		cwd: "/",
		ui: {
			notify: (text: string) => notes.push(text),
			custom: async (factory: (...args: unknown[]) => { render(width: number): string[] }) => {
				const component = factory({ requestRender() {} }, {}, {}, () => {});
				for (const width of widths) frames.push({ width, lines: component.render(width) });
			},
		},
		sessionManager: {
			getSessionFile: () => "/home/me/.pi/agent/sessions/--home-me-工作--/2026-01-31T12-00-00-000Z_東京.jsonl",
			getLeafId: () => "a1b2c3d4",
			buildSessionContext: () => ({ messages: history }),
		},
		abort() {},
	} as unknown as PiContext;
	return { ctx, frames, notes };
}

const pi = { getFlag: () => undefined, on() {}, events: { on() {}, emit() {} } } as unknown as PiExtensionApi;
const widths = Array.from({ length: 19 }, (_, i) => 20 + i * 10);

/** The lines of a panel over `history`, through `showPanel` with pi-tui's measure of one pi line. */
async function panelFrames(history: AgentMessage[], width: number, columns: Columns): Promise<string[]> {
	const explanation = await createDefaultRegistry().explainAsync(history);
	let frame: string[] = [];
	const ctx = {
		hasUI: true,
		ui: {
			notify() {},
			custom: async (factory: (...args: unknown[]) => { render(width: number): string[] }) => {
				frame = factory({ requestRender() {} }, {}, {}, () => {}).render(width);
			},
		},
	} as unknown as PiContext;
	const linesAt = (at: number) =>
		viewLines({
			messages: history,
			explanation,
			entryIds: undefined,
			sessionFile: "東京/✅.jsonl",
			leafId: "👨‍👩‍👧‍👦",
			plugins: [],
			hardening: "off",
			width: at,
			columns,
		});
	expect(await showPanel(ctx, "convert-to-llm · /llm-context 中文 ✅✅", linesAt, columns)).toBe(true);
	return frame;
}

/** A history whose every shown field is generated text. */
const arbWideHistory = fc
	.array(
		fc.oneof(
			arbTerminalText.map((text) => ({ role: "user", content: text, timestamp: 0 })),
			fc.tuple(arbTerminalText, arbTerminalText, arbTerminalText).map(([text, thinking, name]) =>
				assistant(text, {
					content: [
						{ type: "thinking", thinking },
						{ type: "text", text: `${text}\n${thinking}` },
						{ type: "toolCall", id: "c", name, arguments: { path: text } },
					],
					model: name,
				}),
			),
			fc.tuple(arbTerminalText, arbTerminalText).map(([text, toolName]) => ({
				role: "toolResult",
				toolCallId: "c",
				toolName,
				content: [{ type: "text", text }],
				isError: false,
				timestamp: 2,
			})),
		),
		{ minLength: 1, maxLength: 4 },
	)
	.map((history) => history as unknown as AgentMessage[]);

describe("the /llm-context panel in terminal columns", () => {
	it("should open on a session of Chinese text and emoji at every width from 20 to 200, every line within the width as pi-tui measures it", async () => {
		const { ctx, frames, notes } = tuiCtx(REPRODUCTION, widths);
		await runCommand(createHost(pi, DEFAULT_HARDENING), createReporter(), "", ctx);
		expect(notes).toEqual([]);
		expect(frames.map((frame) => frame.width)).toEqual(widths);
		for (const { width, lines } of frames) {
			expect(lines.length).toBeGreaterThan(5);
			for (const { visibleWidth } of PI_TUI)
				for (const line of lines) expect(visibleWidth(line)).toBeLessThanOrEqual(width);
		}
		const wide = frames.at(-1)?.lines.join("\n") ?? "";
		expect(wide).toContain("请帮我修复这个失败的测试");
		expect(wide).toContain("Fixed the parser ✅ and the failing test ✅");
	});

	it.each(PI_TUI)(
		"should fit every line and the title of any history with $line's pi-tui (property)",
		async ({ visibleWidth }) => {
			const columns = graphemeColumns(visibleWidth);
			await fc.assert(
				fc.asyncProperty(arbWideHistory, fc.integer({ min: 20, max: 200 }), async (history, width) => {
					const lines = await panelFrames(history, width, columns);
					expect(lines.length).toBeGreaterThan(1);
					for (const line of lines) expect(visibleWidth(line)).toBeLessThanOrEqual(width);
				}),
				{ numRuns: 300 },
			);
		},
	);
});

describe("the CLI's view in terminal columns", () => {
	it("should cut every body line to the width by string-width, whatever the text (property)", async () => {
		const columns = terminalColumns();
		await fc.assert(
			fc.asyncProperty(arbWideHistory, fc.integer({ min: 20, max: 200 }), async (history, width) => {
				const explanation = await createDefaultRegistry().explainAsync(history);
				const lines = renderConversion({
					explanation,
					messages: history,
					explain: false,
					style: createStyle(false),
					width,
					columns,
				});
				// The message blocks end at the first blank line: their bodies are the indented lines.
				const bodies = lines.slice(0, lines.indexOf("")).filter((line) => line.startsWith("   "));
				expect(bodies.length).toBeGreaterThan(0);
				for (const line of bodies) expect(stringWidth(line)).toBeLessThanOrEqual(width);
			}),
			{ numRuns: 300 },
		);
	});

	it("should cut a line of CJK and emoji to the width in columns, keeping whole graphemes", () => {
		const columns = terminalColumns();
		expect(columns.truncate("東京タワー", 5)).toBe("東京…");
		expect(columns.truncate("👨‍👩‍👧‍👦👨‍👩‍👧‍👦👨‍👩‍👧‍👦", 5)).toBe("👨‍👩‍👧‍👦👨‍👩‍👧‍👦…");
		expect(columns.truncate("e\u0301e\u0301e\u0301", 2)).toBe("e\u0301…");
		expect(columns.truncate("fits", 4)).toBe("fits");
	});
});

describe("loadTuiColumns", () => {
	const root = fileURLToPath(new URL("../..", import.meta.url));
	const cli = (line: string) => join(root, "node_modules", line, "pi-coding-agent", "dist", "cli.js");

	it.each([
		["@mariozechner", "@mariozechner/pi-tui"],
		["@earendil-works", "@earendil-works/pi-tui"],
	])("should find the pi-tui of the running pi first from its CLI script (%s)", (line, tui) => {
		const urls = piTuiUrls(cli(line));
		expect(urls[0]).toBe(pathToFileURL(join(root, "node_modules", tui, "dist", "index.js")).href);
	});

	it("should find none where the script is not a file, and still measure (string-width then)", async () => {
		expect(piTuiUrls(undefined)).toEqual([]);
		expect(piTuiUrls(join(root, "no-such-script.js"))).toEqual([]);
		const columns = await loadTuiColumns(join(root, "no-such-script.js"));
		expect(columns.width("東京✅")).toBe(6);
	});

	it("should measure as the running pi's pi-tui does", async () => {
		const columns = await loadTuiColumns(cli("@mariozechner"));
		for (const text of ["東京✅", "👨‍👩‍👧‍👦 e\u0301", "a\tb"])
			expect(columns.width(text)).toBe(tui073.visibleWidth(text));
	});
});

describe("graphemeColumns", () => {
	const measures = [
		{ name: "string-width", width: stringWidth },
		{ name: "pi-tui 0.73.1", width: tui073.visibleWidth },
		{ name: "pi-tui 1.6.0", width: tui16.visibleWidth },
	];

	it.each(measures)(
		"should cut any text to at most the columns by $name, and leave text that fits (property)",
		({ width }) => {
			const columns = graphemeColumns(width);
			fc.assert(
				fc.property(arbTerminalText, fc.integer({ min: 1, max: 120 }), (text, n) => {
					const cut = columns.truncate(text, n);
					expect(width(cut)).toBeLessThanOrEqual(n);
					if (width(text) <= n) expect(cut).toBe(text);
					else expect(cut.endsWith("…") || cut === "").toBe(true);
				}),
				{ numRuns: 500 },
			);
		},
	);

	it("should give nothing where not even the ellipsis fits, and the ellipsis alone where one column is left", () => {
		const columns = graphemeColumns(stringWidth);
		expect(columns.truncate("東京", 0)).toBe("");
		expect(columns.truncate("東京", 1)).toBe("…");
		expect(columns.truncate("abc", 1)).toBe("…");
		expect(columns.truncate("abcd", 2)).toBe("a…");
	});
});
