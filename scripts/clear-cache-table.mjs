/**
 * What `clearToolResults` does to the prompt cache over a long tool-heavy run: the table in
 * docs/filters.md ("What a step costs and saves").
 *
 * The history: a system message (10,000 characters, as pi 1.x sends the prompt and the tools), then
 * TURNS turns, each a user prompt (100–400 characters), 1–6 rounds of an assistant message (0–300
 * characters of text, 1–2 tool calls of read, bash, grep or edit) and their results (2,000–12,000
 * characters each), then a closing assistant text; seconds between rounds, 20 s to 10 min between
 * turns. Seeded: every run prints the same figures. Each assistant message is the answer to one
 * request, the conversion of every message before it; the script converts each of them, as pi
 * does before each model call, and compares each request with the one before:
 * - **prefix kept**: of all the characters of the previous requests (each message as
 *   `JSON.stringify` writes it), the share that the next request repeats as its leading messages;
 * - **breaks**: requests that do not repeat the previous one whole; the bound is one per
 *   `clearAtLeast` tokens of the history's growth (pi's estimate), plus the first;
 * - **largest request**, over the trigger by at most how much, against the largest turn;
 * - **input billed** in input-token equivalents, by Anthropic's prices relative to input: a cached
 *   prefix read at 0.1×, everything after it written at 1.25× (the whole request when the previous
 *   request is older than the cache lifetime), and what each configuration sends over the run.
 *
 * Usage: node --import tsx scripts/clear-cache-table.mjs [--turns 200] [--seed 1] [--json]
 */
import { parseArgs } from "node:util";
import { clearToolResults } from "../src/filters/clear-tool-results.ts";
import { estimateTokens } from "../src/filters/estimate-tokens.ts";
import { createDefaultRegistry } from "../src/preset.ts";

const { values } = parseArgs({
	options: {
		turns: { type: "string", default: "200" },
		seed: { type: "string", default: "1" },
		json: { type: "boolean", default: false },
		"idle-max": { type: "string", default: "600" },
	},
});
const TURNS = Number(values.turns);
const SEED = Number(values.seed);
const LIFETIME_MS = 300_000;
/** The longest pause between two turns, in seconds (`--idle-max`; 600 by default: many turns find the cache cold). */
const IDLE_MAX_MS = Number(values["idle-max"]) * 1000;

/** mulberry32: a small seeded generator, the same numbers on every machine. */
function random(seed) {
	let state = seed >>> 0;
	return () => {
		state = (state + 0x6d2b79f5) >>> 0;
		let t = state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

const WORDS = "the of parse token result file line test error value return import const function type".split(" ");

function text(next, chars) {
	let out = "";
	while (out.length < chars) out += `${WORDS[Math.floor(next() * WORDS.length)]}${next() < 0.1 ? "\n" : " "}`;
	return out.slice(0, chars);
}

const between = (next, min, max) => min + Math.floor(next() * (max - min + 1));

/** The tool-heavy history of `turns` turns (see the file's comment). */
export function toolHeavyHistory(turns, seed) {
	const next = random(seed);
	let time = 1_700_000_000_000;
	let calls = 0;
	const usage = {
		input: 0,
		output: 0,
		cacheRead: 0,
		cacheWrite: 0,
		totalTokens: 0,
		cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
	};
	const assistant = (content, stopReason) => ({
		role: "assistant",
		content,
		api: "anthropic-messages",
		provider: "anthropic",
		model: "claude",
		usage,
		stopReason,
		timestamp: time,
	});
	const history = [{ role: "system", content: text(next, 10_000), timestamp: time }];
	for (let turn = 0; turn < turns; turn++) {
		time += between(next, 20_000, IDLE_MAX_MS);
		history.push({ role: "user", content: text(next, between(next, 100, 400)), timestamp: time });
		const rounds = between(next, 1, 6);
		for (let round = 0; round < rounds; round++) {
			time += between(next, 2_000, 30_000);
			const content = [];
			const prose = between(next, 0, 300);
			if (prose > 0) content.push({ type: "text", text: text(next, prose) });
			const results = [];
			for (let c = between(next, 1, 2); c > 0; c--) {
				const id = `toolu_${String(calls++).padStart(5, "0")}`;
				const tool = ["read", "bash", "grep", "edit"][Math.floor(next() * 4)];
				const args =
					tool === "bash"
						? { command: `npm test -- ${text(next, between(next, 5, 40)).replace(/\s+/g, "-")}` }
						: tool === "grep"
							? { pattern: text(next, 12).trim(), path: "src" }
							: { path: `src/${text(next, 10).trim().replace(/\s+/g, "/")}.ts` };
				content.push({ type: "toolCall", id, name: tool, arguments: args });
				results.push({
					role: "toolResult",
					toolCallId: id,
					toolName: tool,
					content: [{ type: "text", text: text(next, between(next, 2_000, 12_000)) }],
					isError: next() < 0.05,
					timestamp: time + 1_000,
				});
			}
			history.push(assistant(content, "toolUse"));
			for (const result of results) history.push(result);
			time += 1_000;
		}
		time += between(next, 2_000, 30_000);
		history.push(assistant([{ type: "text", text: text(next, between(next, 200, 800)) }], "stop"));
	}
	return history;
}

/** The time of the request being converted: the clock `clearToolResults` reads for `when: "cache-cold"`. */
const clock = { now: 0 };

/** One configuration over the run: each request's conversion compared with the one before. */
function measure(history, plugin) {
	const registry = createDefaultRegistry();
	if (plugin) registry.use(plugin);
	const json = new WeakMap();
	const tokens = new WeakMap();
	const memo = (cache, count) => (m) => {
		if (!cache.has(m)) cache.set(m, count(m));
		return cache.get(m);
	};
	const chars = memo(json, (m) => JSON.stringify(m).length);
	const tokensOf = memo(tokens, estimateTokens);
	const row = { requests: 0, breaks: 0, keptChars: 0, previousChars: 0, largest: 0, sent: 0, billed: 0 };
	let previous;
	let previousTime;
	for (let i = 0; i < history.length; i++) {
		if (history[i].role !== "assistant") continue;
		const time = history[i].timestamp;
		clock.now = time;
		const output = registry.convert(history.slice(0, i));
		const size = output.reduce((sum, m) => sum + tokensOf(m), 0);
		row.requests++;
		row.sent += size;
		row.largest = Math.max(row.largest, size);
		let keptTokens = 0;
		if (previous !== undefined) {
			let kept = 0;
			while (
				kept < previous.length &&
				kept < output.length &&
				(previous[kept] === output[kept] || JSON.stringify(previous[kept]) === JSON.stringify(output[kept]))
			)
				kept++;
			const total = previous.reduce((sum, m) => sum + chars(m), 0);
			row.previousChars += total;
			for (let k = 0; k < kept; k++) row.keptChars += chars(previous[k]);
			if (kept < previous.length) row.breaks++;
			if (time - previousTime <= LIFETIME_MS) for (let k = 0; k < kept; k++) keptTokens += tokensOf(output[k]);
		}
		row.billed += 0.1 * keptTokens + 1.25 * (size - keptTokens);
		previous = output;
		previousTime = time;
	}
	return row;
}

const history = toolHeavyHistory(TURNS, SEED);
const growth = history.reduce((sum, m) => sum + estimateTokens(m), 0);
let largestTurn = 0;
let turn = 0;
for (const m of history) {
	if (m.role === "user") turn = 0;
	turn += estimateTokens(m);
	largestTurn = Math.max(largestTurn, turn);
}

const TRIGGER = 100_000;
const configurations = [
	["no clearing", undefined, undefined],
	["clearAtLeast: 0 (LangChain's ClearToolUsesEdit)", { clearAtLeast: 0 }, 0],
	["clearAtLeast: 5,000", { clearAtLeast: 5_000 }, 5_000],
	["defaults (clearAtLeast: 10,000)", {}, 10_000],
	["clearAtLeast: 25,000", { clearAtLeast: 25_000 }, 25_000],
	["clearAtLeast: 50,000", { clearAtLeast: 50_000 }, 50_000],
	['when: "cache-cold"', { when: "cache-cold" }, 0],
];
const rows = configurations.map(([name, options, step]) => {
	const row = measure(history, options && clearToolResults({ ...options, now: () => clock.now }));
	const bound = step ? 1 + Math.floor(growth / step) : undefined;
	return {
		name,
		...row,
		prefixKept: row.keptChars / row.previousChars,
		overTrigger: row.largest - TRIGGER,
		breakBound: bound,
	};
});

if (values.json) {
	console.log(
		JSON.stringify({ turns: TURNS, seed: SEED, messages: history.length, growth, largestTurn, rows }, null, 2),
	);
} else {
	const n = (x) => Math.round(x).toLocaleString("en-US");
	console.log(
		`${TURNS} turns, seed ${SEED}, pauses of up to ${IDLE_MAX_MS / 1000} s between turns: ${n(history.length)} messages, ${n(growth)} tokens in all (pi's estimate, as every token figure here), ${rows[0].requests} requests; largest turn ${n(largestTurn)} tokens; trigger ${n(TRIGGER)} tokens, keep 3.\n`,
	);
	console.log(
		"| configuration | breaks (bound) | prefix kept | largest request (≤ trigger + a turn?) | sent over the run | input billed |",
	);
	console.log("| --- | --- | --- | --- | --- | --- |");
	for (const r of rows) {
		const bound = r.breakBound === undefined ? "" : ` (≤ ${n(r.breakBound)})`;
		const fits = r.largest <= TRIGGER + largestTurn ? "yes" : "no";
		console.log(
			`| ${r.name} | ${n(r.breaks)}${bound} | ${(100 * r.prefixKept).toFixed(1)}% | ${n(r.largest)} (${fits}) | ${n(r.sent)} | ${n(r.billed)} |`,
		);
	}
}
