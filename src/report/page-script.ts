/**
 * The report page's script, inlined into the page (its hash goes into the page's
 * Content-Security-Policy). It reads the report's data from the page's JSON block and builds every
 * element with `createElement` and text nodes: no string from the data is ever parsed as HTML, and
 * every link it makes points inside the page (`#out-3`, `#hist-5`). Lists are shown a page of items
 * at a time, so a 100,000-entry session opens without drawing all of it.
 *
 * Written as plain JavaScript (no template literals) so that it can live in these strings.
 */
import { PAGE_SECTIONS } from "./page-sections.js";

/** The page's helpers, its two paged columns, and the links between them. */
const CORE = String.raw`var data = JSON.parse(document.getElementById("report-data").textContent);
var PAGE = 100;
var FOLD = 24;
var SHOWN = 12;
var ROLES = { user: 1, assistant: 1, toolResult: 1, system: 1 };
var fmt = function (n) { return n.toLocaleString("en-US"); };
var roleClass = function (role) { return ROLES[role] === 1 ? role : "other"; };

function marked(text) {
	var frag = document.createDocumentFragment();
	var from = 0;
	var at = text.indexOf("\u27e8U+");
	while (at !== -1) {
		var end = text.indexOf("\u27e9", at);
		if (end === -1) break;
		if (end - at > 10) { at = text.indexOf("\u27e8U+", at + 1); continue; }
		if (at > from) frag.appendChild(document.createTextNode(text.slice(from, at)));
		var mark = document.createElement("mark");
		mark.className = "inv";
		mark.title = "an invisible or bidi character, shown escaped";
		mark.textContent = text.slice(at, end + 1);
		frag.appendChild(mark);
		from = end + 1;
		at = text.indexOf("\u27e8U+", from);
	}
	if (from < text.length) frag.appendChild(document.createTextNode(text.slice(from)));
	return frag;
}

function el(tag, cls, text) {
	var node = document.createElement(tag);
	if (cls) node.className = cls;
	if (text !== undefined) node.appendChild(marked(String(text)));
	return node;
}

function link(kind, index, text) {
	var a = el("a", "", text);
	a.href = "#" + kind + "-" + index;
	a.setAttribute("data-go", kind + ":" + index);
	return a;
}

function countLines(text) {
	var n = 1;
	for (var i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) n++;
	return n;
}

function headLines(text, count) {
	var at = -1;
	for (var n = 0; n < count; n++) { at = text.indexOf("\n", at + 1); if (at === -1) return text; }
	return text.slice(0, at);
}

function partNode(part) {
	var box = el("div", "part part-" + part.kind);
	if (part.kind === "image" && part.src) {
		var img = document.createElement("img");
		img.className = "thumb";
		img.src = part.src;
		img.alt = part.text;
		box.appendChild(img);
	}
	var pre = el("pre");
	var lines = countLines(part.text);
	if (lines <= FOLD) {
		pre.appendChild(marked(part.text));
		box.appendChild(pre);
		return box;
	}
	pre.appendChild(marked(headLines(part.text, SHOWN)));
	box.appendChild(pre);
	var more = el("button", "fold", "Show all " + fmt(lines) + " lines");
	more.type = "button";
	more.setAttribute("aria-expanded", "false");
	more.addEventListener("click", function () {
		var open = more.getAttribute("aria-expanded") === "true";
		pre.replaceChildren(marked(open ? headLines(part.text, SHOWN) : part.text));
		more.setAttribute("aria-expanded", open ? "false" : "true");
		more.textContent = open ? "Show all " + fmt(lines) + " lines" : "Show the first " + SHOWN + " lines";
	});
	box.appendChild(more);
	return box;
}

function body(parts, into) {
	if (parts.length === 0) into.appendChild(el("p", "meta", "(no content)"));
	for (var i = 0; i < parts.length; i++) into.appendChild(partNode(parts[i]));
}

function outputNode(i) {
	var item = data.output[i];
	var li = el("li");
	var card = el("article", "msg role-" + roleClass(item.role));
	card.id = "out-" + i;
	card.tabIndex = -1;
	card.setAttribute("aria-labelledby", "out-" + i + "-h");
	var h = el("h3", "", "#" + i + " " + item.role);
	h.id = "out-" + i + "-h";
	card.appendChild(h);
	var facts = [];
	if (item.meta) facts.push(item.meta);
	facts.push(fmt(item.chars) + " chars", "~" + fmt(item.tokens) + " tokens");
	card.appendChild(el("p", "meta", facts.join(" \u00b7 ")));
	var src = el("p", "src");
	if (item.source >= 0) {
		var from = data.history[item.source];
		src.appendChild(document.createTextNode("from "));
		src.appendChild(link("hist", item.source, "history [" + item.source + "] " + from.role + (from.entry ? " \u00b7 entry " + from.entry : "")));
	} else src.appendChild(document.createTextNode("added by a post-conversion hook"));
	card.appendChild(src);
	if (item.note) card.appendChild(el("p", "meta", item.note));
	body(item.parts, card);
	li.appendChild(card);
	return li;
}

function historyNode(h) {
	var item = data.history[h];
	var box = el("article", "hmsg" + (item.dropped ? " dropped" : ""));
	box.id = "hist-" + h;
	box.tabIndex = -1;
	box.setAttribute("aria-labelledby", "hist-" + h + "-h");
	var head = el("h3", "", "[" + h + "] " + item.role);
	head.id = "hist-" + h + "-h";
	box.appendChild(head);
	var fate = el("p", "fate");
	if (item.outputs.length > 0) {
		fate.appendChild(document.createTextNode("\u2192 "));
		for (var o = 0; o < item.outputs.length; o++) {
			if (o > 0) fate.appendChild(document.createTextNode(", "));
			fate.appendChild(link("out", item.outputs[o], "#" + item.outputs[o]));
		}
		fate.appendChild(document.createTextNode(" "));
	}
	fate.appendChild(marked(item.fate));
	box.appendChild(fate);
	for (var e = 0; e < item.errors.length; e++) box.appendChild(el("p", "meta", "\u21b3 " + item.errors[e]));
	if (item.parts) body(item.parts, box);
	else body(data.output[item.sameAs].parts, box);
	return box;
}

function rowNode(r) {
	var row = data.rows[r];
	var li = el("li");
	var box = el("div", "row" + (row.mark || row.branches || row.state ? " marked" : ""));
	box.id = "row-" + r;
	var facts = [];
	if (row.entry) facts.push("entry " + row.entry);
	if (row.type) facts.push(row.type);
	var line = el("p", "entry");
	if (row.mark) line.appendChild(el("span", "tag", row.mark));
	if (row.branches) line.appendChild(el("span", "tag", "branch point: " + row.branches + " children"));
	line.appendChild(marked(facts.join(" \u00b7 ")));
	if (row.text) line.appendChild(marked(" \u00b7 " + row.text));
	if (facts.length > 0 || row.text || row.mark || row.branches) box.appendChild(line);
	if (row.state) box.appendChild(el("p", "fate", row.state));
	for (var i = 0; i < row.history.length; i++) box.appendChild(historyNode(row.history[i]));
	li.appendChild(box);
	return li;
}

function column(name, count, render, label) {
	var section = document.getElementById(name);
	var pager = el("div", "pager");
	var prev = el("button", "", "Previous page");
	var next = el("button", "", "Next page");
	var where = el("span");
	where.setAttribute("aria-live", "polite");
	prev.type = next.type = "button";
	pager.appendChild(prev); pager.appendChild(where); pager.appendChild(next);
	var list = el("ol", "list");
	list.setAttribute("aria-label", label);
	section.appendChild(pager);
	section.appendChild(list);
	var state = { page: -1, count: count };
	var pages = Math.max(1, Math.ceil(count / PAGE));
	state.show = function (page) {
		if (page === state.page) return;
		state.page = page;
		var start = page * PAGE;
		var end = Math.min(count, start + PAGE);
		var frag = document.createDocumentFragment();
		for (var i = start; i < end; i++) frag.appendChild(render(i));
		list.replaceChildren(frag);
		where.textContent = count === 0 ? "none" : fmt(start + 1) + "\u2013" + fmt(end) + " of " + fmt(count) + " (page " + (page + 1) + " of " + pages + ")";
		prev.disabled = page === 0;
		next.disabled = page >= pages - 1;
	};
	prev.addEventListener("click", function () { state.show(Math.max(0, state.page - 1)); });
	next.addEventListener("click", function () { state.show(Math.min(pages - 1, state.page + 1)); });
	state.show(0);
	return state;
}

var rowOf = new Array(data.history.length);
for (var r = 0; r < data.rows.length; r++) for (var k = 0; k < data.rows[r].history.length; k++) rowOf[data.rows[r].history[k]] = r;

var outputs = column("output", data.output.length, outputNode, "Model messages");
var histories = column("history", data.rows.length, rowNode, "History entries");
var current = -1;

function go(kind, index) {
	if (kind === "out") outputs.show(Math.floor(index / PAGE));
	else histories.show(Math.floor(rowOf[index] / PAGE));
	var target = document.getElementById(kind + "-" + index);
	if (!target) return;
	if (kind === "out") current = index;
	target.scrollIntoView({ block: "center" });
	target.focus({ preventScroll: true });
	target.classList.add("flash");
	setTimeout(function () { target.classList.remove("flash"); }, 1200);
}

document.addEventListener("click", function (event) {
	var a = event.target.closest ? event.target.closest("a[data-go]") : null;
	if (!a) return;
	var go_ = a.getAttribute("data-go").split(":");
	event.preventDefault();
	go(go_[0], Number(go_[1]));
});

`;

/** What runs once the page's functions are declared: the search box, the keys, the header, the sections. */
const START = String.raw`document.getElementById("search").addEventListener("submit", function (event) { event.preventDefault(); search(document.getElementById("q").value); });
var timer = 0;
document.getElementById("q").addEventListener("input", function () {
	clearTimeout(timer);
	timer = setTimeout(function () { search(document.getElementById("q").value); }, 250);
});

document.addEventListener("keydown", function (event) {
	var typing = event.target && (event.target.tagName === "INPUT" || event.target.tagName === "TEXTAREA");
	if (event.key === "Escape" && typing) { event.target.value = ""; search(""); event.target.blur(); return; }
	if (typing || event.ctrlKey || event.metaKey || event.altKey) return;
	if (event.key === "/") { event.preventDefault(); document.getElementById("q").focus(); }
	else if (event.key === "j" && data.output.length > 0) go("out", Math.min(data.output.length - 1, current + 1));
	else if (event.key === "k" && data.output.length > 0) go("out", Math.max(0, current - 1));
});
document.addEventListener("focusin", function (event) {
	var id = event.target && event.target.id;
	if (id && id.indexOf("out-") === 0 && id.indexOf("-h") === -1) current = Number(id.slice(4));
});

document.title = data.title + " \u2014 what the model sees";
document.getElementById("title").appendChild(marked(data.title));
var facts = document.getElementById("facts");
for (var f = 0; f < data.facts.length; f++) facts.appendChild(el("li", "", data.facts[f]));
var foot = document.getElementById("footer-lines");
for (var l = 0; l < data.footer.length; l++) foot.appendChild(el("p", "", data.footer[l]));
chart();
taps();
notSent();
problems();
document.body.setAttribute("data-ready", "true");
`;

/** The whole script: the helpers and columns, the sections, then what runs on load, in one scope. */
export const PAGE_SCRIPT = `(function () {\n"use strict";\n${CORE}${PAGE_SECTIONS}${START}})();\n`;
