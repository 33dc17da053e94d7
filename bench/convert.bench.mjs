/**
 * `npm run bench`: the cost of the plugin system, measured against upstream pi 0.73.1 itself.
 *
 * Each comparison runs both sides in one process, paired and alternating (A B, then B A), for many
 * rounds; each side of a round converts the same 10,000-message history several times. Its figure is
 * the median over rounds of (candidate time / baseline time): below 1.0 means faster.
 *
 * V8's optimisation decisions and the heap layout differ from one process to the next (±15% on this
 * workload, even between two registries running identical code), and a comparison must not inherit
 * the type feedback of another, so each comparison runs in fresh processes (BENCH_PROCESSES, default
 * 5; 9 for the registry-against-registry gates, whose noise is the widest) and the median of their
 * figures is reported.
 *
 * The per-process figures in brackets are each process's ratio. For the two gates against upstream,
 * "one implementation per process" runs each side alone in its own processes (a host runs only one
 * implementation, so neither inherits the other's type feedback) and compares the medians of their
 * times; each bracketed figure is then one candidate process against the baselines' median.
 * `codegenRefused` runs in `node --disallow-code-generation-from-strings` (a CSP host).
 *
 * Usage: npm run bench            (builds, then runs every comparison)
 *        node bench/convert.bench.mjs [case]   (one comparison, one process, JSON on stdout)
 *        node bench/convert.bench.mjs [case] [0|1]   (one side alone, one process, JSON on stdout)
 */
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { convertToLlm as upstreamConvertToLlm } from "@mariozechner/pi-coding-agent";
import { createRegistry } from "convert-to-llm";
import { pruneMessages, redactSecrets, trimToTokens } from "convert-to-llm/filters";
import { blockImages, escapeSummaries, lint, safeFences } from "convert-to-llm/hooks";
import { convertToLlm, createDefaultRegistry, defaultPreset } from "convert-to-llm/preset";
import { createUpstreamBlockImages } from "../test/support/upstream-session.mjs";
import { createHistory } from "./history.mjs";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 41);
const CALLS = Number(process.env.BENCH_CALLS ?? 10);
const PROCESSES = Number(process.env.BENCH_PROCESSES ?? 5);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 20);

/** Upstream's `convertToLlmWithBlockImages` (a closure in createAgentSession), with the setting on. */
async function upstreamBlockImages() {
	const upstream = await createUpstreamBlockImages(true);
	process.on("exit", upstream.dispose);
	return upstream.convert;
}

/** Every registry of the hardening figures has a (no-op) error listener, so checks that skip work nobody hears of (the lint) do that work. */
const listened = (registry) => {
	registry.hooks.error.tap("bench-listener", () => {});
	return registry;
};

/** A default registry plus `count` extension roles (or `custom` customTypes), each with its converter. */
function crowded(count, kind) {
	const registry = createDefaultRegistry();
	for (let i = 0; i < count; i++) {
		if (kind === "roles") registry.register(`extraRole${i}`, () => null, { name: `extra-${i}` });
		else registry.register("custom", () => null, { name: `extra-custom-${i}`, customType: `extra-type-${i}` });
	}
	return registry;
}

/**
 * Each case: [candidate, baseline], and a limit for the gates or none for figures. The gates are what
 * a user can feel: the default preset, with and without blockImages, no slower than pi's own
 * conversion (1.2x where code generation is refused); hooks nobody tapped and roles nobody sends cost
 * nothing; each hardening plugin no slower than the figure it had before the loop was made plain
 * (docs/performance.md of 2026-12-02) plus 10%.
 */
const CASES = {
	preset: {
		title: "default preset / upstream convertToLlm",
		limit: 1.0,
		alone: true,
		setup: async () => [convertToLlm, upstreamConvertToLlm],
	},
	blockImages: {
		title: "preset + blockImages / upstream convertToLlmWithBlockImages",
		limit: 1.0,
		alone: true,
		setup: async () => [
			createDefaultRegistry().use(blockImages({ enabled: true })).convert,
			await upstreamBlockImages(),
		],
	},
	crowded: {
		title: "1,000 extra registered roles / none",
		limit: 1.05,
		processes: 9,
		setup: async () => [crowded(1000, "roles").convert, createDefaultRegistry().convert],
	},
	untapped: {
		title: "hooks created but never tapped / default preset",
		limit: 1.05,
		processes: 9,
		setup: async () => {
			const touched = createRegistry();
			for (const plugin of defaultPreset) touched.use(plugin);
			// Every hook asked about, none tapped: the pipeline skips a hook whose isUsed() is false.
			for (const hook of Object.values(touched.hooks)) hook.isUsed();
			touched.converters("neverUsedRole");
			return [touched.convert, createDefaultRegistry().convert];
		},
	},
	customTypes: {
		title: "1,000 extra customType converters / none",
		setup: async () => [crowded(1000, "customTypes").convert, createDefaultRegistry().convert],
	},
	isolate: {
		title: "isolate: true / default preset",
		limit: 28.7,
		setup: async () => [
			listened(createDefaultRegistry({ isolate: true })).convert,
			listened(createDefaultRegistry()).convert,
		],
	},
	escapeSummaries: {
		title: "escapeSummaries() / default preset",
		limit: 1.15,
		setup: async () => [
			listened(createDefaultRegistry().use(escapeSummaries())).convert,
			listened(createDefaultRegistry()).convert,
		],
	},
	safeFences: {
		title: "safeFences() / default preset",
		limit: 1.14,
		setup: async () => [
			listened(createDefaultRegistry().use(safeFences())).convert,
			listened(createDefaultRegistry()).convert,
		],
	},
	trackSources: {
		title: "trackSources() / default preset",
		limit: 1.32,
		setup: async () => [
			listened(createDefaultRegistry().use({ name: "bench-tracking", apply: (registry) => registry.trackSources() }))
				.convert,
			listened(createDefaultRegistry()).convert,
		],
	},
	lintReport: {
		title: 'lint({ mode: "report" }) / default preset',
		limit: 3.5,
		setup: async () => [
			listened(createDefaultRegistry().use(lint({ mode: "report" }))).convert,
			listened(createDefaultRegistry()).convert,
		],
	},
	lintRepair: {
		title: 'lint({ mode: "repair" }) / default preset',
		limit: 3.73,
		setup: async () => [
			listened(createDefaultRegistry().use(lint({ mode: "repair" }))).convert,
			listened(createDefaultRegistry()).convert,
		],
	},
	keepUserText: {
		title: "blockImages({ keepUserText: true }) / blockImages()",
		setup: async () => [
			listened(createDefaultRegistry().use(blockImages({ keepUserText: true }))).convert,
			listened(createDefaultRegistry().use(blockImages())).convert,
		],
	},
	allHardening: {
		title: "isolate + all hardening plugins / default preset",
		limit: 45.0,
		setup: async () => [
			listened(
				createDefaultRegistry({ isolate: true })
					.use(escapeSummaries())
					.use(safeFences())
					.use(blockImages({ keepUserText: true }))
					.use(lint({ mode: "repair" })),
			).convert,
			listened(createDefaultRegistry()).convert,
		],
	},
	pruneMessages: {
		title: 'pruneMessages({ reasoning: "all", toolCalls: "before-last-10-messages" }) / default preset',
		setup: async () => [
			listened(
				createDefaultRegistry().use(pruneMessages({ reasoning: "all", toolCalls: "before-last-10-messages" })),
			).convert,
			listened(createDefaultRegistry()).convert,
		],
	},
	trimToTokens: {
		title: "trimToTokens({ maxTokens: 120,000 }) / default preset",
		setup: async () => [
			listened(createDefaultRegistry().use(trimToTokens({ maxTokens: 120_000 }))).convert,
			listened(createDefaultRegistry()).convert,
		],
	},
	// The target: at most 10x the default preset. convertAsync of a registry that has scanned
	// this history before (as pi converts the whole history every turn); the first scan is in the warm-up.
	redactSecrets: {
		title: "redactSecrets() convertAsync, history seen before / default preset",
		async: true,
		setup: async () => [
			listened(createDefaultRegistry().use(redactSecrets())).convertAsync,
			listened(createDefaultRegistry()).convert,
		],
	},
	// A cold scan of every string of the history (a new plugin per call): secretlint's own cost.
	redactSecretsCold: {
		title: "redactSecrets() convertAsync, a fresh plugin per call / default preset",
		async: true,
		setup: async () => [
			(history) => listened(createDefaultRegistry().use(redactSecrets())).convertAsync(history),
			listened(createDefaultRegistry()).convert,
		],
	},
	codegenRefused: {
		title: "code generation refused (CSP): default preset / upstream convertToLlm",
		limit: 1.2,
		flags: ["--disallow-code-generation-from-strings"],
		setup: async () => [createDefaultRegistry().convert, upstreamConvertToLlm],
	},
	codegenRefusedBlockImages: {
		title: "code generation refused (CSP): preset + blockImages / upstream",
		limit: 1.2,
		flags: ["--disallow-code-generation-from-strings"],
		setup: async () => [
			createDefaultRegistry().use(blockImages({ enabled: true })).convert,
			await upstreamBlockImages(),
		],
	},
};

/**
 * Paired, alternating rounds of `time(candidate)` and `time(baseline)` after `warmup` rounds: the
 * median ratio and the mean time per call of each side. `time` may be async (awaited per round, so
 * the await is outside what it measures).
 */
async function pairedRounds(time, candidate, baseline, { warmup, rounds, calls }) {
	for (let i = 0; i < warmup; i++) {
		await time(candidate);
		await time(baseline);
	}
	const ratios = [];
	let candidateNs = 0;
	let baselineNs = 0;
	for (let round = 0; round < rounds; round++) {
		let c;
		let b;
		if (round % 2 === 0) {
			c = await time(candidate);
			b = await time(baseline);
		} else {
			b = await time(baseline);
			c = await time(candidate);
		}
		ratios.push(c / b);
		candidateNs += c;
		baselineNs += b;
	}
	return {
		ratio: median(ratios),
		candidateMs: candidateNs / rounds / calls / 1e6,
		baselineMs: baselineNs / rounds / calls / 1e6,
	};
}

/** Like `runCase`, for a candidate that returns a promise (`convertAsync`); the baseline stays sync. */
async function runAsyncCase(name) {
	const history = createHistory(10_000);
	const [candidate, baseline] = await CASES[name].setup();
	const calls = name === "redactSecretsCold" ? 1 : CALLS;
	let kept = 0;
	const time = async (fn) => {
		const start = process.hrtime.bigint();
		for (let i = 0; i < calls; i++) kept ^= (await fn(history)).length;
		return Number(process.hrtime.bigint() - start);
	};
	const rounds = name === "redactSecretsCold" ? 5 : ROUNDS;
	const result = await pairedRounds(time, candidate, baseline, { warmup: Math.min(WARMUP, 3), rounds, calls });
	return { ...result, kept };
}

/**
 * One side of a comparison alone in this process (`side`: 0 the candidate, 1 the baseline), as a host
 * runs only one implementation: its median time per call over the rounds, after the same warm-up.
 */
async function runSide(name, side) {
	const history = createHistory(10_000);
	const fn = (await CASES[name].setup())[side];
	let kept = 0;
	const time = () => {
		const start = process.hrtime.bigint();
		for (let i = 0; i < CALLS; i++) kept ^= fn(history).length;
		return Number(process.hrtime.bigint() - start);
	};
	for (let i = 0; i < WARMUP * 2; i++) time();
	const times = [];
	for (let round = 0; round < ROUNDS * 2; round++) times.push(time());
	return { ms: median(times) / CALLS / 1e6, kept };
}

/** One comparison in this process: median ratio over paired, alternating rounds (after a warm-up). */
async function runCase(name) {
	if (CASES[name].async) return runAsyncCase(name);
	const history = createHistory(10_000);
	const [candidate, baseline] = await CASES[name].setup();
	let kept = 0;
	const time = (fn) => {
		const start = process.hrtime.bigint();
		for (let i = 0; i < CALLS; i++) kept ^= fn(history).length;
		return Number(process.hrtime.bigint() - start);
	};
	const result = await pairedRounds(time, candidate, baseline, { warmup: WARMUP, rounds: ROUNDS, calls: CALLS });
	return { ...result, kept };
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function main() {
	const only = process.argv[2];
	if (only !== undefined && process.argv[3] !== undefined) {
		console.log(JSON.stringify(await runSide(only, Number(process.argv[3]))));
		return;
	}
	if (only !== undefined) {
		if (!(only in CASES)) {
			console.error(`bench: unknown case "${only}"; cases: ${Object.keys(CASES).join(", ")}`);
			process.exit(2);
		}
		console.log(JSON.stringify(await runCase(only)));
		return;
	}
	const self = fileURLToPath(import.meta.url);
	console.log(
		`history: 10,000 messages; each comparison: ${PROCESSES} processes (9 for registry-against-registry gates) x ${ROUNDS} paired rounds x ${CALLS} calls per side; node ${process.version}`,
	);
	const failed = [];
	for (const [name, { title, limit, processes = PROCESSES, flags = [], alone }] of Object.entries(CASES)) {
		const runs = [];
		for (let i = 0; i < processes; i++)
			runs.push(JSON.parse(execFileSync(process.execPath, [...flags, self, name], { encoding: "utf8" })));
		const ratio = median(runs.map((r) => r.ratio));
		const spread = runs.map((r) => r.ratio.toFixed(3)).join(" ");
		const ms = `${median(runs.map((r) => r.candidateMs)).toFixed(3)} ms vs ${median(runs.map((r) => r.baselineMs)).toFixed(3)} ms`;
		const gate =
			limit === undefined
				? ""
				: ratio <= limit
					? ` (limit ${limit.toFixed(2)}: ok)`
					: ` (limit ${limit.toFixed(2)}: OVER)`;
		console.log(`${title.padEnd(62)} ${ratio.toFixed(3)}${gate}  [${spread}]  ${ms} per call`);
		if (limit !== undefined && ratio > limit) failed.push(title);
		if (alone) {
			// A host runs one implementation: each side alone in its own processes, medians compared.
			const sides = [0, 1].map((side) =>
				Array.from({ length: processes }, () =>
					JSON.parse(execFileSync(process.execPath, [...flags, self, name, String(side)], { encoding: "utf8" })),
				),
			);
			const [mine, theirs] = sides.map((runs) => runs.map((r) => r.ms));
			const aloneRatio = median(mine) / median(theirs);
			const aloneGate =
				limit === undefined
					? ""
					: aloneRatio <= limit
						? ` (limit ${limit.toFixed(2)}: ok)`
						: ` (limit ${limit.toFixed(2)}: OVER)`;
			const perProcess = mine.map((ms) => (ms / median(theirs)).toFixed(3)).join(" ");
			console.log(
				`${`  one implementation per process`.padEnd(62)} ${aloneRatio.toFixed(3)}${aloneGate}  [${perProcess}]  ${median(mine).toFixed(3)} ms vs ${median(theirs).toFixed(3)} ms per call`,
			);
			if (limit !== undefined && aloneRatio > limit) failed.push(`${title} (one implementation per process)`);
		}
	}
	console.log(
		failed.length === 0 ? "\nall gated ratios within their limits" : `\nover the limit: ${failed.join("; ")}`,
	);
	process.exitCode = failed.length === 0 ? 0 : 1;
}

await main();
