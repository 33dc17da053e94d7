/**
 * The real `@earendil-works/pi-agent-core` 1.6.0 `Agent`, run offline on pi-ai 1.6.0's faux provider
 * (`fauxProvider()` + `createModels()`, `streamFn` required since 0.82), with convert-to-llm's BUILT
 * package (dist/, which the vitest globalSetup builds; imported as `convert-to-llm/*`, ESM or
 * CJS) as its `convertToLlm`, or pi's own `convertToLlm` as the control. `run` reports what happened; test/e2e/pi1-agent.test.ts makes the checks.
 *
 * While a run lasts, `Date.now()` and `performance.now()` return constants, so two runs of the
 * same scenario with different converters produce byte-identical transcripts (timestamps and
 * durations included) and their provider contexts can be compared whole.
 */

import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { Agent } from "@earendil-works/pi-agent-core";
import { createModels, fauxAssistantMessage, fauxProvider, fauxToolCall } from "@earendil-works/pi-ai";
import { convertToLlm as piConvertToLlm } from "@earendil-works/pi-coding-agent";
import { createUpstreamBlockImages } from "./upstream-session.mjs";

/**
 * The built package, imported by its name (`convert-to-llm`, `/preset`, `/hooks`: a self-reference
 * through package.json `exports`), as ESM and as CJS; each must resolve to dist/'s file.
 */
const DIST = fileURLToPath(new URL("../../../dist/", import.meta.url));
const require = createRequire(import.meta.url);
function builtEntry(specifier, file, format) {
	const path = format === "cjs" ? require.resolve(specifier) : fileURLToPath(import.meta.resolve(specifier));
	if (path !== `${DIST}${file}`) throw new Error(`${specifier} (${format}) resolves to ${path}, not dist/${file}`);
	return format === "cjs" ? require(specifier) : import(specifier);
}
const BUILDS = {};
for (const format of ["esm", "cjs"]) {
	const ext = format === "esm" ? "js" : "cjs";
	BUILDS[format] = {
		lib: await builtEntry("convert-to-llm", `index.${ext}`, format),
		presetEntry: await builtEntry("convert-to-llm/preset", `preset.${ext}`, format),
		hooksEntry: await builtEntry("convert-to-llm/hooks", `hooks.${ext}`, format),
	};
}

const T0 = 1_700_000_000_000;
/** What `Date.now()` returns during a run. */
const CLOCK = 1_800_000_000_000;
const SYSTEM_PROMPT = "You are a careful coding agent.";
const SECRET = "sk-live-4f9a2c7e1b3d";
const IMAGE = { type: "image", data: "iVBORw0KGgoAAAANSUhEUg==", mimeType: "image/png" };

/**
 * A pi history with every app role (two bash runs, one `!!` and excluded; custom with string and
 * image content, and one with `excludeFromContext`, which pi sends; both summaries, the branch summary with pi 1.x's `fromId: null`), images, and a
 * mid-conversation system message that patches a prompt section and removes a tool.
 */
function createHistory() {
	return [
		{
			role: "compactionSummary",
			summary: "We set up the repo and wrote the parser.",
			tokensBefore: 48_000,
			timestamp: T0,
		},
		{
			role: "bashExecution",
			command: "npm test",
			output: `1 failing\nAPI_KEY=${SECRET}`,
			exitCode: 1,
			cancelled: false,
			truncated: true,
			fullOutputPath: "/tmp/npm-test.log",
			timestamp: T0 + 1,
		},
		{
			role: "custom",
			customType: "notes",
			content: "Remember: CI runs on Node 20.",
			display: true,
			details: { pinned: true },
			timestamp: T0 + 2,
		},
		{
			role: "branchSummary",
			summary: "Tried a regex parser; it could not handle nesting.",
			fromId: null,
			timestamp: T0 + 3,
		},
		{ role: "user", content: [{ type: "text", text: "Here is the screenshot:" }, IMAGE], timestamp: T0 + 4 },
		fauxAssistantMessage("I see one failing test.", { timestamp: T0 + 5 }),
		{
			role: "bashExecution",
			command: "cat ~/.netrc",
			output: "machine example.com password hunter2",
			exitCode: 0,
			cancelled: false,
			truncated: false,
			timestamp: T0 + 6,
			excludeFromContext: true,
		},
		{
			role: "system",
			content: "",
			sections: { "<repo-notes>": "<repo-notes>The parser lives in src/parse.ts.</repo-notes>", skills: null },
			timestamp: T0 + 7,
		},
		{
			// No pi version knows `excludeFromContext` on custom messages: pi sends this one.
			role: "custom",
			customType: "scratch",
			content: "Scratch note an extension marked excludeFromContext.",
			display: false,
			excludeFromContext: true,
			timestamp: T0 + 7.5,
		},
		{
			role: "custom",
			customType: "screens",
			content: [{ type: "text", text: "Latest screen:" }, IMAGE],
			display: false,
			timestamp: T0 + 8,
		},
	];
}

/** The history's indices of the messages each fault hits (after the Agent's leading system message: +1). */
const FAULTS = {
	throws: {
		role: "bashExecution",
		install: (registry, name) =>
			registry.register(
				"bashExecution",
				() => {
					throw new Error("boom");
				},
				{ name, override: true },
			),
	},
	"returns an AgentMessage instead of a Message": {
		role: "branchSummary",
		install: (registry, name) => registry.register("branchSummary", (message) => message, { name, override: true }),
	},
	"throws for its own customType": {
		role: "custom",
		install: (registry, name) =>
			registry.register(
				"custom",
				() => {
					throw new TypeError("notes store is offline");
				},
				{ name, customType: "notes" },
			),
	},
	"has an afterConvert tap that throws": {
		role: undefined,
		install: (registry, name) =>
			registry.hooks.afterConvert.tap(name, () => {
				throw new Error("audit log is full");
			}),
	},
};

/** The names of the fault kinds, for the test's table. */
export function faultKinds() {
	return Object.keys(FAULTS);
}

const echoTool = {
	name: "echo",
	label: "Echo",
	description: "Echoes its text back, with a screenshot.",
	parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
	execute: async (_id, params) => ({ content: [{ type: "text", text: `echo: ${params.text}` }, IMAGE], details: {} }),
};

/** A registry of the built package as `options` asks: plugins, a fault, an async redactor, strict. */
function buildRegistry(options, errors) {
	const { lib, presetEntry, hooksEntry } = BUILDS[options.build ?? "esm"];
	const registry = presetEntry.createDefaultRegistry({ strict: options.strict === true });
	if (options.blockImages) registry.use(hooksEntry.blockImages({ enabled: true }));
	if (options.fault) FAULTS[options.fault].install(registry, "faulty-extension");
	if (options.dropSystem) {
		registry.hooks.afterConvert.tap("drop-system", (messages) => messages.filter((m) => m.role !== "system"));
	}
	if (options.redactor) {
		registry.hooks.afterConvertAsync.tapPromise("async-redactor", async (messages) => {
			await new Promise((resolve) => setImmediate(resolve));
			return messages.map(redact);
		});
	}
	registry.hooks.error.tap("collect", (error) => {
		errors.push({
			name: error.name,
			code: error.code,
			plugin: error.plugin,
			role: error.role,
			index: error.index,
			message: error.message,
			isConvertToLlmError: error instanceof lib.ConvertToLlmError,
		});
	});
	return registry;
}

const redactText = (text) => text.replaceAll(SECRET, "[redacted]");

/** Every text the model would see, with the secret replaced. */
function redact(message) {
	if (message.role === "assistant") return message;
	if (typeof message.content === "string") return { ...message, content: redactText(message.content) };
	const content = message.content.map((block) =>
		block.type === "text" ? { ...block, text: redactText(block.text) } : block,
	);
	return { ...message, content };
}

/** How `convertToLlm` is handed to the Agent, for the `this` checks. */
function handOver(fn, how, thisSeen) {
	switch (how) {
		case "as is":
			return fn;
		case "bound to another object":
			return fn.bind({ convert: () => [], messages: "not these" });
		case "as a method that passes the loop config on as this":
			return function (messages) {
				thisSeen.push(
					this !== null && typeof this === "object" && this.convertToLlm === undefined ? "other" : "loop config",
				);
				return fn.call(this, messages);
			};
		default:
			throw new Error(`unknown hand-over ${how}`);
	}
}

let blockImagesWrapper;

/** pi's real `convertToLlmWithBlockImages`, blocking on, made once per child. */
async function piBlockImages() {
	if (blockImagesWrapper) return blockImagesWrapper;
	const upstream = await createUpstreamBlockImages(true);
	process.on("exit", () => upstream.dispose());
	blockImagesWrapper = upstream.convert;
	return blockImagesWrapper;
}

/** A leading system message that declares `grep`, a tool the agent cannot run (it has `echo`). */
const STALE_LOADOUT = {
	role: "system",
	content: SYSTEM_PROMPT,
	toolsAdded: [
		{
			name: "grep",
			description: "Searches files.",
			parameters: { type: "object", properties: { pattern: { type: "string" } }, required: ["pattern"] },
		},
	],
	timestamp: 0,
};

const REPLIES = {
	answer: () => [fauxAssistantMessage("The parser drops nested brackets.")],
	"tool turn": () => [
		fauxAssistantMessage(fauxToolCall("echo", { text: "hi" }, { id: "call-1" }), { stopReason: "toolUse" }),
		fauxAssistantMessage("The build is green."),
	],
};

/**
 * One prompt through a real `Agent`. `options`:
 * - `converter`: "pi" (pi-coding-agent's `convertToLlm`), "registry.convert" or "registry.convertAsync";
 * - `handOver`: how the function is given to the Agent (see `handOver`), default "as is";
 * - `build`: "esm" (default) or "cjs", the build of the package the registry comes from;
 * - `blockImages`, `fault` (a key of FAULTS), `redactor`, `strict`, `dropSystem` (an afterConvert
 *   tap that removes system messages, to show the checks see it): how the registry is built;
 * - `replies`: "answer" (one provider call) or "tool turn" (a tool call, then an answer);
 * - `prompt`: the user's text;
 * - `record`: false to give the Agent the function itself, without the recorder of loop inputs;
 * - `staleLoadout`: the history starts with a system message declaring `grep`, so the Agent adds no
 *   leading message and the loop itself inserts one (`declareToolChanges`: echo added, grep removed).
 */
export async function run(options) {
	const realNow = Date.now;
	const realPerfNow = performance.now;
	Date.now = () => CLOCK;
	performance.now = () => 0;
	try {
		return await runAgent(options);
	} finally {
		Date.now = realNow;
		performance.now = realPerfNow;
	}
}

async function runAgent(options) {
	const faux = fauxProvider({ api: "faux" });
	const models = createModels();
	models.setProvider(faux.provider);
	const contexts = [];
	const replies = REPLIES[options.replies ?? "answer"]();
	faux.setResponses(
		replies.map((reply) => (context) => {
			contexts.push(structuredClone(context.messages));
			return reply;
		}),
	);

	const errors = [];
	const thisSeen = [];
	const registry = options.converter === "pi" ? undefined : buildRegistry(options, errors);
	const fn =
		options.converter === "pi"
			? piConvertToLlm
			: options.converter === "registry.convert"
				? registry.convert
				: registry.convertAsync;
	const handed = handOver(fn, options.handOver ?? "as is", thisSeen);
	// What the loop asked to convert, and pi's answers for exactly those messages, taken at call time.
	const loopInputs = [];
	const piOutputs = [];
	const piBlockImagesOutputs = [];
	const wrapper = options.blockImages ? await piBlockImages() : undefined;
	const recording = {
		// A method, so the recorder passes the loop's `this` on untouched.
		convertToLlm(messages) {
			loopInputs.push(structuredClone(messages));
			piOutputs.push(structuredClone(piConvertToLlm(messages)));
			if (wrapper) piBlockImagesOutputs.push(structuredClone(wrapper(messages)));
			return handed.call(this, messages);
		},
	};

	const agent = new Agent({
		initialState: {
			systemPrompt: SYSTEM_PROMPT,
			model: faux.getModel(),
			tools: [echoTool],
			messages: options.staleLoadout ? [structuredClone(STALE_LOADOUT), ...createHistory()] : createHistory(),
		},
		// `record: false` hands the function over with nothing around it (the `this` checks).
		convertToLlm: options.record === false ? handed : recording.convertToLlm,
		streamFn: models.streamSimple.bind(models),
	});
	await agent.prompt({ role: "user", content: options.prompt ?? "Why does the test fail?", timestamp: T0 + 10 });
	await agent.waitForIdle?.();

	// Only what the registry reported during the run (the conversions below report again).
	const errorsDuringRun = errors.slice();
	const last = agent.state.messages.at(-1);
	const firstBlock = last?.role === "assistant" ? last.content[0] : undefined;
	return {
		contexts,
		loopInputs,
		piOutputs,
		piBlockImagesOutputs,
		ourOutputsAfter: registry
			? await Promise.all(
					loopInputs.map((input) => registry.convertAsync(input).catch((error) => ({ threw: String(error) }))),
				)
			: undefined,
		errors: errorsDuringRun,
		thisSeen,
		callCount: faux.state.callCount,
		state: {
			errorMessage: agent.state.errorMessage,
			systemPrompt: agent.state.systemPrompt,
			roles: agent.state.messages.map((m) => m.role),
			lastText: firstBlock?.type === "text" ? firstBlock.text : undefined,
			lastStopReason: last?.stopReason,
			messages: structuredClone(agent.state.messages),
		},
		history: options.staleLoadout ? [structuredClone(STALE_LOADOUT), ...createHistory()] : createHistory(),
	};
}
