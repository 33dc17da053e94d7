/**
 * pi-ai 1.6.0's own replay of a transcript's system messages, as its providers collapse them into the
 * one system prompt and the tool list a request carries (`getCurrentSystemPrompt`,
 * `getCurrentTools`): run in a child on the Node >= 22.19 that pi 1.x needs, so that a test can hold
 * what `/llm-context` showed against what pi-ai would send for it, with pi's code as the oracle.
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { resolvePiNode } from "../../../scripts/pi-node.mjs";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));

const SCRIPT = `
import { getCurrentSystemPrompt, getCurrentTools } from "@earendil-works/pi-ai";
let input = "";
for await (const chunk of process.stdin) input += chunk;
const messages = JSON.parse(input);
process.stdout.write(JSON.stringify({ prompt: getCurrentSystemPrompt(messages), tools: getCurrentTools(messages) }));
`;

/** The system prompt and the tools pi-ai replays from `messages` (a `Message[]`, system messages included). */
export function piAiReplay(messages: readonly unknown[]): { prompt: string; tools: { name: string }[] } {
	const result = spawnSync(resolvePiNode(), ["--input-type=module", "-e", SCRIPT], {
		cwd: ROOT,
		input: JSON.stringify(messages),
		encoding: "utf8",
		timeout: 60_000,
	});
	if (result.status !== 0) throw new Error(`pi-ai replay failed: ${result.stderr}`);
	return JSON.parse(result.stdout) as { prompt: string; tools: { name: string }[] };
}
