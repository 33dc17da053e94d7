/**
 * Demonstrates an extension that brings its own role: `artifact` joins pi-agent-core's `AgentMessage`
 * by declaration merging into `CustomAgentMessages`, and the extension's plugin registers a converter
 * for it, plus a `customType` converter for the extension's own `custom` messages (status events, of
 * which only some are meant for the model). Everything else still converts as pi does.
 *
 * Run: npm run build && npx tsx examples/extension-custom-role.ts
 */
import assert from "node:assert/strict";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { Message } from "@earendil-works/pi-ai";
import { type CustomMessage, createCustomMessage, type Plugin } from "convert-to-llm";
import { createDefaultRegistry } from "convert-to-llm/preset";

/** A document the agent wrote and the user can open beside the chat. */
interface ArtifactMessage {
	role: "artifact";
	title: string;
	mimeType: string;
	body: string;
	version: number;
	timestamp: number;
}

/** What the extension puts in `details` of its `custom` messages. */
interface ArtifactStatus {
	title: string;
	status: "saved" | "rendering";
}

// The new role joins AgentMessage: the agent's history may hold it, and `register("artifact", …)` is typed.
declare module "@earendil-works/pi-agent-core" {
	interface CustomAgentMessages {
		artifact: ArtifactMessage;
	}
}

const PLUGIN_NAME = "artifacts-extension";
const STATUS_TYPE = "artifacts-extension:status";

/** The extension's plugin: one converter for its role, one for its own custom messages. */
const artifacts: Plugin = {
	name: PLUGIN_NAME,
	apply(registry) {
		// `m` is an ArtifactMessage here.
		registry.register(
			"artifact",
			(m) => ({
				role: "user",
				content: [
					{
						type: "text",
						text: `<artifact title=${JSON.stringify(m.title)} version="${m.version}" type="${m.mimeType}">\n${m.body}\n</artifact>`,
					},
				],
				timestamp: m.timestamp,
			}),
			{ name: PLUGIN_NAME },
		);
		// Only this extension's custom messages reach this converter; others go to the built-in one.
		registry.register(
			"custom",
			(m) => {
				const { title, status } = (m as CustomMessage<ArtifactStatus>).details ?? {};
				if (status === "rendering") return null; // UI-only progress: the model never sees it.
				return { role: "user", content: `(The user saved the artifact "${title}".)`, timestamp: m.timestamp };
			},
			{ name: PLUGIN_NAME, customType: STATUS_TYPE },
		);
	},
};

const registry = createDefaultRegistry().use(artifacts);

const history: AgentMessage[] = [
	{ role: "user", content: "Write a README for the parser.", timestamp: 1 },
	{
		role: "artifact",
		title: "README.md",
		mimeType: "text/markdown",
		body: "# parser\n\nParses nested brackets.",
		version: 2,
		timestamp: 2,
	},
	createCustomMessage<ArtifactStatus>(STATUS_TYPE, "", false, { title: "README.md", status: "rendering" }, 3),
	createCustomMessage<ArtifactStatus>(STATUS_TYPE, "", true, { title: "README.md", status: "saved" }, 4),
	createCustomMessage("notes", "Another extension's note.", true, undefined, 5),
];

const converted: Message[] = registry.convert(history);

console.log(`roles known to the registry: ${registry.roles().join(", ")}`);
console.log(`${history.length} history messages -> ${converted.length} model messages:`);
for (const message of converted) {
	const text =
		typeof message.content === "string"
			? message.content
			: message.content.map((block) => (block.type === "text" ? block.text : `[${block.type}]`)).join(" ");
	console.log(`  ${message.role}: ${text.replaceAll("\n", "\\n")}`);
}

// Running this file is a check: it throws if the extension's conversions did not happen.
const texts = JSON.stringify(converted);
assert.ok(registry.roles().includes("artifact"), "the artifact role is registered");
assert.equal(converted.length, 4, "four messages reach the model (the rendering event is dropped)");
assert.ok(texts.includes("Parses nested brackets."), "the artifact body is in the model's context");
assert.deepEqual(
	converted[2],
	{ role: "user", content: '(The user saved the artifact "README.md".)', timestamp: 4 },
	"the saved event became a note",
);
assert.ok(texts.includes("Another extension's note."), "other custom types use the built-in converter");
console.log("OK: the artifact role and the extension's custom messages were converted by its plugin.");
