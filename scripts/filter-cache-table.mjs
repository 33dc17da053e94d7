#!/usr/bin/env node
/**
 * What the window filters cost in prompt cache: a 120-turn pi history (a system message first; each
 * turn a user prompt, an assistant tool call, its result of 2,000 to 5,000 characters and an
 * assistant answer) converted at every model call (after the prompt, and after the tool result: 240
 * requests), with `trimToTokens` and `pruneMessages` at several `step` sizes. For each configuration:
 * the tokens sent over the run (pi's chars/4 estimate), the share of the previous request's
 * characters that the next one repeats as a prefix (consecutive requests compared message by message
 * as `JSON.stringify` writes them), the prefix breaks, the largest request, and the input billed at
 * Anthropic's cache prices (a cached prefix at 0.1x the input price, the rest written at 1.25x), in
 * tokens at the input price.
 *
 * Usage: npm run build && node scripts/filter-cache-table.mjs [--write]
 *   --write replaces the table between `<!-- filter-cache-table -->` and `<!-- /filter-cache-table -->`
 *   in docs/filters.md with this run's.
 * test/filters/filter-cache.test.ts runs the same measurement on the sources and checks the goals.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";

/** The budget of the trim rows, in pi's estimated tokens. */
export const MAX_TOKENS = 40_000;
/** The tool-call window of the prune rows, in messages. */
export const PRUNE_WINDOW = 10;
/** Anthropic's prices relative to the input price: a cache read, a cache write. */
const CACHE_READ = 0.1;
const CACHE_WRITE = 1.25;

const usage = {
	input: 0,
	output: 0,
	cacheRead: 0,
	cacheWrite: 0,
	totalTokens: 0,
	cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
};

/**
 * The history and its model calls: `calls[i]` is how many leading messages of `history` the i-th
 * request converts. Deterministic (seeded).
 */
export function cacheHistory(turns = 120, seed = 7) {
	let state = seed >>> 0;
	const random = () => {
		state = (state * 1664525 + 1013904223) >>> 0;
		return state / 2 ** 32;
	};
	const between = (low, high) => low + Math.floor(random() * (high - low + 1));
	const words = ["const", "value", "return", "import", "export", "function", "await", "string", "number", "if"];
	const text = (chars) => {
		let out = "";
		while (out.length < chars) out += `${words[Math.floor(random() * words.length)]} `;
		return out.slice(0, chars);
	};
	const history = [{ role: "system", content: `You are pi, a coding agent. ${text(2_000)}`, timestamp: 0 }];
	const calls = [];
	for (let turn = 0; turn < turns; turn++) {
		const t = 1_700_000_000_000 + turn * 60_000;
		history.push({ role: "user", content: `Turn ${turn}: ${text(between(80, 300))}`, timestamp: t });
		calls.push(history.length);
		const id = `call_${turn}`;
		history.push({
			role: "assistant",
			content: [
				{ type: "text", text: text(between(40, 160)) },
				{ type: "toolCall", id, name: "read", arguments: { path: `src/file-${turn}.ts` } },
			],
			api: "anthropic-messages",
			provider: "anthropic",
			model: "claude",
			usage,
			stopReason: "toolUse",
			timestamp: t + 1,
		});
		history.push({
			role: "toolResult",
			toolCallId: id,
			toolName: "read",
			content: [{ type: "text", text: text(between(2_000, 5_000)) }],
			isError: false,
			timestamp: t + 2,
		});
		calls.push(history.length);
		history.push({
			role: "assistant",
			content: [{ type: "text", text: text(between(200, 600)) }],
			api: "anthropic-messages",
			provider: "anthropic",
			model: "claude",
			usage,
			stopReason: "stop",
			timestamp: t + 3,
		});
	}
	return { history, calls };
}

/**
 * Converts the history at each model call with `convert` and measures the run.
 *
 * @param convert (history) => Message[]
 * @param estimate (message) => tokens (pi's estimate)
 */
export function measureRun(convert, { history, calls }, estimate) {
	let previous;
	let previousJson;
	let sent = 0;
	let largest = 0;
	let keptChars = 0;
	let previousChars = 0;
	let keptSince = 0;
	let previousSince = 0;
	let breaks = 0;
	let billed = 0;
	let trimmedFrom;
	let lastHistoryTokens = 0;
	for (let i = 0; i < calls.length; i++) {
		const slice = history.slice(0, calls[i]);
		const output = convert(slice);
		const json = output.map((message) => JSON.stringify(message));
		const tokens = output.map((message) => estimate(message));
		const total = tokens.reduce((sum, n) => sum + n, 0);
		sent += total;
		largest = Math.max(largest, total);
		let common = 0;
		if (previous !== undefined) {
			while (common < previous.length && common < output.length && previousJson[common] === json[common]) common++;
			let chars = 0;
			let kept = 0;
			for (let m = 0; m < previous.length; m++) {
				chars += previousJson[m].length;
				if (m < common) kept += previousJson[m].length;
			}
			previousChars += chars;
			keptChars += kept;
			if (trimmedFrom !== undefined) {
				previousSince += chars;
				keptSince += kept;
			}
			if (common < previous.length) breaks++;
		}
		let cached = 0;
		for (let m = 0; m < common; m++) cached += tokens[m];
		billed += cached * CACHE_READ + (total - cached) * CACHE_WRITE;
		const historyTokens = slice.reduce((sum, message) => sum + estimate(message), 0);
		if (trimmedFrom === undefined && output.length < slice.length) trimmedFrom = historyTokens;
		lastHistoryTokens = historyTokens;
		previous = output;
		previousJson = json;
	}
	return {
		requests: calls.length,
		sent,
		largest,
		prefixKept: previousChars === 0 ? 1 : keptChars / previousChars,
		/** The same, over the requests after the first one the filter shortened (`undefined`: none shortened). */
		prefixKeptFiltering: previousSince === 0 ? undefined : keptSince / previousSince,
		breaks,
		billed: Math.round(billed),
		/** The history's growth (estimated tokens) from the first request a filter shortened to the last. */
		growth: trimmedFrom === undefined ? 0 : lastHistoryTokens - trimmedFrom,
	};
}

/** The configurations of the table: a label and the options of each filter. */
export function configurations() {
	const rows = [{ label: "no filter", trim: undefined, prune: undefined }];
	for (const step of [undefined, 2_500, 5_000, 10_000, 20_000])
		rows.push({
			label: `trimToTokens maxTokens ${MAX_TOKENS}${step === undefined ? "" : `, step ${step}`}`,
			trim: { maxTokens: MAX_TOKENS, ...(step === undefined ? {} : { step }) },
			prune: undefined,
		});
	for (const step of [undefined, 5, 10, 20, 40])
		rows.push({
			label: `pruneMessages before-last-${PRUNE_WINDOW}-messages${step === undefined ? "" : `, step ${step}`}`,
			trim: undefined,
			prune: { toolCalls: `before-last-${PRUNE_WINDOW}-messages`, ...(step === undefined ? {} : { step }) },
		});
	return rows;
}

const thousands = (n) => Math.round(n).toLocaleString("en-US");

/** The markdown table of measured rows (`{ label, ...measureRun }`), its columns padded as Biome formats them. */
export function renderTable(rows) {
	const header = [
		"configuration",
		"tokens sent",
		"prefix kept",
		"prefix kept once filtering",
		"breaks",
		"history growth per break (tokens)",
		"largest request (tokens)",
		"billed at cache prices (input-price tokens)",
	];
	const percent = (share) => (share === undefined ? "–" : `${(share * 100).toFixed(1)}%`);
	const body = rows.map((row) => [
		row.label,
		thousands(row.sent),
		percent(row.prefixKept),
		percent(row.prefixKeptFiltering),
		String(row.breaks),
		row.breaks === 0 ? "–" : thousands(row.growth / row.breaks),
		thousands(row.largest),
		thousands(row.billed),
	]);
	const widths = header.map((title, column) =>
		Math.max(3, title.length, ...body.map((cells) => cells[column].length)),
	);
	// The first column is text (left-aligned), the others numbers (right-aligned).
	const pad = (cell, column) => (column === 0 ? cell.padEnd(widths[column]) : cell.padStart(widths[column]));
	const line = (cells) => `| ${cells.map(pad).join(" | ")} |`;
	const rule = widths.map((width, column) => (column === 0 ? "-".repeat(width) : `${"-".repeat(width - 1)}:`));
	return [line(header), `| ${rule.join(" | ")} |`, ...body.map(line)].join("\n");
}

const OPEN = "<!-- filter-cache-table -->";
const CLOSE = "<!-- /filter-cache-table -->";

async function main() {
	const { estimateTokens, pruneMessages, trimToTokens } = await import("convert-to-llm/filters");
	const { createDefaultRegistry } = await import("convert-to-llm/preset");
	const run = cacheHistory();
	const rows = configurations().map(({ label, trim, prune }) => {
		const registry = createDefaultRegistry();
		if (prune !== undefined) registry.use(pruneMessages(prune));
		if (trim !== undefined) registry.use(trimToTokens(trim));
		return { label, ...measureRun(registry.convert, run, estimateTokens) };
	});
	const table = renderTable(rows);
	console.log(table);
	if (process.argv.includes("--write")) {
		const file = fileURLToPath(new URL("../docs/filters.md", import.meta.url));
		const text = readFileSync(file, "utf8");
		const from = text.indexOf(OPEN);
		const to = text.indexOf(CLOSE);
		if (from < 0 || to < from) throw new Error(`docs/filters.md has no ${OPEN} … ${CLOSE} block`);
		writeFileSync(file, `${text.slice(0, from + OPEN.length)}\n\n${table}\n\n${text.slice(to)}`);
		console.error("docs/filters.md: table written");
	}
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
