/// <reference lib="dom" />
/**
 * "Where the tokens go": the context as it grows, message by message, against the model's context
 * window (a line, when the window is known), and the tokens of each bar below it, by message, by turn
 * (a user message starts one) or by runs of turns, at most 400 bars; a bar of more than one message
 * zooms into it when clicked, one of a single message goes to it. Then the tokens per role. Page code:
 * see script.ts for the rules it keeps.
 */
import type { ReportData } from "../report-types.js";
import type { Markup } from "./markup.js";

/** Draws the chart into `#chart`; `go` turns to a model message. */
export function chart(data: ReportData, m: Markup, go: (kind: "out", index: number) => void): void {
	const BARS = 400;
	/** Fewer turns than this in the range: bars of even runs of messages read better. */
	const FEW_TURNS = 40;
	const W = 800;
	const H = 120;
	const box = document.getElementById("chart") as HTMLElement;
	const n = data.output.length;
	const sums = new Float64Array(n + 1);
	const turnStarts: number[] = [];
	for (let i = 0; i < n; i++) {
		const item = data.output[i] as ReportData["output"][number];
		sums[i + 1] = (sums[i] as number) + item.tokens;
		if (i === 0 || item.role === "user") turnStarts.push(i);
	}
	const total = sums[n] as number;
	const window = data.window;
	const limit = window.tokens !== undefined && window.tokens > 0 ? window.tokens : 0;

	const summary = m.el(
		"p",
		"",
		`~${m.fmt(total)} tokens across ${m.fmt(n)} model messages and ${m.fmt(n === 0 ? 0 : turnStarts.length)} turns (chars/4 as pi estimates, 1,200 per image)`,
	);
	summary.id = "chart-total";
	summary.setAttribute("data-tokens", String(total));
	summary.setAttribute("data-messages", String(n));
	box.appendChild(summary);
	const said = m.el("p", limit > 0 && total > limit ? "window over" : "window", windowText());
	said.id = "chart-window";
	if (limit > 0) said.setAttribute("data-window", String(limit));
	box.appendChild(said);

	const controls = m.el("div", "chart-controls");
	const whole = m.el("button", "", "Whole history") as HTMLButtonElement;
	const out = m.el("button", "", "Zoom out") as HTMLButtonElement;
	whole.type = "button";
	out.type = "button";
	const status = m.el("span", "meta");
	status.id = "chart-range";
	status.setAttribute("aria-live", "polite");
	controls.appendChild(whole);
	controls.appendChild(out);
	controls.appendChild(status);
	box.appendChild(controls);
	const grown = m.svg("svg", {
		viewBox: `0 0 ${W} ${H}`,
		preserveAspectRatio: "none",
		height: H,
		class: "chart chart-context",
		role: "img",
		"aria-labelledby": "chart-context-title",
	});
	const bars = m.svg("svg", {
		viewBox: `0 0 ${W} ${H}`,
		preserveAspectRatio: "none",
		height: H,
		class: "chart chart-bars",
		role: "img",
		"aria-labelledby": "chart-bars-title",
	});
	box.appendChild(m.el("p", "legend", "The context so far (estimated tokens up to each message)"));
	box.appendChild(grown);
	box.appendChild(m.el("p", "legend", "Tokens of each bar"));
	box.appendChild(bars);
	const note = m.el("p", "meta");
	box.appendChild(note);

	let from = 0;
	let to = n;

	function windowText(): string {
		if (limit <= 0) return `No context-window line: ${window.why || "the window is not known"}.`;
		const name = window.model || "the model";
		const ratio = total / limit;
		let passes = 0;
		while (passes < n && (sums[passes + 1] as number) <= limit) passes++;
		const share =
			ratio > 1
				? `${ratio.toFixed(1)}\u00d7 the window: more than the model takes in one request (the context passes the window at model message #${passes})`
				: `${(ratio * 100).toFixed(1)}% of it`;
		return `Context window of ${name}: ${m.fmt(limit)} tokens (${window.source || "its source not said"}), the dashed line. The model input is ~${m.fmt(total)} tokens, ${share}.`;
	}

	/** The first message of each bar in [from, to), and what a bar is. */
	function groups(): { starts: number[]; what: string } {
		const count = to - from;
		const starts: number[] = [];
		if (count <= BARS) {
			for (let i = from; i < to; i++) starts.push(i);
			return { starts, what: "each bar one message" };
		}
		const turns: number[] = [from];
		for (const start of turnStarts) if (start > from && start < to) turns.push(start);
		if (turns.length >= FEW_TURNS) {
			const step = Math.ceil(turns.length / BARS);
			for (let t = 0; t < turns.length; t += step) starts.push(turns[t] as number);
			return { starts, what: step === 1 ? "each bar one turn" : `each bar ${step} turns` };
		}
		for (let b = 0; b < BARS; b++) {
			const start = from + Math.floor((b * count) / BARS);
			if (starts.length === 0 || start > (starts[starts.length - 1] as number)) starts.push(start);
		}
		return { starts, what: `each bar ${m.fmt(Math.ceil(count / BARS))} or fewer messages` };
	}

	function draw(): void {
		const { starts, what } = groups();
		// Both charts share one axis: each bar an equal slot, the context line at each bar's end.
		const slot = starts.length === 0 ? 0 : W / starts.length;
		const top = Math.max(sums[to] as number, limit, 1);
		const y = (tokens: number): number => H - (tokens / top) * (H - 6);
		grown.replaceChildren();
		const grownTitle = m.svg("title", { id: "chart-context-title" });
		grownTitle.textContent = `Estimated tokens of the context up to each model message, #${from} to #${Math.max(from, to - 1)}${limit > 0 ? `, with the ${m.fmt(limit)}-token context window as a line` : ""}`;
		grown.appendChild(grownTitle);
		grown.appendChild(m.svg("line", { x1: 0, y1: H, x2: W, y2: H, class: "axis" }));
		let points = `0,${y(sums[from] as number).toFixed(1)}`;
		for (let g = 0; g < starts.length; g++) {
			const end = g + 1 < starts.length ? (starts[g + 1] as number) : to;
			points += ` ${((g + 1) * slot).toFixed(1)},${y(sums[end] as number).toFixed(1)}`;
		}
		grown.appendChild(m.svg("polyline", { points, class: "grown" }));
		if (limit > 0) {
			const at = y(limit).toFixed(1);
			grown.appendChild(m.svg("line", { x1: 0, y1: at, x2: W, y2: at, class: "window-line" }));
		}
		bars.replaceChildren();
		let tallest = 0;
		const heights: number[] = [];
		for (let g = 0; g < starts.length; g++) {
			const end = g + 1 < starts.length ? (starts[g + 1] as number) : to;
			const sum = (sums[end] as number) - (sums[starts[g] as number] as number);
			heights.push(sum);
			if (sum > tallest) tallest = sum;
		}
		const barsTitle = m.svg("title", { id: "chart-bars-title" });
		barsTitle.textContent = `Estimated tokens per bar, ${what}, largest bar ~${m.fmt(tallest)} tokens`;
		bars.appendChild(barsTitle);
		bars.appendChild(m.svg("line", { x1: 0, y1: H, x2: W, y2: H, class: "axis" }));
		for (let g = 0; g < starts.length; g++) {
			const first = starts[g] as number;
			const end = g + 1 < starts.length ? (starts[g + 1] as number) : to;
			const sum = heights[g] as number;
			const height = tallest === 0 ? 0 : Math.max(1, (sum / tallest) * (H - 8));
			let role = "other";
			let biggest = -1;
			for (let i = first; i < end; i++) {
				const item = data.output[i] as ReportData["output"][number];
				if (item.tokens > biggest) {
					biggest = item.tokens;
					role = m.roleClass(item.role);
				}
			}
			const rect = m.svg("rect", {
				x: g * slot,
				y: H - height,
				width: Math.max(1, slot - (slot > 3 ? 1 : 0)),
				height,
				class: `fill-${role}`,
				"data-first": first,
				"data-end": end,
			});
			const tip = m.svg("title", {});
			tip.textContent = `${end - first === 1 ? `#${first}` : `#${first}\u2013#${end - 1}`}: ~${m.fmt(sum)} tokens${end - first > 1 ? " (click to zoom in)" : ""}`;
			rect.appendChild(tip);
			bars.appendChild(rect);
		}
		status.textContent =
			n === 0
				? "no model messages"
				: `messages #${from}\u2013#${to - 1} of ${m.fmt(n)}, ${what}${from > 0 || to < n ? " (zoomed in)" : ""}`;
		note.textContent = `From #${from} (left) to #${Math.max(from, to - 1)} (right); the tallest bar is ~${m.fmt(tallest)} tokens. Click a bar of several messages to zoom into it, a bar of one to go to its message.`;
		whole.disabled = from === 0 && to === n;
		out.disabled = whole.disabled;
	}

	bars.addEventListener("click", (event) => {
		const rect = event.target instanceof Element ? event.target.closest("rect") : null;
		if (!rect) return;
		const first = Number(rect.getAttribute("data-first"));
		const end = Number(rect.getAttribute("data-end"));
		if (end - first <= 1) {
			go("out", first);
			return;
		}
		from = first;
		to = end;
		draw();
	});
	whole.addEventListener("click", () => {
		from = 0;
		to = n;
		draw();
	});
	out.addEventListener("click", () => {
		const span = (to - from) * 4;
		const middle = Math.floor((from + to) / 2);
		from = Math.max(0, middle - Math.floor(span / 2));
		to = Math.min(n, from + span);
		from = Math.max(0, to - span);
		draw();
	});

	/** The messages and estimated tokens of each role, as a table. */
	function rolesTable(): void {
		const table = m.el("table");
		table.id = "roles";
		table.appendChild(m.el("caption", "", "Tokens per role"));
		const head = m.el("tr");
		for (const name of ["role", "messages", "~tokens", "share"]) {
			const th = m.el("th", "", name);
			th.setAttribute("scope", "col");
			head.appendChild(th);
		}
		const thead = m.el("thead");
		thead.appendChild(head);
		table.appendChild(thead);
		const tbody = m.el("tbody");
		for (const role of data.roles) {
			const tr = m.el("tr");
			const name = m.el("td");
			name.appendChild(m.el("span", `swatch bg-${m.roleClass(role.role)}`));
			name.appendChild(m.marked(role.role));
			tr.appendChild(name);
			tr.appendChild(m.el("td", "", m.fmt(role.messages)));
			tr.appendChild(m.el("td", "", m.fmt(role.tokens)));
			tr.appendChild(m.el("td", "", total === 0 ? "\u2013" : `${((role.tokens / total) * 100).toFixed(1)}%`));
			tbody.appendChild(tr);
		}
		table.appendChild(tbody);
		box.appendChild(table);
	}

	draw();
	rolesTable();
}
