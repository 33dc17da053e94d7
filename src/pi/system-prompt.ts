/**
 * pi's system prompt through `redactSecrets` where pi's request event does not carry it: pi 0.73.1
 * (and any pi whose full transcript the extension cannot see) sends the system prompt beside the
 * messages of its `context` event, so a secret in AGENTS.md or in `--append-system-prompt` would reach
 * the model unscanned. Its `before_agent_start` event passes the prompt of each turn through the
 * extensions and takes the one they return; the handler here returns it redacted.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { redactSecrets } from "../filters/index.js";
import { createRegistry, modelRoles, type Plugin, type Registry } from "../index.js";
import { errorText } from "../values.js";
import type { Host } from "./host.js";
import type { PiContext } from "./pi-api.js";
import type { Reporter } from "./report.js";

/** What the model is given as its system prompt when the real one could not be scanned (pi sends a non-empty one). */
export const WITHHELD_SYSTEM_PROMPT =
	"[convert-to-llm withheld the system prompt: it could not be scanned for secrets.]";

/** The result of a `before_agent_start` handler: the system prompt to use, or nothing (pi's unchanged). */
export type SystemPromptResult = { systemPrompt: string } | undefined;

/**
 * The `before_agent_start` handler, and whether the latest turn's prompt was withheld (the request
 * handler then withholds the request too: a turn whose prompt could not be scanned sends nothing).
 */
export interface SystemPromptGuard {
	handle(event: { systemPrompt?: unknown }, ctx: PiContext): Promise<SystemPromptResult>;
	/** Why the current turn's system prompt was withheld, or `undefined`. */
	withheld(): string | undefined;
}

/**
 * A guard that redacts each turn's system prompt while the `redactSecrets` switch is on, with its own
 * `redactor()` plugin (default `redactSecrets()`: the same scanner and replacement as the messages',
 * none of the other plugins: a prompt is not a message to trim, prune or lint), made on first use.
 *
 * Contract: never throws. With the switch off, or a prompt that is not a non-empty string, returns
 * `undefined` (pi's prompt unchanged). A prompt with no secret is returned as it is; one with
 * secrets, redacted. When the scan fails or does not finish in `asyncTimeoutMs`, shows an error,
 * aborts pi's run, returns {@link WITHHELD_SYSTEM_PROMPT} and `withheld()` says why until the next
 * turn's prompt is scanned. Only what pi passes through the event is scanned: an extension loaded
 * after this one that changes the prompt later, and the tool definitions pi sends beside it, are not.
 *
 * @example
 * const guard = systemPromptGuard(host, reporter);
 * pi.on("before_agent_start", (event, ctx) => guard.handle(event, ctx));
 */
export function systemPromptGuard(
	host: Host,
	reporter: Reporter,
	asyncTimeoutMs: number,
	redactor: () => Plugin = redactSecrets,
): SystemPromptGuard {
	let registry: Registry | undefined;
	let why: string | undefined;

	const redact = async (prompt: string): Promise<string> => {
		registry ??= createRegistry({ asyncTimeoutMs }).use(modelRoles).use(redactor());
		const message = { role: "user", content: prompt, timestamp: 0 };
		const conversion = await registry.runAsync([message] as unknown as AgentMessage[]);
		const content = (conversion.output[0] as { content?: unknown } | undefined)?.content;
		if (conversion.failed || conversion.problems.length > 0 || typeof content !== "string") {
			const problem = conversion.problems.at(-1);
			throw new Error(problem === undefined ? "the scan gave no text back" : problem.message);
		}
		return content;
	};

	return {
		async handle(event, ctx) {
			why = undefined;
			try {
				if (host.hardening().redactSecrets !== true) return undefined;
				const prompt = event.systemPrompt;
				if (typeof prompt !== "string" || prompt === "") return undefined;
				const redacted = await redact(prompt);
				return redacted === prompt ? undefined : { systemPrompt: redacted };
			} catch (error) {
				why = `its system prompt could not be scanned for secrets (${errorText(error)})`;
				reporter.error(ctx, [
					`request withheld (fail closed): ${why}. Nothing of this turn was sent; turn redactSecrets off, or fix the scanner (@secretlint/core and @secretlint/secretlint-rule-preset-recommend).`,
				]);
				try {
					ctx.abort();
				} catch {
					// The request handler withholds the request all the same.
				}
				return { systemPrompt: WITHHELD_SYSTEM_PROMPT };
			}
		},
		withheld: () => why,
	};
}
