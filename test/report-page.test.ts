/**
 * The report page as text: the data block escaped so nothing in it can end it, the policy's hashes
 * those of the inline script and style, and no history string anywhere in the markup.
 */
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createDefaultRegistry } from "../src/preset.js";
import { jsonForScript, pagePolicy, reportPage } from "../src/report/html-page.js";
import { htmlReport } from "../src/report/html-report.js";
import { PAGE_SCRIPT } from "../src/report/page-script.js";
import { PAGE_STYLE } from "../src/report/page-style.js";
import { reportData } from "../src/report/report-data.js";
import { readSession } from "../src/session/read.js";
import { HOSTILE, PAYLOADS, writeHostileSession } from "./support/hostile-session.js";
import { dataText } from "./support/report-page.js";

const sha = (text: string): string => createHash("sha256").update(text).digest("base64");

function hostilePage(): string {
	const dir = mkdtempSync(join(tmpdir(), "report-page-"));
	const file = join(dir, "hostile.jsonl");
	writeHostileSession(file);
	const text = readFileSync(file, "utf8");
	const read = readSession(text, { tree: true });
	const explanation = createDefaultRegistry().explain(read.messages);
	return htmlReport({
		title: HOSTILE,
		facts: [HOSTILE],
		messages: read.messages,
		explanation,
		entryIds: read.entryIds,
		contextEdits: read.contextEdits,
		tree: read.tree,
	});
}

describe("jsonForScript", () => {
	it("should escape <, >, &, U+2028 and U+2029 so the text parses to the same value", () => {
		const value = { a: "</script><!--<script>&amp;\u2028\u2029", b: ["<", ">", "&"] };
		const text = jsonForScript(value);
		for (const c of ["<", ">", "&", "\u2028", "\u2029"]) expect(text).not.toContain(c);
		expect(JSON.parse(text)).toEqual(value);
	});

	it("should round-trip any JSON value and never hold a < (property)", () => {
		fc.assert(
			fc.property(fc.jsonValue(), (value) => {
				const text = jsonForScript(value);
				expect(text.includes("<")).toBe(false);
				expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(value)));
			}),
		);
	});
});

describe("reportPage", () => {
	it("should allow only its own script and style by their SHA-256 hashes, data: images, and nothing else", () => {
		const policy = pagePolicy();
		expect(policy).toContain("default-src 'none'");
		expect(policy).toContain(`script-src 'sha256-${sha(PAGE_SCRIPT)}'`);
		expect(policy).toContain(`style-src 'sha256-${sha(PAGE_STYLE)}'`);
		expect(policy).toContain("img-src data:");
		expect(policy).not.toContain("unsafe");
	});

	it("should inline exactly the hashed script and style, and hold the policy in a meta element", () => {
		const page = hostilePage();
		expect(page).toContain(`<meta http-equiv="Content-Security-Policy" content="${pagePolicy()}">`);
		expect(page).toContain(`<style>${PAGE_STYLE}</style>`);
		expect(page).toContain(`<script>${PAGE_SCRIPT}</script>`);
	});

	it("should put no history string in the markup: outside the data block the page is the same for any history", () => {
		const page = hostilePage();
		const data = dataText(page);
		const markup = page.replace(data, "");
		const empty = reportPage(
			reportData({ title: "", facts: [], messages: [], explanation: createDefaultRegistry().explain([]) }),
		);
		expect(markup).toBe(empty.replace(dataText(empty), ""));
		// The payloads are in the data, but with no "<" that could open a tag.
		expect(JSON.parse(data).title).toContain(PAYLOADS[0]);
		for (const payload of PAYLOADS) if (payload.includes("<")) expect(data).not.toContain(payload);
	});

	it("should load no script, style, font or image from anywhere: no src or href outside the page", () => {
		const page = hostilePage().replace(dataText(hostilePage()), "");
		expect(page).not.toMatch(/\ssrc=/);
		const hrefs = [...page.matchAll(/href="([^"]*)"/g)].map((m) => m[1]);
		expect(hrefs.length).toBeGreaterThan(0);
		for (const href of hrefs) expect(href?.startsWith("#")).toBe(true);
		expect(page).not.toMatch(/<link\b|@import|url\(/);
	});

	it("should keep the page script free of innerHTML, outerHTML, insertAdjacentHTML, document.write and eval", () => {
		for (const sink of ["innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"]) {
			expect(PAGE_SCRIPT).not.toContain(sink);
		}
	});
});
