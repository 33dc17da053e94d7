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
import { createDefaultRegistry } from "../../src/preset.js";
import { jsonForScript, pagePolicy } from "../../src/report/html-page.js";
import { pageScript } from "../../src/report/page/script.js";

const PAGE_SCRIPT = pageScript();

import { PAGE_STYLE } from "../../src/report/page/style.js";
import { readSession } from "../../src/session/read.js";
import { HOSTILE, PAYLOADS, writeHostileSession } from "../support/hostile-session.js";
import { dataBlocks, pageOf, reportDataOf } from "../support/report-page.js";

const sha = (text: string): string => createHash("sha256").update(text).digest("base64");

/** The page without its data blocks' contents. */
const markupOf = (page: string): string => {
	let markup = page;
	for (const { text } of dataBlocks(page)) markup = markup.replace(text, "");
	return markup.replaceAll(/<script type="application\/json" data-part="[a-z]+"><\/script>\n/g, "");
};

function hostilePage(): Promise<string> {
	const dir = mkdtempSync(join(tmpdir(), "report-page-"));
	const file = join(dir, "hostile.jsonl");
	writeHostileSession(file);
	const text = readFileSync(file, "utf8");
	const read = readSession(text, { tree: true });
	const explanation = createDefaultRegistry().explain(read.messages);
	return pageOf({
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
	it("should escape </, <!, U+2028 and U+2029 so the text parses to the same value", () => {
		const value = { a: "</script><!--<script>&amp;\u2028\u2029", b: ["<", ">", "&", "</SCRIPT", "<!"] };
		const text = jsonForScript(value);
		for (const c of ["</", "<!", "\u2028", "\u2029"]) expect(text).not.toContain(c);
		expect(JSON.parse(text)).toEqual(value);
	});

	it("should round-trip any JSON value and never hold a </ or <! (property)", () => {
		const arbitrary = fc.jsonValue({ maxDepth: 3 }).map((value) => [value, "</", "<!", "<<//!!"]);
		fc.assert(
			fc.property(arbitrary, (value) => {
				const text = jsonForScript(value);
				expect(text.includes("</")).toBe(false);
				expect(text.includes("<!")).toBe(false);
				expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(value)));
			}),
		);
	});
});

describe("reportPage", () => {
	it("should allow only its own script and style by their SHA-256 hashes, data: images, and nothing else", () => {
		const policy = pagePolicy(PAGE_SCRIPT);
		expect(policy).toContain("default-src 'none'");
		expect(policy).toContain(`script-src 'sha256-${sha(PAGE_SCRIPT)}'`);
		expect(policy).toContain(`style-src 'sha256-${sha(PAGE_STYLE)}'`);
		expect(policy).toContain("img-src data:");
		expect(policy).not.toContain("unsafe");
	});

	it("should inline exactly the hashed script and style, and hold the policy in a meta element", async () => {
		const page = await hostilePage();
		expect(page).toContain(`<meta http-equiv="Content-Security-Policy" content="${pagePolicy(PAGE_SCRIPT)}">`);
		expect(page).toContain(`<style>${PAGE_STYLE}</style>`);
		expect(page).toContain(`<script>${PAGE_SCRIPT}</script>`);
	});

	it("should put no history string in the markup: outside the data blocks the page is the same for any history", async () => {
		const page = await hostilePage();
		const empty = await pageOf({
			title: "",
			facts: [],
			messages: [],
			explanation: createDefaultRegistry().explain([]),
		});
		expect(markupOf(page)).toBe(markupOf(empty));
		// The payloads are in the data, but with no "<" that could open a tag.
		expect(reportDataOf(page).title).toContain(PAYLOADS[0]);
		for (const { text } of dataBlocks(page)) {
			expect(text).not.toContain("</");
			expect(text).not.toContain("<!");
			for (const payload of PAYLOADS) if (payload.includes("</")) expect(text).not.toContain(payload);
		}
	});

	it("should load no script, style, font or image from anywhere: no src or href outside the page", async () => {
		const page = markupOf(await hostilePage());
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
