/**
 * pi's system prompt through `redactSecrets` where pi's request event does not carry it: pi 0.73.1
 * (and any pi whose full transcript the extension cannot see) sends the system prompt beside the
 * messages of its `context` event, so a secret in AGENTS.md or in `--append-system-prompt` would reach
 * the model unscanned. Its `before_agent_start` event passes the prompt of each turn through the
 * extensions and takes the one they return; the handler here returns it redacted.
 */
import type { AgentMessage } from "@earendil-works/pi-agent-core";
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
	/**
	 * Before a request: the system prompt pi's agent is about to send (`ctx.getSystemPrompt()`) is one
	 * this guard passed, or is scanned now; rejects (the request is then withheld) when the turn's
	 * prompt was withheld, or the prompt holds a secret pi gave no chance to redact (a turn that did
	 * not start from a prompt, such as an extension's message, or a prompt changed after this
	 * extension's `before_agent_start`).
	 */
	check(ctx: PiContext): Promise<void>;
	/**
	 * The prompt as `handle` would give it to pi for a turn, for `/llm-context` to show: redacted while
	 * `redactSecrets` is on ({@link WITHHELD_SYSTEM_PROMPT} when it cannot be scanned), else as it is.
	 * Never rejects.
	 */
	preview(prompt: string): Promise<string>;
}

/** Prompts a guard remembers having passed (a session has a few: per tool set, per reload). */
const VETTED = 16;

/**
 * A guard that redacts each turn's system prompt while the `redactSecrets` switch is on, with the
 * host's own `redactSecrets` plugin ({@link Host.redaction}: the very instance that redacts the
 * messages, so the prompt's secrets, the known values of `env`, `envFiles` and `values` included, get
 * the placeholders, and numbers, the messages get; none of the other plugins: a prompt is not a
 * message to trim, prune or lint), or `redactor()` when given (a test's scanner).
 *
 * Contract: never throws. With the switch off, or a prompt that is not a non-empty string, returns
 * `undefined` (pi's prompt unchanged). A prompt with no secret is returned as it is; one with
 * secrets, redacted. When the scan fails or does not finish in `asyncTimeoutMs`, shows an error,
 * aborts pi's run, returns {@link WITHHELD_SYSTEM_PROMPT} and `withheld()` says why until the next
 * turn's prompt is scanned. `check` then stands before each request: a prompt pi is about to send
 * that the guard did not pass (an extension loaded after this one changed it, or the turn did not
 * start from a prompt) is scanned there, and one that holds a secret withholds the request, since a
 * request event cannot change the prompt. The tool definitions pi sends beside it are not scanned.
 *
 * @example
 * const guard = systemPromptGuard(host, reporter);
 * pi.on("before_agent_start", (event, ctx) => guard.handle(event, ctx));
 */
export function systemPromptGuard(
	host: Host,
	reporter: Reporter,
	asyncTimeoutMs: number,
	redactor?: () => Plugin,
): SystemPromptGuard {
	// The registry of the plugin it was made with: made again when the configuration gives another.
	let made: { plugin: Plugin; registry: Registry } | undefined;
	let own: Plugin | undefined;
	let why: string | undefined;
	const vetted = new Set<string>();
	const pass = (prompt: string): void => {
		if (vetted.size >= VETTED) vetted.clear();
		vetted.add(prompt);
	};

	const redact = async (prompt: string): Promise<string> => {
		if (redactor !== undefined) own ??= redactor();
		const plugin = redactor === undefined ? host.redaction() : own;
		if (plugin === undefined) throw new Error("the redactSecrets switch gave no plugin");
		if (made?.plugin !== plugin)
			made = { plugin, registry: createRegistry({ asyncTimeoutMs }).use(modelRoles).use(plugin) };
		const { registry } = made;
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
				pass(redacted);
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
		async check(ctx) {
			if (why !== undefined) throw new Error(why);
			if (host.hardening().redactSecrets !== true || typeof ctx.getSystemPrompt !== "function") return;
			const prompt: unknown = ctx.getSystemPrompt();
			if (typeof prompt !== "string" || prompt === "" || vetted.has(prompt)) return;
			let redacted: string;
			try {
				redacted = await redact(prompt);
			} catch (error) {
				throw new Error(`its system prompt could not be scanned for secrets (${errorText(error)})`);
			}
			if (redacted !== prompt) {
				throw new Error(
					"its system prompt holds a secret, and pi sends it without passing it through before_agent_start, where the extension redacts it (a turn another extension started, or a prompt changed after this extension's handler). Remove the secret from AGENTS.md or the system prompt, or start the turn with a prompt",
				);
			}
			pass(prompt);
		},
		async preview(prompt) {
			if (host.hardening().redactSecrets !== true || prompt === "") return prompt;
			try {
				return await redact(prompt);
			} catch {
				return WITHHELD_SYSTEM_PROMPT;
			}
		},
	};
}
