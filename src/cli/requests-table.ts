/**
 * `--requests`: the request ledger as a table for a terminal. One line per request; columns are
 * measured in terminal columns (string-width, through the view's `Columns`) and, on a terminal, the
 * least needed ones are left out until the table fits its width (each line is then cut to it as the
 * view's are). Every value from the session or a plugin (entry ids, model names, a plugin's name as
 * a break's cause) is shown as the view shows history text: controls replaced, invisible characters
 * marked. Each figure says which counter made it, in the legend under the table.
 */
import type { LedgerRow, RequestLedger } from "../ledger/ledger-types.js";
import type { Columns } from "../view/columns.js";
import { fitStyled } from "../view/columns.js";
import { format, plural } from "../view/render.js";
import { label, type Style, shown } from "../view/style.js";

/** How the table is laid out. */
export interface TableOptions {
	/** The input's name, as given. */
	name: string;
	style: Style;
	columns: Columns;
	/** The terminal's width; `undefined`: not a terminal, nothing is left out or cut. */
	width: number | undefined;
}

/** One column: its header, how it aligns, its cell of a row, and how readily it is left out (higher: sooner). */
interface Column {
	header: string;
	right: boolean;
	cell(row: LedgerRow): string;
	/** 0: always shown. */
	drop: number;
	/** Colours a cell (already padded). */
	paint?(text: string, row: LedgerRow, style: Style): string;
}

const tokens = (n: number | null | undefined): string => (n === null || n === undefined ? "–" : format(n));
const dollars = (n: number | null | undefined): string => (n === null || n === undefined ? "–" : n.toFixed(4));

/** `42s`, `4m03s`, `1h12m`, `3d04h`; empty for none. */
export function duration(ms: number | null): string {
	if (ms === null) return "";
	const seconds = Math.round(ms / 1000);
	if (seconds < 60) return `${seconds}s`;
	const minutes = Math.floor(seconds / 60);
	if (minutes < 60) return `${minutes}m${String(seconds % 60).padStart(2, "0")}s`;
	const hours = Math.floor(minutes / 60);
	if (hours < 24) return `${hours}h${String(minutes % 60).padStart(2, "0")}m`;
	return `${Math.floor(hours / 24)}d${String(hours % 24).padStart(2, "0")}h`;
}

/** The namespace of this package's plugin names. */
const OWN = "convert-to-llm:";

/** A row's prefix: `kept 212`, or where it broke and why. */
function prefixCell(row: LedgerRow): string {
	const { prefix } = row;
	if (prefix.breakAt === null) return row.index === 0 ? "" : `kept ${format(prefix.kept)}`;
	// Our own plugins' names without their namespace: the column stays narrow.
	const cause = prefix.cause ?? "";
	return `break@${format(prefix.breakAt)} ${label(cause.startsWith(OWN) ? cause.slice(OWN.length) : cause)}`;
}

/** A row's miss: `!` unexplained, else what explains it. */
function missCell(row: LedgerRow): string {
	if (row.miss === null) return "";
	return row.miss.explainedBy === null ? `! ${tokens(row.miss.tokens)}` : `${row.miss.explainedBy}`;
}

function columnsOf(modeled: boolean): Column[] {
	const list: Column[] = [
		{ header: "#", right: true, cell: (row) => String(row.index), drop: 0 },
		{ header: "entry", right: false, cell: (row) => label(row.entryId), drop: 6 },
		{ header: "gap", right: true, cell: (row) => duration(row.sinceMs), drop: 5 },
		{ header: "msgs", right: true, cell: (row) => format(row.messages), drop: 9 },
		{ header: "estimated", right: true, cell: (row) => tokens(row.tokens.estimated), drop: 7 },
		{ header: "calibrated", right: true, cell: (row) => tokens(row.tokens.calibrated), drop: 8 },
		{
			header: "cache",
			right: false,
			cell: (row) => row.cache,
			drop: 0,
			paint: (text, row, style) => (row.cache === "read" ? text : style.yellow(text)),
		},
		{
			header: "prefix",
			right: false,
			cell: prefixCell,
			drop: 0,
			paint: (text, row, style) => (row.prefix.breakAt === null ? style.dim(text) : style.red(text)),
		},
		{ header: "read", right: true, cell: (row) => tokens(row.recorded?.cacheRead), drop: modeled ? 2 : 0 },
		{ header: "write", right: true, cell: (row) => tokens(row.recorded?.cacheWrite), drop: modeled ? 1 : 0 },
		{ header: "input", right: true, cell: (row) => tokens(row.recorded?.input), drop: 4 },
		{ header: "$", right: true, cell: (row) => dollars(row.recorded?.cost), drop: 0 },
	];
	if (modeled) {
		list.push(
			{ header: "→read", right: true, cell: (row) => tokens(row.modeled?.cacheRead), drop: 0 },
			{ header: "→write", right: true, cell: (row) => tokens(row.modeled?.cacheWrite), drop: 0 },
			{ header: "→input", right: true, cell: (row) => tokens(row.modeled?.input), drop: 3 },
			{ header: "→$", right: true, cell: (row) => dollars(row.modeled?.cost), drop: 0 },
		);
	}
	list.push({
		header: "miss",
		right: false,
		cell: missCell,
		drop: 0,
		paint: (text, row, style) => (row.unexplained ? style.red(style.bold(text)) : style.dim(text)),
	});
	return list;
}

/** The lines of `--requests`: a header, the table, the totals and the legend. */
export function requestsTable(ledger: RequestLedger, options: TableOptions): string[] {
	const { style, columns: measure, width } = options;
	const modeled = !ledger.configuration.asSent;
	let columns = columnsOf(modeled);
	const cells = ledger.rows.map((row) => columns.map((column) => column.cell(row)));
	let widths = columns.map((column, c) =>
		cells.reduce((most, row) => Math.max(most, measure.width(row[c] as string)), measure.width(column.header)),
	);
	// Leave out the most readily dropped column until the table fits (two spaces between columns).
	const total = () => widths.reduce((sum, w) => sum + w, 0) + 2 * (widths.length - 1);
	while (width !== undefined && total() > width) {
		let worst = -1;
		for (let c = 0; c < columns.length; c++)
			if (
				(columns[c] as Column).drop > 0 &&
				(worst < 0 || (columns[c] as Column).drop > (columns[worst] as Column).drop)
			)
				worst = c;
		if (worst < 0) break;
		columns = columns.filter((_, c) => c !== worst);
		widths = widths.filter((_, c) => c !== worst);
		for (const row of cells) row.splice(worst, 1);
	}
	const pad = (text: string, c: number): string => {
		const room = (widths[c] as number) - measure.width(text);
		const space = " ".repeat(Math.max(0, room));
		return (columns[c] as Column).right ? space + text : text + space;
	};
	const lines = [
		...headerLines(ledger, options),
		"",
		style.bold(
			columns
				.map((column, c) => pad(column.header, c))
				.join("  ")
				.trimEnd(),
		),
	];
	ledger.rows.forEach((row, r) => {
		const texts = cells[r] as string[];
		const parts = columns.map((column, c) => {
			const text = pad(texts[c] as string, c);
			return column.paint === undefined ? text : column.paint(text, row, style);
		});
		lines.push(parts.join("  ").trimEnd());
	});
	lines.push("", ...footerLines(ledger, style));
	if (width === undefined) return lines;
	return lines.map((line) => fitStyled(line, Math.max(1, width), measure));
}

function headerLines(ledger: RequestLedger, { name, style }: TableOptions): string[] {
	const { totals } = ledger;
	const facts = [
		`${plural(totals.requests, "request")} (${format(totals.billed)} billed)`,
		ledger.configuration.asSent
			? "as sent (pi's default conversion)"
			: `→ modeled with ${shown(ledger.configuration.name, 400)}`,
	];
	const models = ledger.models.map(
		(model) =>
			`${label(model.model)}: cache ${duration(model.cacheLifetimeMs)} (${model.cacheLifetimeFrom === "table" ? "pi-ai's model table" : "pi-ai's default"}), prices ${pricesFrom(model.perToken)}`,
	);
	return [style.bold(shown(name, 1000)), facts.join(style.dim(" · ")), ...models.map((line) => style.dim(line))];
}

function pricesFrom(perToken: RequestLedger["models"][number]["perToken"]): string {
	const sources = new Set(Object.values(perToken).map((price) => price?.from));
	if (sources.size === 0) return "unknown";
	if (sources.has("session")) return sources.has("table") ? "as billed, else pi-ai's model table" : "as billed";
	return "from pi-ai's model table";
}

function footerLines(ledger: RequestLedger, style: Style): string[] {
	const { totals } = ledger;
	const { recorded, modeled } = totals;
	const misses = `${format(totals.misses)} cache miss${totals.misses === 1 ? "" : "es"} in the bill`;
	const lines = [
		`${plural(totals.breaks, "prefix break")} · ${format(totals.expired)} expired · ${misses}, ${style.bold(`${format(totals.unexplained)} unexplained`)}`,
		`billed:   read ${tokens(recorded.cacheRead)} · write ${tokens(recorded.cacheWrite)} · input ${tokens(recorded.input)} · output ${tokens(recorded.output)} · $${recorded.cost.toFixed(2)}${missing(recorded.costMissing)}`,
	];
	if (!ledger.configuration.asSent) {
		const change =
			recorded.cost > 0 ? ` (${signed((modeled.cost / recorded.cost - 1) * 100)}% against the bill)` : "";
		lines.push(
			`modeled:  read ${tokens(modeled.cacheRead)} · write ${tokens(modeled.cacheWrite)} · input ${tokens(modeled.input)} · output ${tokens(modeled.output)} · $${modeled.cost.toFixed(2)}${missing(modeled.costMissing)}${change}`,
		);
	}
	if (totals.warming.calls > 0)
		lines.push(
			`cache warming: ${plural(totals.warming.calls, "call")} · $${totals.warming.cost.toFixed(2)} (not in the rows)`,
		);
	const legend = [
		`estimated: ${ledger.counters.estimated}`,
		`calibrated: ${ledger.counters.calibrated}`,
		`read, write, input, $: ${ledger.counters.recorded}`,
		...(ledger.configuration.asSent ? [] : [`→: ${ledger.counters.modeled}`]),
		"cache: what the provider should have done: first, read, write (nothing reusable), expired",
		"miss: the bill read less than the request before left in the cache, and why; ! nothing explains it",
	];
	for (const line of legend) lines.push(style.dim(line));
	return lines;
}

const missing = (count: number): string => (count === 0 ? "" : ` (${plural(count, "request")} without a cost)`);
const signed = (percent: number): string => `${percent >= 0 ? "+" : "−"}${Math.abs(percent).toFixed(1)}`;
