/// <reference lib="dom" />
/**
 * The search box: every model message's and history message's text, lower-cased once on the first
 * search, looked through with `indexOf` (linear in the text; no pattern from the query). Hits are
 * links, at most 200 listed. Page code: see script.ts for the rules it keeps.
 */
import type { ReportData, ReportPart } from "../report-types.js";
import type { Markup } from "./markup.js";

/** Wires `#search`, `#q`, `#hits` and `#hit-count`; returns the search, for `Esc` to clear. */
export function search(data: ReportData, m: Markup): (query: string) => void {
	const LISTED = 200;
	let haystack: { out: string[]; hist: string[] } | null = null;

	function text(parts: readonly ReportPart[] | undefined): string {
		let s = "";
		if (parts) for (const part of parts) s += `${part.text}\n`;
		return s.toLowerCase();
	}

	function find(query: string): void {
		const hits = document.getElementById("hits") as HTMLElement;
		const status = document.getElementById("hit-count") as HTMLElement;
		hits.replaceChildren();
		const q = query.trim().toLowerCase();
		if (q === "") {
			status.textContent = "";
			return;
		}
		if (haystack === null) {
			haystack = {
				out: data.output.map((item) => `${item.role.toLowerCase()}\n${text(item.parts)}`),
				hist: data.history.map((item) => `${item.role.toLowerCase()}\n${text(item.parts)}`),
			};
		}
		let found = 0;
		const add = (kind: "out" | "hist", list: readonly string[], label: (i: number) => string): void => {
			for (let i = 0; i < list.length; i++) {
				if ((list[i] as string).indexOf(q) === -1) continue;
				found++;
				if (found > LISTED) continue;
				const li = m.el("li");
				li.appendChild(m.link(kind, i, label(i)));
				hits.appendChild(li);
			}
		};
		const { out, hist } = haystack;
		add("out", out, (i) => `model message #${i} ${(data.output[i] as ReportData["output"][number]).role}`);
		add("hist", hist, (i) => `history [${i}] ${(data.history[i] as ReportData["history"][number]).role}`);
		status.textContent =
			found === 0
				? "no match"
				: `${m.fmt(found)}${found === 1 ? " match" : " matches"}${found > LISTED ? ` (first ${LISTED} listed)` : ""}`;
	}

	const form = document.getElementById("search") as HTMLFormElement;
	const input = document.getElementById("q") as HTMLInputElement;
	form.addEventListener("submit", (event) => {
		event.preventDefault();
		find(input.value);
	});
	let timer = 0;
	input.addEventListener("input", () => {
		window.clearTimeout(timer);
		timer = window.setTimeout(() => find(input.value), 250);
	});
	return find;
}
