/**
 * One request: pi's history through the shared registry, the problems shown, and the request
 * withheld (fail closed) when the conversion cannot be trusted.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { ErrorCode } from "../index.js";
import { errorText } from "../values.js";
import type { Host } from "./host.js";
import type { PiContext, PiContextResult } from "./pi-api.js";
import type { Reporter } from "./report.js";

/** What the model receives in place of a withheld request, should pi send it despite the abort. */
export const WITHHELD_TEXT =
	"[convert-to-llm withheld this request: its context could not be converted safely. Nothing of the conversation was sent.]";

/**
 * The messages for one request, converted by the shared registry (pi then passes them on unchanged:
 * they hold only model roles).
 *
 * Contract: never throws or rejects (pi would log the error and send the unconverted history: fail
 * open). Problems the registry reports, and offered plugins that failed to apply, are shown as
 * warnings (each once); the request goes out with what the plugins decided (a message a hardening
 * plugin could not read is dropped). When the conversion throws, when a post-conversion tap does not
 * settle in time (`ASYNC_TAP_LIMIT_MS`), or when it reports any problem under `strict`, the request
 * is withheld: pi's run is aborted and the
 * returned messages keep only the leading system messages (pi requires one at index 0) and a user
 * message saying so ({@link WITHHELD_TEXT}); the reason is shown as an error.
 *
 * @example
 * pi.on("context_with_system", (event, ctx) => convertRequest(host, reporter, event.messages, ctx));
 */
export async function convertRequest(
	host: Host,
	reporter: Reporter,
	messages: unknown[],
	ctx: PiContext,
): Promise<PiContextResult> {
	try {
		const { registry, problems: buildProblems } = host.build();
		// pi's AgentMessage of either line; the registry checks each message it is given.
		const explanation = await registry.explainAsync(messages as AgentMessage[]);
		const problems = [...buildProblems];
		for (const error of explanation.errors) problems.push(error.message);
		const hung = explanation.errors.find((error) => error.code === ErrorCode.ASYNC_HOOK_TIMEOUT);
		if (hung !== undefined) {
			return withhold(reporter, messages, ctx, problems, `plugin "${hung.plugin}" did not finish in time`);
		}
		if (host.hardening().strict && problems.length > 0) {
			return withhold(reporter, messages, ctx, problems, "the conversion reported problems and strict is on");
		}
		reporter.warn(ctx, problems);
		return { messages: explanation.output };
	} catch (error) {
		return withhold(reporter, messages, ctx, [], `the conversion failed: ${errorText(error)}`);
	}
}

function withhold(
	reporter: Reporter,
	messages: unknown[],
	ctx: PiContext,
	problems: string[],
	why: string,
): PiContextResult {
	reporter.error(ctx, [`request withheld (fail closed): ${why}.`, ...problems]);
	try {
		ctx.abort();
	} catch {
		// The returned context is the safe one either way.
	}
	const head: unknown[] = [];
	try {
		for (const message of messages) {
			if ((message as { role?: unknown } | null)?.role !== "system") break;
			head.push(message);
		}
	} catch {
		// A message whose role cannot be read ends the head: what is kept is only ever pi's own system messages.
	}
	head.push({ role: "user", content: [{ type: "text", text: WITHHELD_TEXT }], timestamp: Date.now() });
	return { messages: head };
}
