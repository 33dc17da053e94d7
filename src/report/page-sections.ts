/**
 * The report page's sections besides the two columns, as script text that runs in the page
 * script's scope (see page-script.ts: it uses its `data`, `el`, `marked`, `link`, `fmt` and `go`):
 * the token chart (inline SVG) and its per-role table, the post-conversion hooks with their diffs,
 * what was not sent, the problems, and the search. Every string is inserted as text.
 */
export const PAGE_SECTIONS = String.raw`function svg(tag, attrs) {
	var node = document.createElementNS("http://www.w3.org/2000/svg", tag);
	for (var key in attrs) node.setAttribute(key, String(attrs[key]));
	return node;
}

function chart() {
	var box = document.getElementById("chart");
	var n = data.output.length;
	var total = 0;
	for (var i = 0; i < n; i++) total += data.output[i].tokens;
	var summary = el("p", "", "~" + fmt(total) + " tokens across " + fmt(n) + " model messages (chars/4 as pi estimates, 1,200 per image)");
	summary.id = "chart-total";
	summary.setAttribute("data-tokens", String(total));
	box.appendChild(summary);
	var W = 800, H = 160, bars = Math.min(n, 400);
	var sums = [], roles = [], max = 0;
	for (var b = 0; b < bars; b++) {
		var from = Math.floor((b * n) / bars), to = Math.floor(((b + 1) * n) / bars), sum = 0, top = -1, role = "other";
		for (var m = from; m < to; m++) {
			sum += data.output[m].tokens;
			if (data.output[m].tokens > top) { top = data.output[m].tokens; role = roleClass(data.output[m].role); }
		}
		sums.push([from, to, sum]); roles.push(role);
		if (sum > max) max = sum;
	}
	var plot = svg("svg", { viewBox: "0 0 " + W + " " + H, preserveAspectRatio: "none", height: H, class: "chart", role: "img", "aria-labelledby": "chart-title" });
	var title = svg("title", { id: "chart-title" });
	title.textContent = "Estimated tokens per model message, " + fmt(n) + " messages, largest bar ~" + fmt(max) + " tokens";
	plot.appendChild(title);
	plot.appendChild(svg("line", { x1: 0, y1: H, x2: W, y2: H, class: "axis" }));
	var width = bars === 0 ? 0 : W / bars;
	for (var c = 0; c < bars; c++) {
		var height = max === 0 ? 0 : Math.max(1, (sums[c][2] / max) * (H - 8));
		var rect = svg("rect", { x: c * width, y: H - height, width: Math.max(1, width - 1), height: height, class: "fill-" + roles[c], "data-first": sums[c][0] });
		var tip = svg("title", {});
		tip.textContent = (sums[c][1] - sums[c][0] === 1 ? "#" + sums[c][0] : "#" + sums[c][0] + "\u2013#" + (sums[c][1] - 1)) + ": ~" + fmt(sums[c][2]) + " tokens";
		rect.appendChild(tip);
		plot.appendChild(rect);
	}
	plot.addEventListener("click", function (event) {
		var first = event.target.getAttribute && event.target.getAttribute("data-first");
		if (first !== null && first !== undefined) go("out", Number(first));
	});
	box.appendChild(plot);
	box.appendChild(el("p", "meta", "Bars from message #0 (left) to #" + Math.max(0, n - 1) + " (right)" + (bars < n ? ", each the sum of " + fmt(Math.ceil(n / bars)) + " or fewer messages" : "") + "; the tallest is ~" + fmt(max) + " tokens. Click a bar to go to its message."));
	var table = el("table");
	table.id = "roles";
	var caption = el("caption", "", "Tokens per role");
	table.appendChild(caption);
	var head = el("tr");
	head.appendChild(el("th", "", "role")); head.appendChild(el("th", "", "messages")); head.appendChild(el("th", "", "~tokens")); head.appendChild(el("th", "", "share"));
	for (var q = 0; q < head.children.length; q++) head.children[q].setAttribute("scope", "col");
	var thead = el("thead"); thead.appendChild(head); table.appendChild(thead);
	var tbody = el("tbody");
	for (var j = 0; j < data.roles.length; j++) {
		var role = data.roles[j];
		var tr = el("tr");
		var name = el("td");
		name.appendChild(el("span", "swatch bg-" + roleClass(role.role)));
		name.appendChild(marked(role.role));
		tr.appendChild(name);
		tr.appendChild(el("td", "", fmt(role.messages)));
		tr.appendChild(el("td", "", fmt(role.tokens)));
		tr.appendChild(el("td", "", total === 0 ? "\u2013" : ((role.tokens / total) * 100).toFixed(1) + "%"));
		tbody.appendChild(tr);
	}
	table.appendChild(tbody);
	box.appendChild(table);
}

function taps() {
	var box = document.getElementById("taps");
	if (data.taps.length === 0) { box.appendChild(el("p", "meta", "No post-conversion hook ran.")); return; }
	var list = el("ol", "list");
	for (var t = 0; t < data.taps.length; t++) {
		var tap = data.taps[t];
		var li = el("li", "row");
		li.appendChild(el("h3", "", tap.hook + " \u00b7 " + tap.plugin + ": " + tap.summary));
		var changes = tap.changes || [];
		if (!tap.changes && tap.summary !== "changed nothing") li.appendChild(el("p", "meta", "(the diff per message is in the report convert-to-llm --html makes)"));
		for (var c = 0; c < changes.length; c++) {
			var change = changes[c];
			var details = el("details");
			details.appendChild(el("summary", "", "#" + change.index + " " + change.role + " " + change.change));
			var diff = el("pre", "diff");
			for (var d = 0; d < change.diff.length; d++) {
				var op = change.diff[d][0];
				var cls = op === "+" ? "d-add" : op === "-" ? "d-del" : op === "\u2026" ? "d-fold" : "d-same";
				diff.appendChild(el("span", cls, (op === "=" ? " " : op) + " " + change.diff[d][1]));
			}
			details.appendChild(diff);
			li.appendChild(details);
		}
		list.appendChild(li);
	}
	box.appendChild(list);
}

function notSent() {
	var box = document.getElementById("not-sent");
	var list = el("ul", "hits");
	list.setAttribute("aria-label", "History messages and entries not sent");
	for (var i = 0; i < data.hidden.length; i++) list.appendChild(el("li", "", data.hidden[i]));
	var shown = 0, dropped = 0;
	for (var h = 0; h < data.history.length; h++) {
		if (!data.history[h].dropped) continue;
		dropped++;
		if (shown++ >= 500) continue;
		var li = el("li");
		li.appendChild(link("hist", h, "[" + h + "] " + data.history[h].role));
		li.appendChild(marked(": " + data.history[h].fate));
		list.appendChild(li);
	}
	if (shown > 500) list.appendChild(el("li", "meta", "\u2026 and " + fmt(shown - 500) + " more"));
	box.appendChild(el("p", "meta", fmt(dropped) + " history messages dropped, " + fmt(data.hidden.length) + " entries hidden by context_edit"));
	box.appendChild(list);
}

function problems() {
	var box = document.getElementById("problems");
	if (data.problems.length === 0) { box.appendChild(el("p", "meta", "None.")); return; }
	var list = el("ul");
	for (var i = 0; i < data.problems.length && i < 1000; i++) list.appendChild(el("li", "", data.problems[i]));
	box.appendChild(list);
}

var haystack = null;
function search(query) {
	var hits = document.getElementById("hits");
	var status = document.getElementById("hit-count");
	hits.replaceChildren();
	var q = query.trim().toLowerCase();
	if (q === "") { status.textContent = ""; return; }
	if (haystack === null) {
		var text = function (parts) { var s = ""; for (var i = 0; i < parts.length; i++) s += parts[i].text + "\n"; return s.toLowerCase(); };
		haystack = { out: data.output.map(function (m) { return m.role.toLowerCase() + "\n" + text(m.parts); }), hist: data.history.map(function (m) { return m.role.toLowerCase() + "\n" + (m.parts ? text(m.parts) : ""); }) };
	}
	var found = 0;
	var add = function (kind, list, label) {
		for (var i = 0; i < list.length; i++) {
			if (list[i].indexOf(q) === -1) continue;
			found++;
			if (found > 200) continue;
			var li = el("li");
			li.appendChild(link(kind, i, label(i)));
			hits.appendChild(li);
		}
	};
	add("out", haystack.out, function (i) { return "model message #" + i + " " + data.output[i].role; });
	add("hist", haystack.hist, function (i) { return "history [" + i + "] " + data.history[i].role; });
	status.textContent = found === 0 ? "no match" : fmt(found) + (found === 1 ? " match" : " matches") + (found > 200 ? " (first 200 listed)" : "");
}

`;
