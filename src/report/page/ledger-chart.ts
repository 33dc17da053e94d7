/// <reference lib="dom" />
/**
 * "What each request was billed": the request ledger as one chart, a bar per recorded request (or
 * per run of requests, at most 400 bars) of its cached, written and uncached prompt tokens as the
 * session recorded them, the modeled ones of another configuration as a line over them, and each
 * prefix break marked with its cause; then the breaks as a list. Without bills, why there is no
 * chart. Page code: see script.ts for the rules it keeps.
 */
import type { LedgerBar, ReportData } from "../report-types.js";
import type { Markup } from "./markup.js";

/** Draws the ledger chart into `#ledger`. */
export function ledgerChart(data: ReportData, m: Markup): void {
	const BARS = 400;
	/** Breaks labelled in the drawing itself; past this, each has its tooltip and its line in the list. */
	const LABELLED = 12;
	const LISTED = 100;
	const W = 800;
	const H = 160;
	const box = document.getElementById("ledger") as HTMLElement;
	const summary = data.ledger;
	const rows = data.requests;
	if (summary.why !== undefined || rows.length === 0) {
		const why = m.el("p", "meta", `No ledger chart: ${summary.why || "the session recorded no request"}.`);
		why.id = "ledger-why";
		box.appendChild(why);
		return;
	}
	const usd = (cost: number | null | undefined): string =>
		cost === null || cost === undefined ? "a cost not recorded" : `$${cost.toFixed(cost >= 1 ? 2 : 4)}`;
	const head = m.el(
		"p",
		"",
		`${m.fmt(summary.requests || 0)} requests, ${m.fmt(summary.billed || 0)} with a bill; ${m.fmt(summary.breaks || 0)} prefix breaks, ${m.fmt(summary.expired || 0)} expired caches, ${m.fmt(summary.unexplained || 0)} unexplained misses. Recorded: ${usd(summary.recordedCost)} (${summary.counters ? summary.counters.recorded : "the bill"}).`,
	);
	head.id = "ledger-summary";
	box.appendChild(head);
	const modeledToo = summary.asSent === false;
	box.appendChild(
		m.el(
			"p",
			"meta",
			modeledToo
				? `Modeled with ${summary.configuration}: ${usd(summary.modeledCost)} (${summary.counters ? summary.counters.modeled : "modeled"}), the dashed line.`
				: `Converted ${summary.configuration}: modeled equals recorded.`,
		),
	);

	const n = rows.length;
	const per = Math.ceil(n / BARS);
	const count = Math.ceil(n / per);
	const slot = W / count;
	const sum = (v: [number, number, number] | null): number => (v === null ? 0 : v[0] + v[1] + v[2]);
	// Each bar: the mean of its requests' recorded parts, the mean modeled total, its first break.
	const bars: {
		first: number;
		end: number;
		parts: number[];
		modeled: number;
		broke: LedgerBar | null;
		breaks: number;
	}[] = [];
	let top = 1;
	for (let b = 0; b < count; b++) {
		const first = b * per;
		const end = Math.min(n, first + per);
		const parts = [0, 0, 0];
		let modeled = 0;
		let broke: LedgerBar | null = null;
		let breaks = 0;
		for (let r = first; r < end; r++) {
			const row = rows[r] as LedgerBar;
			if (row.recorded !== null)
				for (let k = 0; k < 3; k++) parts[k] = (parts[k] as number) + (row.recorded[k] as number);
			modeled += sum(row.modeled);
			if (row.breakAt !== null) {
				breaks++;
				if (broke === null) broke = row;
			}
		}
		for (let k = 0; k < 3; k++) parts[k] = (parts[k] as number) / (end - first);
		modeled /= end - first;
		const total = (parts[0] as number) + (parts[1] as number) + (parts[2] as number);
		if (total > top) top = total;
		if (modeledToo && modeled > top) top = modeled;
		bars.push({ first, end, parts, modeled, broke, breaks });
	}

	const svg = m.svg("svg", {
		viewBox: `0 0 ${W} ${H}`,
		preserveAspectRatio: "none",
		height: H,
		class: "chart chart-ledger",
		role: "img",
		"aria-labelledby": "ledger-title",
	});
	const title = m.svg("title", { id: "ledger-title" });
	title.textContent = `Prompt tokens of each request as billed: cached (read), written and uncached, ${per === 1 ? "each bar one request" : `each bar the mean of ${per} requests`}; prefix breaks marked with their cause`;
	svg.appendChild(title);
	svg.appendChild(m.svg("line", { x1: 0, y1: H, x2: W, y2: H, class: "axis" }));
	const LABEL_ROOM = 14;
	const scale = (tokens: number): number => (tokens / top) * (H - LABEL_ROOM - 2);
	const NAMES = ["cached (read)", "written", "uncached"];
	const CLASSES = ["fill-read", "fill-write", "fill-input"];
	let points = "";
	let labelled = 0;
	/** Where the last label was drawn: labels closer than this overlap, and are left to the tooltip and the list. */
	const LABEL_GAP = 120;
	let lastLabel = -LABEL_GAP;
	for (let b = 0; b < bars.length; b++) {
		const bar = bars[b] as (typeof bars)[number];
		let y = H;
		const what = bar.end - bar.first === 1 ? `request #${bar.first}` : `requests #${bar.first}\u2013#${bar.end - 1}`;
		for (let k = 0; k < 3; k++) {
			const height = scale(bar.parts[k] as number);
			if (height <= 0) continue;
			y -= height;
			const rect = m.svg("rect", {
				x: b * slot,
				y,
				width: Math.max(1, slot - (slot > 3 ? 1 : 0)),
				height,
				class: CLASSES[k] as string,
			});
			const tip = m.svg("title", {});
			tip.textContent = `${what}: ${m.fmt(Math.round(bar.parts[k] as number))} ${NAMES[k]} tokens${bar.end - bar.first > 1 ? " (mean)" : ""}`;
			rect.appendChild(tip);
			svg.appendChild(rect);
		}
		if (modeledToo)
			points += `${(b * slot).toFixed(1)},${(H - scale(bar.modeled)).toFixed(1)} ${((b + 1) * slot).toFixed(1)},${(H - scale(bar.modeled)).toFixed(1)} `;
		if (bar.broke !== null) {
			const x = b * slot + slot / 2;
			const cause = bar.broke.cause || "unknown";
			const mark = m.svg("line", { x1: x, y1: LABEL_ROOM, x2: x, y2: H, class: "break-line" });
			mark.setAttribute("data-cause", cause);
			const tip = m.svg("title", {});
			tip.textContent = `${what}: the prefix breaks at message ${bar.broke.breakAt}: ${cause}${bar.breaks > 1 ? ` (and ${bar.breaks - 1} more breaks)` : ""}`;
			mark.appendChild(tip);
			svg.appendChild(mark);
			if (labelled < LABELLED && x - lastLabel >= LABEL_GAP) {
				labelled++;
				lastLabel = x;
				const text = m.svg("text", { x, y: LABEL_ROOM - 3, class: "break-label" });
				text.textContent = cause;
				svg.appendChild(text);
			}
		}
	}
	if (modeledToo && points !== "") svg.appendChild(m.svg("polyline", { points: points.trim(), class: "modeled" }));
	const legend = m.el("p", "legend");
	for (let k = 0; k < 3; k++) {
		legend.appendChild(m.el("span", `swatch ${CLASSES[k]}`));
		legend.appendChild(document.createTextNode(`${NAMES[k]} tokens; `));
	}
	legend.appendChild(
		document.createTextNode(
			`${per === 1 ? "each bar one request" : `each bar the mean of ${m.fmt(per)} requests`}; a vertical line is a prefix break, labelled with its cause (the breaks are listed below).`,
		),
	);
	box.appendChild(legend);
	box.appendChild(svg);

	const list = m.el("ol", "hits");
	list.id = "ledger-breaks";
	list.setAttribute("aria-label", "Prefix breaks, each with its cause");
	let listed = 0;
	let broken = 0;
	for (let r = 0; r < n; r++) {
		const row = rows[r] as LedgerBar;
		if (row.breakAt === null) continue;
		broken++;
		if (listed >= LISTED) continue;
		listed++;
		const li = m.el(
			"li",
			"",
			`request #${r} (entry ${row.entry}${row.model ? `, ${row.model}` : ""}): breaks at message ${row.breakAt}, cause ${row.cause || "unknown"}; cache ${row.cache}${row.unexplained ? "; an unexplained miss" : ""}`,
		);
		li.setAttribute("data-cause", row.cause || "");
		list.appendChild(li);
	}
	if (broken > LISTED) list.appendChild(m.el("li", "meta", `\u2026 and ${m.fmt(broken - LISTED)} more breaks`));
	if (broken === 0) list.appendChild(m.el("li", "meta", "No request broke the prompt prefix of the one before."));
	box.appendChild(list);
}
