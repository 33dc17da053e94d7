/// <reference lib="dom" />
/**
 * What the page runs: the data, the header, the two columns, the chart, the sections, the search and
 * the keys, each from its module (passed in by name, see script.ts). Page code: see script.ts for the
 * rules it keeps.
 */
import type { chart } from "./chart.js";
import type { conversation } from "./conversation.js";
import type { readData } from "./data.js";
import type { ledgerChart } from "./ledger-chart.js";
import type { markup } from "./markup.js";
import type { search } from "./search.js";
import type { sections } from "./sections.js";

/** The page's modules, each one function (see script.ts). */
export interface PageModules {
	readData: typeof readData;
	markup: typeof markup;
	conversation: typeof conversation;
	chart: typeof chart;
	ledgerChart: typeof ledgerChart;
	sections: typeof sections;
	search: typeof search;
}

/** Draws the whole page from its data; marks `<body data-ready>` when done. */
export function main(modules: PageModules): void {
	const data = modules.readData();
	const m = modules.markup();
	document.title = `${data.title} \u2014 what the model sees`;
	(document.getElementById("title") as HTMLElement).appendChild(m.marked(data.title));
	const facts = document.getElementById("facts") as HTMLElement;
	for (const fact of data.facts) facts.appendChild(m.el("li", "", fact));
	const figures = document.getElementById("token-figures") as HTMLElement;
	const tokens = data.tokens;
	const figure = (f: { kind: string; tokens: number; label: string }, approx: boolean): void => {
		const li = m.el("li", "figure", `${approx ? "~" : ""}${m.fmt(f.tokens)} tokens: ${f.label}`);
		li.setAttribute("data-kind", f.kind);
		li.setAttribute("data-tokens", String(f.tokens));
		figures.appendChild(li);
	};
	figure(tokens.estimate, true);
	if (tokens.calibrated) figure(tokens.calibrated, true);
	if (tokens.lastBilled) figure(tokens.lastBilled, false);
	if (tokens.note) figures.appendChild(m.el("li", "figure-note", tokens.note));
	const foot = document.getElementById("footer-lines") as HTMLElement;
	for (const line of data.footer) foot.appendChild(m.el("p", "", line));
	const columns = modules.conversation(data, m);
	modules.chart(data, m, columns.go);
	modules.ledgerChart(data, m);
	modules.sections(data, m);
	const find = modules.search(data, m);

	document.addEventListener("keydown", (event) => {
		const target = event.target as HTMLElement | null;
		const typing = target !== null && (target.tagName === "INPUT" || target.tagName === "TEXTAREA");
		if (event.key === "Escape" && typing) {
			(target as HTMLInputElement).value = "";
			find("");
			(target as HTMLInputElement).blur();
			return;
		}
		if (typing || event.ctrlKey || event.metaKey || event.altKey) return;
		const last = data.output.length - 1;
		if (event.key === "/") {
			event.preventDefault();
			(document.getElementById("q") as HTMLElement).focus();
		} else if (event.key === "j" && last >= 0) columns.go("out", Math.min(last, columns.current() + 1));
		else if (event.key === "k" && last >= 0) columns.go("out", Math.max(0, columns.current() - 1));
	});
	document.addEventListener("focusin", (event) => {
		const target = event.target as HTMLElement | null;
		const id = target ? target.id : "";
		if (id.indexOf("out-") === 0 && id.indexOf("-h") === -1) columns.setCurrent(Number(id.slice(4)));
	});
	document.body.setAttribute("data-ready", "true");
}
