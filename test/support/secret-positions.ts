/**
 * Every place a string reaches the model, each a history of one planted text: where `redactSecrets`
 * is checked against the planted-secret corpus, and what `secret-leaks.ts` counts.
 */
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { assistant, bashExecution, user } from "./fixtures.js";
import { imageData } from "./secret-corpus.js";

const T = 1_700_000_000_000;

/** Every place a string reaches the model, each a history of one planted text. */
export const POSITIONS: Record<string, (text: string) => AgentMessage[]> = {
	"user text": (text) => [user(`please deploy\n${text}`)],
	"user text block": (text) => [
		user([
			{ type: "text", text: `see .env:\n${text}\n` },
			{ type: "image", data: imageData(1, 400), mimeType: "image/png" },
		]),
	],
	"system prompt": (text) => [
		{ role: "system", content: `Use these credentials:\n${text}`, timestamp: T } as unknown as AgentMessage,
	],
	"system section": (text) => [
		{
			role: "system",
			content: "You are pi.",
			sections: { env: `<env>\n${text}\n</env>` },
			timestamp: T,
		} as unknown as AgentMessage,
	],
	"assistant text": (text) => [user("what is in .env?"), assistant([{ type: "text", text: `It holds:\n${text}` }])],
	thinking: (text) => [
		user("go"),
		assistant([
			{ type: "thinking", thinking: `The file says ${text}, I should not repeat it.`, thinkingSignature: "sig" },
			{ type: "text", text: "done" },
		]),
	],
	"tool-call arguments, deep": (text) => [
		user("write it"),
		assistant([
			{
				type: "toolCall",
				id: "c1",
				name: "write",
				arguments: { path: ".env", files: [{ lines: ["# env", text] }] },
			},
		]),
		{
			role: "toolResult",
			toolCallId: "c1",
			toolName: "write",
			content: [{ type: "text", text: "ok" }],
			isError: false,
			timestamp: T,
		},
	],
	"tool-call arguments, under names pi-ai uses for metadata": (text) => [
		user("configure it"),
		assistant([
			{
				type: "toolCall",
				id: "c1",
				name: "configure",
				arguments: { id: text, type: text, settings: { model: text, provider: [text] } },
			},
		]),
	],
	"tool-call argument key": (text) => [
		user("map it"),
		assistant([{ type: "toolCall", id: "c1", name: "map", arguments: { [text]: "value" } }]),
	],
	"system tool declaration": (text) => [
		{
			role: "system",
			content: "You are pi.",
			toolsAdded: [
				{
					name: "deploy",
					description: `Deploys with ${text}`,
					parameters: { type: "object", properties: { token: { type: "string", default: text } } },
				},
			],
			timestamp: T,
		} as unknown as AgentMessage,
	],
	"tool result": (text) => [
		user("read it"),
		assistant([{ type: "toolCall", id: "c1", name: "read", arguments: { path: ".env" } }]),
		{
			role: "toolResult",
			toolCallId: "c1",
			toolName: "read",
			content: [{ type: "text", text: `1\tNODE_ENV=production\n2\t${text}\n` }],
			isError: false,
			timestamp: T,
		},
	],
	"bash output": (text) => [bashExecution({ command: "cat .env", output: `${text}\n` })],
	"branch summary": (text) => [
		{
			role: "branchSummary",
			summary: `We configured ${text} on the other branch.`,
			fromId: "abc",
			timestamp: T,
		} as AgentMessage,
	],
	"compaction summary": (text) => [
		{
			role: "compactionSummary",
			summary: `Earlier: the user shared ${text}.`,
			tokensBefore: 1000,
			timestamp: T,
		} as AgentMessage,
	],
	"custom message": (text) => [
		{ role: "custom", customType: "note", content: `pinned: ${text}`, display: true, timestamp: T } as AgentMessage,
	],
	"behind a secretlint-disable comment": (text) => [user(`# secretlint-disable\n${text}\n# secretlint-enable`)],
};
