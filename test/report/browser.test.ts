/// <reference lib="dom" />
/**
 * The HTML report in a real browser (headless Debian Chromium through playwright-core): the demo
 * session, a pi 1.6.0 session with system messages and context_edits, a hostile session, a session
 * whose text would make a quadratic markup pass take minutes, and a 100,000-entry session. Each opens
 * from file:// with no console error, no request but its own file, no script from the history, every
 * model message present beside its history message and linked both ways, a marker naming the hook on
 * every message a hook changed, the chart's total equal to the CLI footer's with the model's context
 * window as a line, and no serious or critical axe-core violation in light or dark mode. Screenshots
 * go to test-artifacts/; the demo's and the large session's to docs/ as well when missing or
 * UPDATE_SCREENSHOTS=1.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeLargeSession } from "../fixtures/sessions/large-session.js";
import { cli, DEMO, fixture, PLUGIN, root } from "../fixtures/sessions/run-cli.js";
import { chromiumMissing, launch, type OpenedReport, openReport } from "../support/chromium.js";
import { writeHostilePlugin, writeHostileSession } from "../support/hostile-session.js";
import { toolHistory } from "../support/tool-history.js";

const missing = chromiumMissing();
if (missing !== undefined) console.warn(`report-browser: skipped: ${missing}`);

const ARTIFACTS = join(root, "test-artifacts");
const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
const work = mkdtempSync(join(tmpdir(), "report-browser-"));

interface Case {
	name: string;
	/** The CLI arguments after --html <file>. */
	args: string[];
}

/** The explanation the CLI gives (`--json --explain`) and the token total of its footer. */
async function oracle(args: string[]): Promise<{ outputs: number[][]; count: number; tokens: number }> {
	const explained = JSON.parse((await cli(["--json", "--explain", ...args])).stdout) as {
		output: unknown[];
		messages: { outputs: number[] }[];
	};
	const view = (await cli(args)).stdout.trimEnd().split("\n");
	// The estimate's line (the calibrated and billed figures follow it when the session has bills).
	const estimate = view.filter((line) => line.includes("(chars/4 as pi estimates")).at(-1);
	const tokens = /~([\d,]+) tokens?/.exec(estimate ?? "")?.[1];
	expect(tokens, "the CLI footer gives a token estimate").toBeDefined();
	return {
		outputs: explained.messages.map((m) => m.outputs),
		count: explained.output.length,
		tokens: Number((tokens as string).replaceAll(",", "")),
	};
}

const written = new Map<string, string>();

/** The report of `item`, written once per run. */
async function writeReport(item: Case): Promise<string> {
	const done = written.get(item.name);
	if (done !== undefined) return done;
	const file = join(work, `${item.name}.html`);
	const run = await cli(["--html", file, ...item.args]);
	expect(run.code, run.stderr).toBe(0);
	written.set(item.name, file);
	return file;
}

/** axe-core's serious and critical violations on the page as it is. */
async function axeViolations(page: Page): Promise<string[]> {
	// Evaluated through the DevTools protocol: the page's own CSP would refuse an injected script tag.
	await page.evaluate(axeSource);
	return page.evaluate(async () => {
		const axe = (
			window as unknown as {
				axe: {
					run(
						context: Document,
						options: object,
					): Promise<{
						passes: unknown[];
						violations: { id: string; impact: string; nodes: { target: string[] }[] }[];
					}>;
				};
			}
		).axe;
		const result = await axe.run(document, { resultTypes: ["violations"] });
		// A run that checked nothing would pass too: it must have passed some rules.
		if (result.passes.length === 0) return ["axe-core checked no rule"];
		return result.violations
			.filter((v) => v.impact === "serious" || v.impact === "critical")
			.map((v) => `${v.impact} ${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
	});
}

/** Elements that only history content could have made, were it ever parsed as markup. */
const foreignElements = (page: Page): Promise<string[]> =>
	page.evaluate(() => {
		const found: string[] = [];
		for (const node of Array.from(document.querySelectorAll("*"))) {
			for (const attr of Array.from(node.attributes)) {
				if (attr.name.startsWith("on")) found.push(`${node.tagName} ${attr.name}`);
			}
			const tag = node.tagName.toLowerCase();
			if (["iframe", "b", "object", "embed", "link", "base", "meta"].includes(tag) && node.closest("head") === null)
				found.push(tag);
			if (tag === "img" && !(node as HTMLImageElement).src.startsWith("data:image/"))
				found.push("img without a data: image");
			if (tag === "a" && !(node.getAttribute("href") ?? "").startsWith("#"))
				found.push(`a href=${node.getAttribute("href")}`);
		}
		// The data blocks are read and removed: the page's own script is the one left.
		if (document.scripts.length !== 1) found.push(`${document.scripts.length} scripts`);
		if (document.querySelectorAll("style").length !== 1) found.push("another style element");
		// The token chart's two, and the ledger chart's one when the session recorded bills.
		if (document.querySelectorAll("svg:not(.chart-ledger)").length !== 2) found.push("another svg");
		if (document.querySelectorAll("svg.chart-ledger").length > 1) found.push("another ledger svg");
		return found;
	});

function screenshotPath(name: string): string {
	mkdirSync(ARTIFACTS, { recursive: true });
	return join(ARTIFACTS, `report-${name}.png`);
}

/** Whether the docs' copy of a screenshot is to be (re)made. */
const docsShot = (name: string): string | undefined => {
	const path = join(root, "docs", name);
	return process.env.UPDATE_SCREENSHOTS === "1" || !existsSync(path) ? path : undefined;
};

/** Whether `#a` and `#b` are in one row of the two columns, both on the screen. */
const besideEachOther = (page: Page, a: string, b: string): Promise<boolean> =>
	page.evaluate(
		([first, second]) => {
			const x = document.getElementById(first as string);
			const y = document.getElementById(second as string);
			if (!x || !y) return false;
			const row = x.closest("li.pair");
			if (row === null || row !== y.closest("li.pair")) return false;
			const seen = (el: Element) => {
				const box = el.getBoundingClientRect();
				return box.bottom > 0 && box.top < window.innerHeight;
			};
			return seen(x) && seen(y);
		},
		[a, b],
	);

describe.skipIf(missing !== undefined)("the HTML report in Chromium", () => {
	let context: BrowserContext;
	const cases: Case[] = [
		{ name: "demo", args: ["--plugin", PLUGIN, DEMO] },
		{ name: "pi1-system-and-edits", args: [fixture("pi1-system-and-edits.jsonl")] },
		{ name: "hostile", args: [] },
	];

	beforeAll(async () => {
		const hostile = join(work, "hostile.jsonl");
		writeHostileSession(hostile);
		(cases[2] as Case).args = ["--plugin", writeHostilePlugin(work), "--block-images", hostile];
		context = await launch();
	});

	afterAll(async () => {
		await context?.close();
	});

	describe.each(cases)("the report of $name", (item) => {
		let opened: OpenedReport;
		let expected: Awaited<ReturnType<typeof oracle>>;

		beforeAll(async () => {
			expected = await oracle(item.args);
			opened = await openReport(context, await writeReport(item));
		});

		afterAll(async () => {
			await opened?.page.close();
		});

		it("should open from file:// with no console error, no CSP violation and no request but its own file", () => {
			expect(opened.problems).toEqual([]);
			expect(opened.requests).toEqual([opened.url]);
		});

		it("should hold no element, attribute or link that came from the history, and run none of its scripts", async () => {
			expect(await foreignElements(opened.page)).toEqual([]);
			expect(await opened.page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned)).toBeUndefined();
		});

		it("should show every model message beside the history message it came from, linked both ways", async () => {
			const { page } = opened;
			expect(await page.locator("#conversation .side-out article.msg").count()).toBe(expected.count);
			const links = await page.evaluate(() => {
				const out: Record<string, string[]> = {};
				for (const a of Array.from(document.querySelectorAll("a[data-go]"))) {
					const from = a.closest("article")?.id ?? "";
					const list = out[from] ?? [];
					list.push(a.getAttribute("data-go") as string);
					out[from] = list;
				}
				return out;
			});
			expected.outputs.forEach((outputs, h) => {
				for (const o of outputs) {
					expect(links[`out-${o}`], `#${o} links to its source`).toContain(`hist:${h}`);
					expect(links[`hist-${h}`], `history [${h}] links to #${o}`).toContain(`out:${o}`);
				}
			});
			const sent = expected.outputs.flat().length;
			expect(sent).toBe(expected.count);
			const first = expected.outputs.findIndex((outputs) => outputs.length > 0);
			await page.click(`#out-${expected.outputs[first]?.[0]} a[data-go="hist:${first}"]`);
			expect(await page.evaluate(() => document.activeElement?.id)).toBe(`hist-${first}`);
			let last = expected.outputs.length - 1;
			while (last > 0 && (expected.outputs[last] as number[]).length === 0) last--;
			const lastOut = expected.outputs[last]?.at(-1) as number;
			await page.click(`#hist-${last} a[data-go="out:${lastOut}"]`);
			expect(await page.evaluate(() => document.activeElement?.id)).toBe(`out-${lastOut}`);
			expect(await besideEachOther(page, `out-${lastOut}`, `hist-${last}`)).toBe(true);
		});

		it("should draw the chart with the CLI footer's token total", async () => {
			const total = opened.page.locator("#chart-total");
			expect(Number(await total.getAttribute("data-tokens"))).toBe(expected.tokens);
			expect(await total.textContent()).toContain(`~${expected.tokens.toLocaleString("en-US")} tokens`);
			expect(await opened.page.locator("svg.chart-bars rect").count()).toBe(Math.min(400, expected.count));
		});

		it("should have no serious or critical accessibility violation, in light and in dark mode", async () => {
			const { page } = opened;
			await page.emulateMedia({ colorScheme: "light" });
			await page.evaluate(() => window.scrollTo(0, 0));
			expect(await axeViolations(page)).toEqual([]);
			await page.screenshot({ path: screenshotPath(`${item.name}-light`) });
			const docs = item.name === "demo" ? docsShot("report-demo.png") : undefined;
			if (docs !== undefined) await page.screenshot({ path: docs });
			await page.emulateMedia({ colorScheme: "dark" });
			expect(await axeViolations(page)).toEqual([]);
			await page.screenshot({ path: screenshotPath(`${item.name}-dark`) });
			await page.emulateMedia({ colorScheme: "light" });
		});
	});

	it("should show the demo's image as a thumbnail, and the pi 1.6.0 session's system prompt, tools and context_edits", async () => {
		const demo = await openReport(context, await writeReport(cases[0] as Case));
		const sizes = await demo.page.evaluate(() =>
			Array.from(document.querySelectorAll<HTMLImageElement>("img.thumb")).map((img) => img.naturalWidth),
		);
		expect(sizes.length).toBeGreaterThan(0);
		for (const width of sizes) expect(width).toBeGreaterThan(0);
		await demo.page.close();
		const pi1 = await openReport(context, await writeReport(cases[1] as Case));
		const text = (await pi1.page.textContent("main")) ?? "";
		expect(text).toContain("system prompt · tools: read, bash");
		expect(text).toContain("tools removed: bash");
		expect(text).toContain("hidden by context_edit e0000001, not sent");
		expect(text).toContain("content replaced by context_edit e0000002");
		await pi1.page.close();
	});

	it("should draw the demo's context-window line from pi-ai's model table, and mark the messages a hook changed", async () => {
		const demo = await openReport(context, await writeReport(cases[0] as Case));
		expect(await demo.page.getAttribute("#chart-window", "data-window")).toBe("200000");
		expect(await demo.page.textContent("#chart-window")).toContain(
			"Context window of anthropic/claude-sonnet-4-5: 200,000 tokens",
		);
		expect(await demo.page.locator("svg.chart-context line.window-line").count()).toBe(1);
		await demo.page.close();
		// The demo with --block-images: its image message is marked, beside the custom message it came from.
		const blocked = await openReport(
			context,
			await writeReport({ name: "demo-blocked", args: ["--plugin", PLUGIN, "--block-images", DEMO] }),
		);
		const image = blocked.page.locator("#conversation article.msg", { has: blocked.page.locator(".changed") });
		expect(await image.count()).toBe(1);
		expect(await image.locator(".changed").textContent()).toBe(
			"changed after conversion by convert-to-llm:block-images",
		);
		const id = (await image.getAttribute("id")) as string;
		await blocked.page.click(`#${id} .src a[data-go]`);
		const source = await blocked.page.evaluate(() => document.activeElement?.id ?? "");
		expect(await besideEachOther(blocked.page, id, source)).toBe(true);
		await blocked.page.evaluate(() => window.scrollBy(0, -120));
		const docs = docsShot("report-side-by-side.png");
		if (docs !== undefined) await blocked.page.screenshot({ path: docs });
		await blocked.page.close();
		// The hostile report's hooks: block-images and the hostile plugin's tap each changed a message.
		const hostile = await openReport(context, await writeReport(cases[2] as Case));
		const marks = await hostile.page.locator("#conversation .changed").allTextContents();
		expect(marks.length).toBeGreaterThan(0);
		expect(marks.some((mark) => mark.includes("convert-to-llm:block-images"))).toBe(true);
		expect(marks.every((mark) => mark.startsWith("changed after conversion by "))).toBe(true);
		const tapped = await hostile.page.evaluate(() => document.querySelectorAll("#taps li.row details").length);
		expect(tapped).toBeGreaterThanOrEqual(marks.length);
		await hostile.page.close();
	});

	it("should draw the ledger chart of a session with bills: its bars, its labels, each break labelled with its cause", async () => {
		const demo = await openReport(context, await writeReport(cases[0] as Case));
		const { page } = demo;
		expect(demo.problems).toEqual([]);
		expect(await page.textContent("#ledger-summary")).toContain("5 requests, 5 with a bill; 2 prefix breaks");
		expect(await page.locator("svg.chart-ledger rect").count()).toBeGreaterThanOrEqual(5);
		expect(await page.textContent("#ledger .legend")).toContain("cached (read) tokens");
		// The compaction's break: a line with its cause, a label in the drawing, a line in the list.
		expect(await page.locator('svg.chart-ledger line.break-line[data-cause="compaction"]').count()).toBe(1);
		expect(await page.locator("svg.chart-ledger text.break-label").allTextContents()).toEqual([
			"compaction",
			"branch",
		]);
		expect(await page.textContent('#ledger-breaks li[data-cause="compaction"]')).toContain(
			"breaks at message 0, cause compaction",
		);
		// The header's figures, each with its counter.
		const figures = await page
			.locator("#token-figures li.figure")
			.evaluateAll((items) => items.map((item) => item.getAttribute("data-kind")));
		expect(figures).toEqual(["estimate", "calibrated", "billed"]);
		expect(await page.textContent('#token-figures li[data-kind="calibrated"]')).toContain(
			"calibrated on 5 billed requests",
		);
		await page.locator("#ledger").screenshot({ path: screenshotPath("demo-ledger") });
		const docs = docsShot("report-ledger.png");
		if (docs !== undefined) await page.locator("#ledger").screenshot({ path: docs });
		await page.close();
		// A session that recorded no usage: the section says why there is no chart, the header what the estimate is.
		const plain = await openReport(
			context,
			await writeReport({ name: "pi1-plain", args: [fixture("pi1-system-and-edits.jsonl")] }),
		);
		expect(await plain.page.locator("svg.chart-ledger").count()).toBe(0);
		expect(await plain.page.textContent("#ledger-why")).toContain("recorded billed usage");
		expect(await plain.page.textContent("#token-figures .figure-note")).toContain("24–28% below what Claude bills");
		await plain.page.close();
	});

	it("should mark a cleared tool result as changed by clear-tool-results, with its size in the history", async () => {
		const history = join(work, "tools.json");
		writeFileSync(history, JSON.stringify(toolHistory("x".repeat(5000))));
		const opened = await openReport(
			context,
			await writeReport({
				name: "cleared",
				args: ["--clear-tool-results=trigger=1,keep=0,clearAtLeast=0", history],
			}),
		);
		const card = opened.page.locator("#conversation article.msg", { has: opened.page.locator(".cleared-note") });
		expect(await card.count()).toBe(1);
		expect(await card.locator(".changed").textContent()).toBe(
			"changed after conversion by convert-to-llm:clear-tool-results",
		);
		expect(await card.locator(".cleared-note").textContent()).toBe(
			"cleared by convert-to-llm:clear-tool-results (was 5,000 characters)",
		);
		expect(await card.textContent()).toContain("[cleared: read src/parse.ts, 5,000 characters]");
		await opened.page.close();
	});

	it("should draw text in time linear in it: 3 MB of ⟨U+ with one ⟩ at the end", async () => {
		const session = join(work, "marks.jsonl");
		const T = "2025-01-31T12:00:00.000Z";
		const lines = [
			{ type: "session", version: 3, id: "s", timestamp: T, cwd: "/p" },
			{
				type: "message",
				id: "m1",
				parentId: null,
				timestamp: T,
				message: { role: "user", content: `${"⟨U+".repeat(1_000_000)}x⟩`, timestamp: 1 },
			},
		];
		writeFileSync(session, `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
		const file = join(work, "marks.html");
		expect((await cli(["--html", file, session])).code).toBe(0);
		// The quadratic pass took minutes here; the page's own wait is 120 s, this one 60 s.
		const page = await context.newPage();
		await page.goto(pathToFileURL(file).href, { timeout: 60_000 });
		await page.waitForSelector("body[data-ready=true]", { timeout: 60_000 });
		expect(await page.locator("#out-0 pre").textContent()).toHaveLength(3_000_002);
		await page.close();
	}, 120_000);

	it("should show the hostile session's text as text: payloads readable, bidi and invisible characters marked", async () => {
		const { page } = await openReport(context, await writeReport(cases[2] as Case));
		const text = (await page.textContent("body")) ?? "";
		expect(text).toContain("<script>window.__pwned='script'</script>");
		expect(text).toContain("javascript:window.__pwned='href'");
		for (const c of ["\u202e", "\u200b", "\u2066", "\u2028", "\u001b", "\u{E0041}"]) expect(text).not.toContain(c);
		const marks = await page.locator("mark.inv").allTextContents();
		for (const mark of ["⟨U+202E⟩", "⟨U+200B⟩", "⟨U+2066⟩", "⟨U+2028⟩", "⟨U+E0041⟩"]) expect(marks).toContain(mark);
		// The hostile plugin's tap rewrote the last message: its diff is there, as text.
		const diff = (await page.textContent("#taps")) ?? "";
		expect(diff).toContain("+ rewritten </script><script>window.__pwned='break-out'</script>");
		await page.close();
	});

	it("should run no history script even with the page's CSP switched off: safety does not rest on the policy", async () => {
		const loose = await launch({ bypassCSP: true });
		try {
			const opened = await openReport(loose, await writeReport(cases[2] as Case));
			expect(opened.problems).toEqual([]);
			expect(await foreignElements(opened.page)).toEqual([]);
			expect(await opened.page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned)).toBeUndefined();
		} finally {
			await loose.close();
		}
	});

	it("should search, fold and unfold long outputs, and move between messages with the keyboard", async () => {
		const { page } = await openReport(context, await writeReport(cases[2] as Case));
		await page.keyboard.press("/");
		expect(await page.evaluate(() => document.activeElement?.id)).toBe("q");
		await page.keyboard.type("rewritten");
		await page.waitForSelector("#hits a[data-go]");
		expect(await page.textContent("#hit-count")).toMatch(/^\d+ match/);
		await page.click("#hits a[data-go^='out:']");
		const found = await page.evaluate(() => document.activeElement?.id ?? "");
		expect(found).toMatch(/^out-\d+$/);
		expect(await page.textContent(`#${found}`)).toContain("rewritten");
		await page.keyboard.press("Escape");
		await page.focus("#out-0");
		await page.keyboard.press("j");
		expect(await page.evaluate(() => document.activeElement?.id)).toBe("out-1");
		await page.keyboard.press("k");
		expect(await page.evaluate(() => document.activeElement?.id)).toBe("out-0");
		const fold = page.locator("#conversation .side-out button.fold").first();
		expect(await fold.getAttribute("aria-expanded")).toBe("false");
		const box = fold.locator("xpath=..");
		expect(await box.locator("pre").textContent()).not.toContain("119 ");
		await fold.click();
		expect(await fold.getAttribute("aria-expanded")).toBe("true");
		expect(await box.locator("pre").textContent()).toContain("119 ");
		await page.close();
	});

	it("should open a 100,000-entry session a page of rows at a time, chart it by turns against its context window, and zoom to its last message", async () => {
		const session = join(work, "large.jsonl");
		const { bytes: sessionBytes } = writeLargeSession(session, 100_000);
		const file = join(work, "large.html");
		const start = Date.now();
		execFileSync(process.execPath, [join(root, "dist", "cli.js"), "--html", file, session], { stdio: "ignore" });
		const writeMs = Date.now() - start;
		const opened = await openReport(context, file);
		const { page } = opened;
		expect(opened.problems).toEqual([]);
		const paint = await page.evaluate(() => {
			const fcp = performance.getEntriesByName("first-contentful-paint")[0];
			return fcp === undefined ? -1 : Math.round(fcp.startTime);
		});
		const count = Number(await page.getAttribute("#chart-total", "data-messages"));
		expect(count).toBeGreaterThan(50_000);
		expect(await page.locator("#conversation li.pair").count()).toBe(100);
		// Readable at this size: at most 400 bars, by turns, and a line at the model's window, which
		// this session's ~900k estimated tokens pass.
		expect(await page.locator("svg.chart-bars rect").count()).toBeLessThanOrEqual(400);
		// Its 30,054 requests are more than the report makes the ledger of: no ledger chart, and why.
		expect(await page.locator("svg.chart-ledger").count()).toBe(0);
		expect(await page.locator("#ledger").textContent()).toContain(
			"the session records 30,054 requests, more than the report charts (5,000); convert-to-llm --requests gives each one's calibrated and billed tokens",
		);
		expect(await page.textContent("#chart-range")).toMatch(/each bar \d+ turns/);
		expect(await page.getAttribute("#chart-window", "data-window")).toBe("200000");
		expect(await page.locator("#chart-window.over").count()).toBe(1);
		const docs = docsShot("report-large.png");
		if (docs !== undefined) await page.screenshot({ path: docs });
		// The last bar zooms in, until a bar is one message; that one goes to it, beside its entry.
		let target = "";
		for (let zoom = 0; zoom < 6 && !target.startsWith("out-"); zoom++) {
			await page.locator("svg.chart-bars rect").last().click();
			target = await page.evaluate(() => document.activeElement?.id ?? "");
		}
		expect(await page.textContent("#chart-range")).toContain("zoomed in");
		expect(Number(target.slice(4))).toBe(count - 1);
		const source = await page.evaluate((id) => {
			const link = document.querySelector(`#${id} .src a[data-go]`);
			return link === null ? "" : (link.getAttribute("data-go") as string).replace(":", "-");
		}, target);
		expect(await besideEachOther(page, target, source)).toBe(true);
		await page.screenshot({ path: screenshotPath("large-last") });
		const figures = {
			sessionBytes,
			reportBytes: statSync(file).size,
			modelMessages: count,
			writeMs,
			firstContentfulPaintMs: paint,
			readyMs: opened.readyMs,
		};
		const demo = await writeReport(cases[0] as Case);
		const demoOpened = await openReport(context, demo);
		const demoFigures = { reportBytes: statSync(demo).size, readyMs: demoOpened.readyMs };
		await demoOpened.page.close();
		mkdirSync(ARTIFACTS, { recursive: true });
		writeFileSync(
			join(ARTIFACTS, "report-sizes.json"),
			`${JSON.stringify({ large: figures, demo: demoFigures }, null, 2)}\n`,
		);
		console.log(`report-browser: 100,000 entries: ${JSON.stringify(figures)}; demo: ${JSON.stringify(demoFigures)}`);
		await page.close();
	}, 300_000);
});
