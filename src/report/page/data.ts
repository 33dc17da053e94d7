/// <reference lib="dom" />
/**
 * The report's data, read from the page's `<script type="application/json" data-part>` blocks: the
 * head first, then each list in blocks of a few megabytes (so that no block is one string as long as
 * the report). Each block is parsed once and removed. Page code: see script.ts for the rules it keeps.
 */
import type { ReportData, ReportHead, ReportList } from "../report-types.js";

/** The data of the page's blocks, in their order. */
export function readData(): ReportData {
	const data: ReportData = {
		title: "",
		facts: [],
		footer: [],
		totals: { messages: 0, history: 0, tokens: 0, chars: 0, images: 0 },
		roles: [],
		window: { why: "the report does not say" },
		tokens: { estimate: { kind: "estimate", tokens: 0, label: "" }, calibrated: null, lastBilled: null, note: null },
		ledger: { why: "the report does not say" },
		hidden: [],
		problems: [],
		output: [],
		history: [],
		rows: [],
		taps: [],
		requests: [],
	};
	const lists: Record<ReportList, unknown[]> = {
		output: data.output,
		history: data.history,
		rows: data.rows,
		taps: data.taps,
		requests: data.requests,
	};
	const blocks = document.querySelectorAll('script[type="application/json"][data-part]');
	for (const block of Array.from(blocks)) {
		const part = block.getAttribute("data-part") as string;
		const value: unknown = JSON.parse(block.textContent || "null");
		block.remove();
		if (part === "head") {
			Object.assign(data, value as ReportHead);
			continue;
		}
		const list = lists[part as ReportList];
		if (list === undefined || !Array.isArray(value)) continue;
		for (const item of value) list.push(item);
	}
	return data;
}
