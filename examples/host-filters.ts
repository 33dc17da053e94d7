/**
 * Demonstrates a host app filtering what the model sees after conversion: a sync `afterConvert` tap
 * that redacts secrets by pattern (run by `convert`), and an async `afterConvertAsync` tap that asks
 * a secret store which values to hide (run by `convertAsync`, which an `Agent` awaits). Each filter
 * is a named plugin from an options factory; the agent's history itself is never changed.
 *
 * Run: npm run build && npx tsx examples/host-filters.ts
 */
import assert from "node:assert/strict";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { Message } from "@earendil-works/pi-ai";
import { AsyncHookInSyncConvertError, type Plugin, Stage } from "convert-to-llm";
import { blockImages } from "convert-to-llm/hooks";
import { createDefaultRegistry } from "convert-to-llm/preset";

/** Replaces text in every text block the model would see; returns the message itself when nothing changes. */
function mapText(message: Message, replace: (text: string) => string): Message {
	if (message.role === "assistant") return message;
	if (message.role === "user" && typeof message.content === "string") {
		const text = replace(message.content);
		return text === message.content ? message : { ...message, content: text };
	}
	if (typeof message.content === "string") return message;
	let changed = false;
	const content = message.content.map((block) => {
		if (block.type !== "text") return block;
		const text = replace(block.text);
		if (text === block.text) return block;
		changed = true;
		return { ...block, text };
	});
	return changed ? ({ ...message, content } as Message) : message;
}

/** A sync filter: hides whatever matches one of `patterns`. */
function redactPatterns(options: { patterns: RegExp[]; replacement?: string }): Plugin {
	const name = "host:redact-patterns";
	const { patterns, replacement = "[redacted]" } = options;
	const replace = (text: string) => patterns.reduce((out, pattern) => out.replace(pattern, replacement), text);
	return {
		name,
		apply(registry) {
			registry.hooks.afterConvert.tap({ name, stage: Stage.SANITIZE }, (messages) =>
				messages.map((m) => mapText(m, replace)),
			);
		},
	};
}

/** An async filter: hides every value the secret store currently knows (looked up on each conversion). */
function redactFromVault(options: { listSecrets: () => Promise<string[]> }): Plugin {
	const name = "host:redact-from-vault";
	return {
		name,
		apply(registry) {
			registry.hooks.afterConvertAsync.tapPromise(name, async (messages) => {
				const secrets = await options.listSecrets();
				return messages.map((m) =>
					mapText(m, (text) => secrets.reduce((out, s) => out.replaceAll(s, "[vault]"), text)),
				);
			});
		},
	};
}

/** Stands in for a remote secret store. */
let vaultLookups = 0;
async function listVaultSecrets(): Promise<string[]> {
	vaultLookups++;
	await new Promise((resolve) => setTimeout(resolve, 5));
	return ["correct-horse-battery-staple"];
}

const history: AgentMessage[] = [
	{ role: "user", content: "Deploy with key sk-live-4f9a2c7e1b3d and the db password, please.", timestamp: 1 },
	{
		role: "bashExecution",
		command: "printenv DB_PASSWORD",
		output: "correct-horse-battery-staple",
		exitCode: 0,
		cancelled: false,
		truncated: false,
		timestamp: 2,
	},
	{
		role: "user",
		content: [
			{ type: "text", text: "And here is the dashboard:" },
			{ type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
		],
		timestamp: 3,
	},
];

const show = (label: string, messages: Message[]) => {
	console.log(label);
	for (const m of messages) {
		if (m.role === "assistant") continue;
		const text =
			typeof m.content === "string"
				? m.content
				: m.content.map((b) => (b.type === "text" ? b.text : `[${b.type}]`)).join(" ");
		console.log(`  ${m.role}: ${text.replaceAll("\n", "\\n")}`);
	}
};

// 1. Sync: `convert` runs the pattern filter (and blockImages, also an afterConvert tap).
const syncRegistry = createDefaultRegistry()
	.use(blockImages())
	.use(redactPatterns({ patterns: [/sk-live-[0-9a-f]+/g] }));
const syncOutput = syncRegistry.convert(history);
show("convert (sync pattern filter + blockImages):", syncOutput);

// 2. Async: `convertAsync` runs the sync taps, then awaits the vault filter.
const asyncRegistry = createDefaultRegistry()
	.use(redactPatterns({ patterns: [/sk-live-[0-9a-f]+/g] }))
	.use(redactFromVault({ listSecrets: listVaultSecrets }));
const asyncOutput = await asyncRegistry.convertAsync(history);
show("convertAsync (sync pattern filter, then async vault filter):", asyncOutput);

// 3. The sync path refuses to skip an async filter: that would leak what it is meant to hide.
let refusal: unknown;
try {
	asyncRegistry.convert(history);
} catch (error) {
	refusal = error;
}
console.log(`convert on the async registry: ${refusal instanceof Error ? refusal.name : "no error"}`);

// Running this file is a check: it throws if a secret got through.
const syncText = JSON.stringify(syncOutput);
const asyncText = JSON.stringify(asyncOutput);
assert.ok(!syncText.includes("sk-live-"), "convert: the API key is redacted");
assert.ok(syncText.includes("Image reading is disabled."), "convert: blockImages ran too");
assert.ok(syncText.includes("correct-horse-battery-staple"), "convert: the vault filter is not part of this registry");
assert.ok(!asyncText.includes("sk-live-"), "convertAsync: the API key is redacted");
assert.ok(!asyncText.includes("correct-horse-battery-staple"), "convertAsync: the vault secret is redacted");
assert.ok(asyncText.includes("[vault]"), "convertAsync: the vault filter marked what it hid");
assert.equal(vaultLookups, 1, "convertAsync: the vault was asked once per conversion");
assert.ok(refusal instanceof AsyncHookInSyncConvertError, "convert refuses a registry with async taps");
assert.ok(JSON.stringify(history).includes("sk-live-4f9a2c7e1b3d"), "the history itself is unchanged");
console.log("OK: both filters hid their secrets; the agent's history is untouched.");
