/**
 * Registry, hook and pipeline cases run against the built package (dist/), printed as one JSON
 * object: each case's outputs, problems and the events its taps and interceptors saw. The
 * code-generation test runs it twice, in a plain `node` and in `node --disallow-code-generation-from-strings`
 * (what a CSP host without `unsafe-eval` gives), and compares the two.
 *
 * Usage: node [--disallow-code-generation-from-strings] test/support/codegen-cases.mjs
 */
import { createRegistry } from "convert-to-llm";
import { blockImages, escapeSummaries, excludeCustomMessages, lint, safeFences } from "convert-to-llm/hooks";
import { convertToLlm, createDefaultRegistry, defaultPreset } from "convert-to-llm/preset";
import { createHistory } from "../../bench/history.mjs";

const refused = (() => {
	try {
		new Function("");
		return false;
	} catch {
		return true;
	}
})();

const said = (error) => [error?.code, error?.index, error?.plugin, error?.message ?? String(error)];

/** A history with every kind of entry: the bench's session, junk, an unknown role, a hole. */
function history() {
	const entries = createHistory(150, 7);
	entries.splice(3, 0, null, { role: "nobody", timestamp: 0 }, { role: "constructor" });
	entries.splice(10, 0, {
		role: "user",
		content: [
			{ type: "image", data: "aGk=", mimeType: "image/png" },
			{ type: "text", text: "Image reading is disabled." },
		],
		timestamp: 1,
	});
	entries.length += 2; // two holes at the end
	entries.push({ role: "custom", customType: "junk", content: "j", display: true, timestamp: 2 });
	return entries;
}

/** A registry whose every problem and every hook event is logged. */
function logged(registry) {
	const events = [];
	registry.hooks.error.tap("log-errors", (error) => events.push(["error", ...said(error)]));
	for (const [name, hook] of Object.entries(registry.hooks)) {
		hook.intercept({
			call: (value) => events.push(["call", name, Array.isArray(value) ? value.length : typeof value]),
			tap: (tap) => events.push(["tap", name, tap.name]),
			register: (tap) => {
				events.push(["register", name, tap.name]);
				return tap;
			},
			result: (value) => events.push(["result", name, Array.isArray(value) ? value.length : typeof value]),
			done: () => events.push(["done", name]),
		});
	}
	return { registry, events };
}

const junkTap = {
	name: "test:taps",
	apply(registry) {
		registry.hooks.beforeConvert.tap("drop-first", (messages) => messages.slice(1));
		registry.hooks.afterConvert.tap({ name: "late", stage: 500 }, (messages) => [...messages, { role: "nope" }]);
		registry.hooks.afterConvert.tap("throws", () => {
			throw new Error("tap failed");
		});
		registry.hooks.afterConvert.tap({ name: "first", before: "throws" }, (messages) => messages.slice(0, -1));
		registry.hooks.afterConvert.tap("in-place", (messages, ctx) => {
			messages.push(ctx.input[0]);
			return messages;
		});
	},
};

const asyncTaps = {
	name: "test:async",
	apply(registry) {
		registry.hooks.afterConvertAsync.tapPromise("promise", async (messages) =>
			messages.filter((m) => m.role !== "assistant"),
		);
		registry.hooks.afterConvertAsync.tapAsync("callback", (messages, _ctx, callback) =>
			callback(null, messages.slice(2)),
		);
		registry.hooks.afterConvertAsync.tap({ name: "sync", stage: 5 }, () => "not an array");
	},
};

const hardening = () => [
	escapeSummaries(),
	safeFences(),
	blockImages({ keepUserText: true }),
	lint({ mode: "repair" }),
	excludeCustomMessages(),
];

const CASES = {
	convertToLlm: () => ({ output: convertToLlm(history()) }),
	"preset + blockImages, with an error tap (CSP's empty output and EvalError before)": () => {
		const { registry, events } = logged(createDefaultRegistry().use(blockImages({ enabled: true })));
		return { output: registry.convert(history()), events };
	},
	"hardening plugins, run": () => {
		const result = createDefaultRegistry({ plugins: hardening() }).run(history());
		return { output: result.output, problems: result.problems.map(said), failed: result.failed };
	},
	"hardening plugins under isolate, explain": () => {
		const explanation = createDefaultRegistry({ isolate: true, plugins: hardening() }).explain(history());
		return { ...explanation, errors: explanation.errors.map(said) };
	},
	"taps, stages, before, in-place changes and interceptors": () => {
		const { registry, events } = logged(createDefaultRegistry().use(junkTap).use(blockImages()));
		return { output: registry.convert(history()), events };
	},
	"strict registry": () => {
		try {
			return { output: createDefaultRegistry({ strict: true }).convert(history()) };
		} catch (error) {
			return { thrown: said(error) };
		}
	},
	"extra roles past the switched ones, custom types": () => {
		const registry = createRegistry();
		for (const plugin of defaultPreset) registry.use(plugin);
		for (let i = 0; i < 40; i++)
			registry.register(`role${i}`, (m) => ({ role: "user", content: `r${i}`, timestamp: m.timestamp }), {
				name: `ext-${i}`,
			});
		registry.register("custom", () => undefined, { name: "not-mine", customType: "todo" });
		const entries = [...history(), ...[0, 17, 39].map((i) => ({ role: `role${i}`, timestamp: i }))];
		return { output: registry.convert(entries), roles: registry.roles(), converters: registry.converters("custom") };
	},
	"async taps: convertAsync, runAsync, a timeout": async () => {
		const { registry, events } = logged(createDefaultRegistry().use(asyncTaps));
		const output = await registry.convertAsync(history());
		const run = await registry.runAsync(history());
		const stuck = createDefaultRegistry({ asyncTimeoutMs: 20 });
		stuck.hooks.afterConvertAsync.tapPromise("stuck", () => new Promise(() => {}));
		const timedOut = await stuck.runAsync(history());
		return {
			output,
			events,
			run: { output: run.output, problems: run.problems.map(said) },
			timedOut: { output: timedOut.output, problems: timedOut.problems.map(said), failed: timedOut.failed },
		};
	},
	"register between conversions": () => {
		const registry = createDefaultRegistry();
		const outputs = [];
		for (let i = 0; i < 30; i++) {
			registry.register(`late${i}`, () => ({ role: "user", content: `late ${i}`, timestamp: i }), {
				name: `late-${i}`,
			});
			outputs.push(
				registry.convert([
					{ role: `late${i}`, timestamp: 0 },
					{ role: `late${Math.max(0, i - 1)}`, timestamp: 0 },
				]),
			);
		}
		return { outputs };
	},
};

const results = {};
for (const [name, run] of Object.entries(CASES)) {
	try {
		results[name] = await run();
	} catch (error) {
		results[name] = { escaped: said(error) };
	}
}
process.stdout.write(JSON.stringify({ refused, results }));
