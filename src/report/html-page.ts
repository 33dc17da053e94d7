/**
 * The report as one self-contained HTML file: the page's own style and script inlined, the data as
 * JSON in a `<script type="application/json">` block, and a Content-Security-Policy in the page that
 * allows nothing but that script and that style (by their SHA-256 hashes, computed here) and `data:`
 * images. No history text is written into the markup: the script shows it as text.
 */
import { createHash } from "node:crypto";
import { PAGE_SCRIPT } from "./page-script.js";
import { PAGE_STYLE } from "./page-style.js";
import type { ReportData } from "./report-data.js";

/** `sha256-…` of `text` as UTF-8, for a CSP source list. */
export const cspHash = (text: string): string =>
	`'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;

/** The page's Content-Security-Policy: its one script and its one style, `data:` images, nothing else. */
export const pagePolicy = (): string =>
	[
		"default-src 'none'",
		`script-src ${cspHash(PAGE_SCRIPT)}`,
		`style-src ${cspHash(PAGE_STYLE)}`,
		"img-src data:",
		"base-uri 'none'",
		"form-action 'none'",
	].join("; ");

/**
 * JSON text made safe inside a `<script>` element: `<`, `>` and `&` become `\u003c`, `\u003e` and
 * `\u0026` (so no `</script>` or `<!--` can end or change the block), and U+2028/U+2029 are escaped
 * too. The text still parses to the same value.
 */
export function jsonForScript(value: unknown): string {
	// Literal replacements (no regex), each one native pass: a 40 MB report is escaped in well under a second.
	return (JSON.stringify(value) ?? "null")
		.replaceAll("<", "\\u003c")
		.replaceAll(">", "\\u003e")
		.replaceAll("&", "\\u0026")
		.replaceAll("\u2028", "\\u2028")
		.replaceAll("\u2029", "\\u2029");
}

/** The whole page for `data`. */
export function reportPage(data: ReportData): string {
	return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${pagePolicy()}">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="convert-to-llm --html">
<title>convert-to-llm report</title>
<style>${PAGE_STYLE}</style>
</head>
<body>
<a class="skip" href="#output">Skip to the model input</a>
<header>
<h1 id="title"></h1>
<ul class="facts" id="facts"></ul>
<form class="search" id="search" role="search">
<label for="q">Search messages</label>
<input id="q" type="search" autocomplete="off">
<button type="submit">Search</button>
<span id="hit-count" role="status"></span>
</form>
<ul class="hits" id="hits" aria-label="Search results"></ul>
<p class="keys">Keys: <kbd>/</kbd> search, <kbd>j</kbd> / <kbd>k</kbd> next / previous model message, <kbd>Esc</kbd> leave the search. Links join each model message to its history message and back.</p>
</header>
<nav aria-label="Sections">
<ul>
<li><a href="#chart-h">Tokens</a></li>
<li><a href="#history-h">History</a></li>
<li><a href="#output-h">Model input</a></li>
<li><a href="#taps-h">Post-conversion hooks</a></li>
<li><a href="#not-sent-h">Not sent</a></li>
<li><a href="#problems-h">Problems</a></li>
</ul>
</nav>
<main>
<noscript><p>This report draws itself with its own inline script; allow scripts for this file to see it.</p></noscript>
<section id="chart" aria-labelledby="chart-h"><h2 id="chart-h">Where the tokens go</h2></section>
<div class="columns">
<section id="history" aria-labelledby="history-h"><h2 id="history-h">History (the entries on the path)</h2></section>
<section id="output" aria-labelledby="output-h"><h2 id="output-h">Model input (what the provider gets)</h2></section>
</div>
<section id="taps" aria-labelledby="taps-h"><h2 id="taps-h">Post-conversion hooks, in the order they ran</h2></section>
<section id="not-sent" aria-labelledby="not-sent-h"><h2 id="not-sent-h">Not sent</h2></section>
<section id="problems" aria-labelledby="problems-h"><h2 id="problems-h">Problems</h2></section>
</main>
<footer id="footer-lines"></footer>
<script type="application/json" id="report-data">${jsonForScript(data)}</script>
<script>${PAGE_SCRIPT}</script>
</body>
</html>
`;
}
