/// <reference lib="dom" />
/**
 * The sections under the two columns: the post-conversion hooks with the line diff of each message
 * they changed, what was not sent, and the problems. Page code: see script.ts for the rules it keeps.
 */
import type { ReportData } from "../report-types.js";
import type { Markup } from "./markup.js";

/** Draws `#taps`, `#not-sent` and `#problems`. */
export function sections(data: ReportData, m: Markup): void {
	const SHOWN_DROPPED = 500;
	const SHOWN_PROBLEMS = 1000;

	function taps(): void {
		const box = document.getElementById("taps") as HTMLElement;
		if (data.taps.length === 0) {
			box.appendChild(m.el("p", "meta", "No post-conversion hook ran."));
			return;
		}
		const list = m.el("ol", "list");
		for (const tap of data.taps) {
			const li = m.el("li", "row");
			li.appendChild(m.el("h3", "", `${tap.hook} \u00b7 ${tap.plugin}: ${tap.summary}`));
			if (!tap.changes && tap.summary !== "changed nothing") {
				li.appendChild(m.el("p", "meta", "(the diff per message is in the report convert-to-llm --html makes)"));
			}
			for (const change of tap.changes || []) {
				const details = m.el("details");
				details.appendChild(m.el("summary", "", `#${change.index} ${change.role} ${change.change}`));
				const diff = m.el("pre", "diff");
				for (const [op, text] of change.diff) {
					const cls = op === "+" ? "d-add" : op === "-" ? "d-del" : op === "\u2026" ? "d-fold" : "d-same";
					diff.appendChild(m.el("span", cls, `${op === "=" ? " " : op} ${text}`));
				}
				details.appendChild(diff);
				li.appendChild(details);
			}
			list.appendChild(li);
		}
		box.appendChild(list);
	}

	function notSent(): void {
		const box = document.getElementById("not-sent") as HTMLElement;
		const list = m.el("ul", "hits");
		list.setAttribute("aria-label", "History messages and entries not sent");
		for (const hidden of data.hidden) list.appendChild(m.el("li", "", hidden));
		let dropped = 0;
		for (let h = 0; h < data.history.length; h++) {
			const item = data.history[h] as ReportData["history"][number];
			if (!item.dropped) continue;
			dropped++;
			if (dropped > SHOWN_DROPPED) continue;
			const li = m.el("li");
			li.appendChild(m.link("hist", h, `[${h}] ${item.role}`));
			li.appendChild(m.marked(`: ${item.fate}`));
			list.appendChild(li);
		}
		if (dropped > SHOWN_DROPPED) {
			list.appendChild(m.el("li", "meta", `\u2026 and ${m.fmt(dropped - SHOWN_DROPPED)} more`));
		}
		box.appendChild(
			m.el(
				"p",
				"meta",
				`${m.fmt(dropped)} history messages dropped, ${m.fmt(data.hidden.length)} entries hidden by context_edit`,
			),
		);
		box.appendChild(list);
	}

	function problems(): void {
		const box = document.getElementById("problems") as HTMLElement;
		if (data.problems.length === 0) {
			box.appendChild(m.el("p", "meta", "None."));
			return;
		}
		const list = m.el("ul");
		for (let i = 0; i < data.problems.length && i < SHOWN_PROBLEMS; i++) {
			list.appendChild(m.el("li", "", data.problems[i]));
		}
		box.appendChild(list);
	}

	taps();
	notSent();
	problems();
}
