/// <reference lib="dom" />
/**
 * The history and the model input side by side, at one position: each row is an entry of the
 * session's path (or a history message) with, beside it, the model messages it became. A page of
 * rows is drawn at a time, so a 100,000-entry session opens without drawing all of it; going to a
 * message (a link, a search hit, a bar, `j` / `k`) turns to its row's page, where its history entry
 * is beside it. Page code: see script.ts for the rules it keeps.
 */
import type { HistoryItem, OutputItem, ReportData, ReportPart } from "../report-types.js";
import type { Markup } from "./markup.js";

/** Moving between the messages of the two columns. */
export interface Conversation {
	/** Turns to the row of model message (`out`) or history message (`hist`) `index`, and focuses it. */
	go(kind: "out" | "hist", index: number): void;
	/** The model message `j` / `k` move from: the last one gone to or focused. */
	current(): number;
	setCurrent(index: number): void;
}

/** Draws the rows into `#conversation` and answers the links of the whole page. */
export function conversation(data: ReportData, m: Markup): Conversation {
	const PAGE = 100;
	const FOLD = 24;
	const SHOWN = 12;
	const rows = data.rows;
	// A history with no row (none given) still has a row for what a hook added.
	const rowCount = rows.length > 0 ? rows.length : data.output.length > 0 ? 1 : 0;
	const rowOfHistory = new Int32Array(data.history.length).fill(-1);
	for (let r = 0; r < rows.length; r++) {
		const list = (rows[r] as (typeof rows)[number]).history;
		for (let k = 0; k < list.length; k++) rowOfHistory[list[k] as number] = r;
	}
	// Each model message beside the row of the history message it came from; one a hook added (or
	// whose source has no row) beside the model message before it.
	const rowOfOutput = new Int32Array(data.output.length);
	const outputsOf = new Map<number, number[]>();
	for (let o = 0; o < data.output.length; o++) {
		const source = (data.output[o] as OutputItem).source;
		let row = source >= 0 && source < rowOfHistory.length ? (rowOfHistory[source] as number) : -1;
		if (row < 0) row = o > 0 ? (rowOfOutput[o - 1] as number) : 0;
		rowOfOutput[o] = row;
		const list = outputsOf.get(row);
		if (list === undefined) outputsOf.set(row, [o]);
		else list.push(o);
	}
	let current = -1;

	function countLines(text: string): number {
		let n = 1;
		for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) n++;
		return n;
	}

	function headLines(text: string, count: number): string {
		let at = -1;
		for (let n = 0; n < count; n++) {
			at = text.indexOf("\n", at + 1);
			if (at === -1) return text;
		}
		return text.slice(0, at);
	}

	function partNode(part: ReportPart): HTMLElement {
		const box = m.el("div", `part part-${part.kind}`);
		if (part.kind === "image" && part.src) {
			const img = document.createElement("img");
			img.className = "thumb";
			img.src = part.src;
			img.alt = part.text;
			box.appendChild(img);
		}
		const pre = m.el("pre");
		const lines = countLines(part.text);
		box.appendChild(pre);
		if (lines <= FOLD) {
			pre.appendChild(m.marked(part.text));
			return box;
		}
		pre.appendChild(m.marked(headLines(part.text, SHOWN)));
		const more = m.el("button", "fold", `Show all ${m.fmt(lines)} lines`) as HTMLButtonElement;
		more.type = "button";
		more.setAttribute("aria-expanded", "false");
		more.addEventListener("click", () => {
			const open = more.getAttribute("aria-expanded") === "true";
			pre.replaceChildren(m.marked(open ? headLines(part.text, SHOWN) : part.text));
			more.setAttribute("aria-expanded", open ? "false" : "true");
			more.textContent = open ? `Show all ${m.fmt(lines)} lines` : `Show the first ${SHOWN} lines`;
		});
		box.appendChild(more);
		return box;
	}

	function body(parts: readonly ReportPart[], into: HTMLElement): void {
		if (parts.length === 0) into.appendChild(m.el("p", "meta", "(no content)"));
		for (const part of parts) into.appendChild(partNode(part));
	}

	function outputCard(i: number): HTMLElement {
		const item = data.output[i] as OutputItem;
		const card = m.el("article", `msg role-${m.roleClass(item.role)}`);
		card.id = `out-${i}`;
		card.tabIndex = -1;
		card.setAttribute("aria-labelledby", `out-${i}-h`);
		const h = m.el("h3", "", `#${i} ${item.role}`);
		h.id = `out-${i}-h`;
		card.appendChild(h);
		const facts: string[] = [];
		if (item.meta) facts.push(item.meta);
		facts.push(`${m.fmt(item.chars)} chars`, `~${m.fmt(item.tokens)} tokens`);
		card.appendChild(m.el("p", "meta", facts.join(" \u00b7 ")));
		if (item.changedBy && item.changedBy.length > 0) {
			const changed = m.el("p", "changed", "changed after conversion by ");
			for (let c = 0; c < item.changedBy.length; c++) {
				if (c > 0) changed.appendChild(document.createTextNode(", "));
				changed.appendChild(m.el("span", "tag", item.changedBy[c]));
			}
			card.appendChild(changed);
		}
		if (item.cleared) card.appendChild(m.el("p", "cleared-note", item.cleared));
		const src = m.el("p", "src");
		const from = item.source >= 0 ? data.history[item.source] : undefined;
		if (from !== undefined) {
			src.appendChild(document.createTextNode("from "));
			const where = `history [${item.source}] ${from.role}${from.entry ? ` \u00b7 entry ${from.entry}` : ""}`;
			src.appendChild(m.link("hist", item.source, where));
		} else src.appendChild(document.createTextNode("added by a post-conversion hook"));
		card.appendChild(src);
		if (item.note) card.appendChild(m.el("p", "meta", item.note));
		body(item.parts, card);
		return card;
	}

	function historyCard(h: number): HTMLElement {
		const item = data.history[h] as HistoryItem;
		const box = m.el("article", `hmsg${item.dropped ? " dropped" : ""}`);
		box.id = `hist-${h}`;
		box.tabIndex = -1;
		box.setAttribute("aria-labelledby", `hist-${h}-h`);
		const head = m.el("h3", "", `[${h}] ${item.role}`);
		head.id = `hist-${h}-h`;
		box.appendChild(head);
		const fate = m.el("p", "fate");
		if (item.outputs.length > 0) {
			fate.appendChild(document.createTextNode("\u2192 "));
			for (let o = 0; o < item.outputs.length; o++) {
				if (o > 0) fate.appendChild(document.createTextNode(", "));
				const out = item.outputs[o] as number;
				fate.appendChild(m.link("out", out, `#${out}`));
			}
			fate.appendChild(document.createTextNode(" "));
		}
		fate.appendChild(m.marked(item.fate));
		box.appendChild(fate);
		for (const error of item.errors) box.appendChild(m.el("p", "meta", `\u21b3 ${error}`));
		if (item.parts) body(item.parts, box);
		else {
			const beside = item.sameAs !== undefined ? item.sameAs : item.within;
			const note = m.el("p", "meta", item.sameAs !== undefined ? "sent as it is: its text is " : "its text is in ");
			if (beside !== undefined) note.appendChild(m.link("out", beside, `#${beside}`));
			note.appendChild(document.createTextNode(item.sameAs !== undefined ? "'s, beside" : ", beside, as sent"));
			box.appendChild(note);
		}
		return box;
	}

	function rowNode(r: number): HTMLElement {
		const li = m.el("li", "pair");
		li.id = `row-${r}`;
		const left = m.el("div", "side side-hist");
		const row = rows[r];
		if (row !== undefined) {
			if (row.mark || row.branches || row.state) left.classList.add("marked");
			const facts: string[] = [];
			if (row.entry) facts.push(`entry ${row.entry}`);
			if (row.type) facts.push(row.type);
			const line = m.el("p", "entry");
			if (row.mark) line.appendChild(m.el("span", "tag", row.mark));
			if (row.branches) line.appendChild(m.el("span", "tag", `branch point: ${row.branches} children`));
			line.appendChild(m.marked(facts.join(" \u00b7 ")));
			if (row.text) line.appendChild(m.marked(` \u00b7 ${row.text}`));
			if (facts.length > 0 || row.text || row.mark || row.branches) left.appendChild(line);
			if (row.state) left.appendChild(m.el("p", "fate", row.state));
			for (const h of row.history) left.appendChild(historyCard(h));
		}
		const right = m.el("div", "side side-out");
		const outs = outputsOf.get(r);
		if (outs !== undefined) for (const o of outs) right.appendChild(outputCard(o));
		li.appendChild(left);
		li.appendChild(right);
		return li;
	}

	const section = document.getElementById("conversation") as HTMLElement;
	const pager = m.el("div", "pager");
	const prev = m.el("button", "", "Previous page") as HTMLButtonElement;
	const next = m.el("button", "", "Next page") as HTMLButtonElement;
	const where = m.el("span");
	where.setAttribute("aria-live", "polite");
	prev.type = "button";
	next.type = "button";
	pager.appendChild(prev);
	pager.appendChild(where);
	pager.appendChild(next);
	const heads = m.el("div", "pair pair-head");
	heads.setAttribute("aria-hidden", "true");
	heads.appendChild(m.el("p", "side", "History (the entries on the path)"));
	heads.appendChild(m.el("p", "side", "Model input (what the provider gets)"));
	const list = m.el("ol", "list pairs");
	list.setAttribute("aria-label", "History entries, each beside the model messages it became");
	section.appendChild(pager);
	section.appendChild(heads);
	section.appendChild(list);
	const pages = Math.max(1, Math.ceil(rowCount / PAGE));
	let page = -1;

	function show(target: number): void {
		if (target === page) return;
		page = target;
		const start = page * PAGE;
		const end = Math.min(rowCount, start + PAGE);
		const frag = document.createDocumentFragment();
		for (let r = start; r < end; r++) frag.appendChild(rowNode(r));
		list.replaceChildren(frag);
		where.textContent =
			rowCount === 0
				? "none"
				: `rows ${m.fmt(start + 1)}\u2013${m.fmt(end)} of ${m.fmt(rowCount)} (page ${page + 1} of ${pages})`;
		prev.disabled = page === 0;
		next.disabled = page >= pages - 1;
	}
	prev.addEventListener("click", () => show(Math.max(0, page - 1)));
	next.addEventListener("click", () => show(Math.min(pages - 1, page + 1)));
	show(0);

	function go(kind: "out" | "hist", index: number): void {
		const row = kind === "out" ? rowOfOutput[index] : rowOfHistory[index];
		if (row === undefined || row < 0) return;
		show(Math.floor(row / PAGE));
		const target = document.getElementById(`${kind}-${index}`);
		if (!target) return;
		if (kind === "out") current = index;
		target.scrollIntoView({ block: "center" });
		target.focus({ preventScroll: true });
		target.classList.add("flash");
		setTimeout(() => target.classList.remove("flash"), 1200);
	}

	document.addEventListener("click", (event) => {
		const a = event.target instanceof Element ? event.target.closest("a[data-go]") : null;
		if (!a) return;
		const [kind, index] = (a.getAttribute("data-go") as string).split(":");
		event.preventDefault();
		go(kind === "out" ? "out" : "hist", Number(index));
	});

	return {
		go,
		current: () => current,
		setCurrent(index: number) {
			current = index;
		},
	};
}
