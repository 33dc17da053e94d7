/**
 * `npm run bench`: the cost of the plugin system, measured against upstream pi 0.73.1 itself.
 *
 * Each comparison runs both sides in this one process, paired and alternating (A B, then B A), for
 * many rounds; each side of a round converts the same 10,000-message history several times. The
 * reported figure is the median over rounds of (our time / baseline time): below 1.0 means faster.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { registerFauxProvider } from "@mariozechner/pi-ai";
import {
	AuthStorage,
	createAgentSession,
	ModelRegistry,
	SessionManager,
	SettingsManager,
	convertToLlm as upstreamConvertToLlm,
} from "@mariozechner/pi-coding-agent";
import { createRegistry } from "convert-to-llm";
import { blockImages } from "convert-to-llm/hooks";
import { convertToLlm, createDefaultRegistry, defaultPreset } from "convert-to-llm/preset";
import { createHistory } from "./history.mjs";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 41);
const CALLS = Number(process.env.BENCH_CALLS ?? 10);
const history = createHistory(10_000);

function time(fn) {
	const start = process.hrtime.bigint();
	for (let i = 0; i < CALLS; i++) sink(fn(history));
	return Number(process.hrtime.bigint() - start);
}
let kept = 0;
function sink(result) {
	kept ^= result.length;
}
const median = (values) => {
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.floor(sorted.length / 2)];
};

/** Median ratio candidate/baseline over paired, alternating rounds (after a warm-up). */
function compare(candidate, baseline) {
	for (let i = 0; i < 5; i++) {
		time(candidate);
		time(baseline);
	}
	const ratios = [];
	let candidateNs = 0;
	let baselineNs = 0;
	for (let round = 0; round < ROUNDS; round++) {
		let c;
		let b;
		if (round % 2 === 0) {
			c = time(candidate);
			b = time(baseline);
		} else {
			b = time(baseline);
			c = time(candidate);
		}
		ratios.push(c / b);
		candidateNs += c;
		baselineNs += b;
	}
	return {
		ratio: median(ratios),
		candidateMs: candidateNs / ROUNDS / CALLS / 1e6,
		baselineMs: baselineNs / ROUNDS / CALLS / 1e6,
	};
}

async function upstreamBlockImages() {
	const dir = mkdtempSync(join(tmpdir(), "ctl-bench-"));
	const faux = registerFauxProvider();
	const authStorage = AuthStorage.create(join(dir, "auth.json"));
	const { session } = await createAgentSession({
		cwd: dir,
		agentDir: dir,
		model: faux.getModel(),
		settingsManager: SettingsManager.inMemory({ images: { blockImages: true } }),
		authStorage,
		modelRegistry: ModelRegistry.create(authStorage, join(dir, "models.json")),
		sessionManager: SessionManager.inMemory(dir),
	});
	return {
		convert: session.agent.convertToLlm,
		dispose: () => {
			faux.unregister();
			rmSync(dir, { recursive: true, force: true });
		},
	};
}

function withExtraRoles(count) {
	const registry = createDefaultRegistry();
	for (let i = 0; i < count; i++) {
		registry.register(`extraRole${i}`, () => null, { name: `extra-${i}` });
		registry.register("custom", () => null, { name: `extra-custom-${i}`, customType: `extra-type-${i}` });
	}
	return registry;
}

const upstreamWrapper = await upstreamBlockImages();
const results = [];
const row = (name, { ratio, candidateMs, baselineMs }, limit) => {
	results.push({ name, ratio, limit });
	console.log(
		`${name.padEnd(58)} ratio ${ratio.toFixed(3)} (limit ${limit.toFixed(2)})  ${candidateMs.toFixed(3)} ms vs ${baselineMs.toFixed(3)} ms per call`,
	);
};

console.log(
	`history: ${history.length} messages; ${ROUNDS} paired rounds x ${CALLS} calls per side; node ${process.version}`,
);
row("default preset / upstream convertToLlm", compare(convertToLlm, upstreamConvertToLlm), 1.0);
const blocking = createDefaultRegistry().use(blockImages({ enabled: true }));
row(
	"preset + blockImages / upstream convertToLlmWithBlockImages",
	compare(blocking.convert, upstreamWrapper.convert),
	1.0,
);
const bare = createDefaultRegistry();
const crowded = withExtraRoles(1000);
row("1,000 extra roles + 1,000 customTypes / none", compare(crowded.convert, bare.convert), 1.05);
const manual = createRegistry();
for (const plugin of defaultPreset) manual.use(plugin);
// Taps nobody made: a registry whose hooks were looked at (HookMap entries created) but never tapped.
manual.hooks.convert.for("neverUsedRole");
row("untapped hooks touched / default preset", compare(manual.convert, bare.convert), 1.05);
upstreamWrapper.dispose();

const failed = results.filter((r) => r.ratio > r.limit);
console.log(
	failed.length === 0 ? "all ratios within their limits" : `over the limit: ${failed.map((r) => r.name).join("; ")}`,
);
if (kept === -1) console.log(kept);
process.exitCode = failed.length === 0 ? 0 : 1;
