/**
 * The report's markup as one self-contained HTML file: the page's own style and script inlined, the
 * data as JSON in `<script type="application/json" data-part>` blocks between its start and its end,
 * and a Content-Security-Policy in the page that allows nothing but that script and that style (by
 * their SHA-256 hashes, computed here) and `data:` images. No history text is written into the
 * markup: the script shows it as text.
 */
import { createHash } from "node:crypto";
import { PAGE_STYLE } from "./page/style.js";
import type { ReportList } from "./report-types.js";

/** `sha256-…` of `text` as UTF-8, for a CSP source list. */
export const cspHash = (text: string): string =>
	`'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;

/** The page's Content-Security-Policy for `script`: that one script and the one style, `data:` images, nothing else. */
export const pagePolicy = (script: string): string =>
	[
		"default-src 'none'",
		`script-src ${cspHash(script)}`,
		`style-src ${cspHash(PAGE_STYLE)}`,
		"img-src data:",
		"base-uri 'none'",
		"form-action 'none'",
	].join("; ");

/** What {@link scriptSafe} escapes. */
const UNSAFE = /<[/!]|[\u2028\u2029]/;

/**
 * JSON text made safe inside a `<script>` element: in a script's text the HTML parser reacts to a
 * `<` only when `/` (an end tag) or `!` (`<!--`, which changes how the rest is read) follows it, so
 * `</` becomes `<\/` and `<!` becomes `\u003c!`; U+2028 and U+2029 are escaped too. The text still
 * parses to the same value, and any other `<` costs nothing (a tool's HTML output stays its size).
 */
export function scriptSafe(json: string): string {
	if (!UNSAFE.test(json)) return json;
	// Literal replacements (no regex on the text), each one native pass; JSON puts a `"`, `,` or
	// `]` after every string, so no `<` at a string's end can meet a `/` or `!` after it.
	return json
		.replaceAll("</", "<\\/")
		.replaceAll("<!", "\\u003c!")
		.replaceAll("\u2028", "\\u2028")
		.replaceAll("\u2029", "\\u2029");
}

/** `value` as JSON made safe inside a `<script>` element ({@link scriptSafe}). */
export const jsonForScript = (value: unknown): string => scriptSafe(JSON.stringify(value) ?? "null");

/** The opening tag of a data block: the head, or a run of one list's items. */
export const blockStart = (part: "head" | ReportList): string => `<script type="application/json" data-part="${part}">`;

export const BLOCK_END = "</script>\n";

/** The page up to its data blocks, for the page's `script`. */
export function pageStart(script: string): string {
	return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${pagePolicy(script)}">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="convert-to-llm --html">
<title>convert-to-llm report</title>
<style>${PAGE_STYLE}</style>
</head>
<body>
<a class="skip" href="#conversation">Skip to the history and the model input</a>
<header>
<h1 id="title"></h1>
<ul class="facts" id="facts"></ul>
<ul class="facts" id="token-figures" aria-label="Tokens of the request, each with its counter"></ul>
<form class="search" id="search" role="search">
<label for="q">Search messages</label>
<input id="q" type="search" autocomplete="off">
<button type="submit">Search</button>
<span id="hit-count" role="status"></span>
</form>
<ul class="hits" id="hits" aria-label="Search results"></ul>
<p class="keys">Keys: <kbd>/</kbd> search, <kbd>j</kbd> / <kbd>k</kbd> next / previous model message, <kbd>Esc</kbd> leave the search. Each history entry is beside the model messages it became; links join them both ways.</p>
</header>
<nav aria-label="Sections">
<ul>
<li><a href="#chart-h">Tokens</a></li>
<li><a href="#ledger-h">Requests and the cache</a></li>
<li><a href="#conversation-h">History and model input</a></li>
<li><a href="#taps-h">Post-conversion hooks</a></li>
<li><a href="#not-sent-h">Not sent</a></li>
<li><a href="#problems-h">Problems</a></li>
</ul>
</nav>
<main>
<noscript><p>This report draws itself with its own inline script; allow scripts for this file to see it.</p></noscript>
<section id="chart" aria-labelledby="chart-h"><h2 id="chart-h">Where the tokens go</h2></section>
<section id="ledger" aria-labelledby="ledger-h"><h2 id="ledger-h">What each request was billed: the prompt cache</h2></section>
<section id="conversation" aria-labelledby="conversation-h"><h2 id="conversation-h">History and model input, side by side</h2></section>
<section id="taps" aria-labelledby="taps-h"><h2 id="taps-h">Post-conversion hooks, in the order they ran</h2></section>
<section id="not-sent" aria-labelledby="not-sent-h"><h2 id="not-sent-h">Not sent</h2></section>
<section id="problems" aria-labelledby="problems-h"><h2 id="problems-h">Problems</h2></section>
</main>
<footer id="footer-lines"></footer>
`;
}

/** The page after its data blocks: the script, which reads them. */
export function pageEnd(script: string): string {
	return `<script>${script}</script>
</body>
</html>
`;
}
