/**
 * The data of the HTML report: the view's counts, every model message linked to the history message
 * it came from and back, the session's path with its compaction, branches and context_edits, and
 * what each post-conversion tap changed, message by message.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { blockImages, IMAGE_PLACEHOLDER } from "../../src/hooks/block-images.js";
import { createDefaultRegistry } from "../../src/preset.js";
import type { Registry } from "../../src/registry/types.js";
import { lineDiff } from "../../src/report/line-diff.js";
import { messageParts } from "../../src/report/message-parts.js";
import { pageText } from "../../src/report/page-text.js";
import { type ReportData, reportData } from "../../src/report/report-data.js";
import { observeTaps, SNAPSHOT_TAP } from "../../src/report/tap-snapshots.js";
import { readSession } from "../../src/session/read.js";
import { renderFooter, totals } from "../../src/view/render.js";
import { createStyle } from "../../src/view/style.js";
import { DEMO, fixture, PLUGIN, root } from "../fixtures/sessions/run-cli.js";

const { default: ticketRole } = (await import(`${root}/${PLUGIN}`)) as { default: Parameters<Registry["use"]>[0] };

async function dataOf(
	file: string,
	setup: (registry: Registry) => void = () => {},
	observe = true,
): Promise<ReportData> {
	const read = readSession(readFileSync(`${root}/${file}`, "utf8"), { tree: true });
	const registry = createDefaultRegistry();
	setup(registry);
	const snapshots = observe ? observeTaps(registry) : undefined;
	const explanation = await registry.explainAsync(read.messages);
	return reportData({
		title: file,
		facts: [],
		messages: read.messages,
		explanation,
		entryIds: read.entryIds,
		contextEdits: read.contextEdits,
		tree: read.tree,
		snapshots,
	});
}

describe("reportData", () => {
	it("should count as the CLI view counts: the footer's lines, its token total, and a per-message sum equal to it", async () => {
		const data = await dataOf(DEMO, (registry) => registry.use(ticketRole));
		const read = readSession(readFileSync(`${root}/${DEMO}`, "utf8"));
		const registry = createDefaultRegistry().use(ticketRole);
		const counts = totals(registry.convert(read.messages));
		// The view's footer, then what the estimate is (this report was given no bills).
		expect(data.footer.slice(0, 2)).toEqual(renderFooter(counts, read.messages.length, createStyle(false)));
		expect(data.footer[2]).toContain("pi's chars/4 estimate only");
		expect(data.totals.tokens).toBe(counts.tokens);
		expect(data.output.reduce((sum, item) => sum + item.tokens, 0)).toBe(counts.tokens);
		expect(data.roles.reduce((sum, role) => sum + role.tokens, 0)).toBe(counts.tokens);
		expect(data.roles.reduce((sum, role) => sum + role.messages, 0)).toBe(data.output.length);
	});

	it("should link every model message to the history message it came from, and that message back to it", async () => {
		const data = await dataOf(DEMO, (registry) => registry.use(ticketRole));
		expect(data.output.length).toBeGreaterThan(0);
		data.output.forEach((item, i) => {
			expect(item.source).toBeGreaterThanOrEqual(0);
			expect(data.history[item.source]?.outputs).toContain(i);
		});
		data.history.forEach((item, h) => {
			for (const o of item.outputs) expect(data.output[o]?.source).toBe(h);
		});
	});

	it("should list each history message once in the path's rows, and mark the compaction and what it summarized", async () => {
		const data = await dataOf(DEMO);
		const listed = data.rows.flatMap((row) => row.history).sort((a, b) => a - b);
		expect(listed).toEqual(data.history.map((_, i) => i));
		const compaction = data.rows.findIndex((row) => row.mark === "compaction");
		expect(compaction).toBeGreaterThan(0);
		const before = data.rows.slice(0, compaction).filter((row) => row.type === "message" && row.history.length === 0);
		expect(before.length).toBeGreaterThan(0);
		for (const row of before) expect(row.state).toBe("summarized by the compaction below, not sent");
		// The ticket role has no converter without its plugin: dropped, with the reason.
		const ticket = data.history.find((item) => item.role === "ticket");
		expect(ticket?.dropped).toBe("unknown-role");
		expect(ticket?.errors[0]).toContain('No converter for role "ticket"');
	});

	it("should mark a branch point with its number of children, and the branch summary", async () => {
		const data = await dataOf(fixture("v2-tree.jsonl"));
		expect(data.rows.find((row) => row.entry === "b0000002")?.branches).toBe(2);
		expect(data.rows.find((row) => row.entry === "b0000005")?.mark).toBe("branch summary");
	});

	it("should show pi 1.x system messages and context_edits: the prompt's tools, the hidden entry, the replaced content", async () => {
		const data = await dataOf(fixture("pi1-system-and-edits.jsonl"));
		expect(data.output[0]?.role).toBe("system");
		expect(data.output[0]?.meta).toContain("system prompt");
		expect(data.output[0]?.meta).toContain("tools: read, bash");
		expect(data.output.some((item) => item.meta.includes("tools removed: bash"))).toBe(true);
		expect(data.hidden).toEqual(["entry u0000001 (user) hidden by context_edit e0000001"]);
		expect(data.rows.find((row) => row.entry === "u0000001")?.state).toBe(
			"hidden by context_edit e0000001, not sent",
		);
		const replaced = data.output.find((item) => item.note !== undefined);
		expect(replaced?.note).toBe("content replaced by context_edit e0000002");
		expect(replaced?.parts[0]?.text).toBe("[elided]");
		expect(data.rows.find((row) => row.entry === "a0000001")?.text).toBe(
			"as stored (context_edit e0000002 replaced it) assistant: A very long answer",
		);
	});

	it("should give each post-conversion tap's change to each message as a line diff", async () => {
		const data = await dataOf(DEMO, (registry) => registry.use(ticketRole).use(blockImages({ enabled: true })));
		expect(data.taps.map((tap) => tap.plugin)).toEqual(["convert-to-llm:block-images"]);
		const [tap] = data.taps;
		expect(tap?.changes?.length).toBe(1);
		const change = tap?.changes?.[0];
		expect(change?.change).toBe("replaced");
		expect(data.output[change?.index as number]?.parts.some((part) => part.text === IMAGE_PLACEHOLDER)).toBe(true);
		expect(change?.diff.some(([op, text]) => op === "-" && text.startsWith("[image image/png"))).toBe(true);
		expect(change?.diff.some(([op, text]) => op === "+" && text === IMAGE_PLACEHOLDER)).toBe(true);
	});

	it("should leave the output as it is when it observes the taps, and leave its snapshot taps out of the report", async () => {
		const read = readSession(readFileSync(`${root}/${DEMO}`, "utf8"));
		const registry = createDefaultRegistry().use(blockImages({ enabled: true }));
		observeTaps(registry);
		const explanation = registry.explain(read.messages);
		expect(explanation.output).toEqual(
			createDefaultRegistry()
				.use(blockImages({ enabled: true }))
				.convert(read.messages),
		);
		expect(explanation.taps.some((tap) => tap.plugin === SNAPSHOT_TAP)).toBe(true);
		const data = await dataOf(DEMO, (r) => r.use(blockImages({ enabled: true })));
		expect(data.taps.some((tap) => tap.plugin === SNAPSHOT_TAP)).toBe(false);
	});

	it("should not tap a hook nobody tapped: the registry still skips it", async () => {
		const registry = createDefaultRegistry();
		observeTaps(registry);
		expect(registry.hooks.afterConvert.isUsed()).toBe(false);
		expect(registry.hooks.afterConvertAsync.isUsed()).toBe(false);
	});

	it("should say a tap's summary without a diff when the taps were not observed", async () => {
		const data = await dataOf(DEMO, (registry) => registry.use(blockImages({ enabled: true })), false);
		expect(data.taps[0]?.summary).toMatch(/^replaced #\d+$/);
		expect(data.taps[0]?.changes).toBeUndefined();
	});

	it("should keep the text of a history message once when it is sent as it is", async () => {
		const data = await dataOf(DEMO);
		const same = data.history.filter((item) => item.sameAs !== undefined);
		expect(same.length).toBeGreaterThan(0);
		for (const item of same) {
			expect(item.parts).toBeUndefined();
			expect(item.outputs).toEqual([item.sameAs]);
		}
	});
});

describe("pageText", () => {
	it.each([
		["a\nb", "a\nb"],
		["a\r\nb", "a\nb"],
		["x\u202ey", "x⟨U+202E⟩y"],
		["zero\u200bwidth\n\u001b[31m", "zero⟨U+200B⟩width\n␛[31m"],
		["tag\u{E0041}", "tag⟨U+E0041⟩"],
		["line\u2028sep", "line⟨U+2028⟩sep"],
	])("should mark %j as the terminal view does, keeping line breaks", (text, shown) => {
		expect(pageText(text)).toBe(shown);
	});
});

describe("messageParts", () => {
	const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
	it("should embed an image of an allowed type with base64 data as a data: URI", () => {
		const [part] = messageParts(
			{ role: "user", content: [{ type: "image", mimeType: "image/png", data: png }] },
			true,
		);
		expect(part?.src).toBe(`data:image/png;base64,${png}`);
	});

	it.each([
		["a type that is not an image", "text/html", png],
		["a type with markup", 'image/png"><script>', png],
		["data that is not base64", "image/png", "<script>x</script>"],
	])("should not embed %s, only describe it", (_what, mimeType, data) => {
		const [part] = messageParts({ role: "user", content: [{ type: "image", mimeType, data }] }, true);
		expect(part?.kind).toBe("image");
		expect(part?.src).toBeUndefined();
	});

	it("should never throw on a message whose fields throw", () => {
		const hostile = new Proxy(
			{},
			{
				get: () => {
					throw new Error("trap");
				},
			},
		);
		expect(messageParts(hostile, true)).toEqual([{ kind: "note", text: "[a message that cannot be read]" }]);
	});
});

describe("lineDiff", () => {
	it("should be empty for equal texts, and keep context around a changed line", () => {
		expect(lineDiff("a\nb", "a\nb")).toEqual([]);
		expect(lineDiff("a\nb\nc", "a\nB\nc")).toEqual([
			{ op: "=", text: "a" },
			{ op: "-", text: "b" },
			{ op: "+", text: "B" },
			{ op: "=", text: "c" },
		]);
	});

	it("should fold long unchanged runs and show removed lines, then added ones, for a huge middle", () => {
		const many = Array.from({ length: 20 }, (_, i) => `l${i}`);
		const diff = lineDiff([...many, "old"].join("\n"), [...many, "new"].join("\n"));
		expect(diff[0]).toEqual({ op: "…", text: "17 unchanged lines" });
		expect(diff.slice(-2)).toEqual([
			{ op: "-", text: "old" },
			{ op: "+", text: "new" },
		]);
		const big = lineDiff(
			Array.from({ length: 600 }, (_, i) => `a${i}`).join("\n"),
			Array.from({ length: 600 }, (_, i) => `b${i}`).join("\n"),
		);
		expect(big.filter((line) => line.op === "-")).toHaveLength(600);
		expect(big.filter((line) => line.op === "+")).toHaveLength(600);
	});
});
