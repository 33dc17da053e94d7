/**
 * One request: pi's history through the shared registry, the problems shown, and the request
 * withheld (fail closed) when the conversion cannot be trusted.
 */
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { type ConvertToLlmError, ErrorCode } from "../index.js";
import { HISTORY } from "../registry/prefix.js";
import { errorText } from "../values.js";
import type { Host } from "./host.js";
import type { PiContext, PiContextResult } from "./pi-api.js";
import { problemText, type RequestOutcome } from "./problem-text.js";
import { breakNotice, tokensFrom } from "./prompt-cache.js";
import { type Reporter, showAll } from "./report.js";
import { currentContextWindow, modelOf, type SessionRequests } from "./session-requests.js";

/** What the model receives in place of a withheld request, should pi send it despite the abort. */
export const WITHHELD_TEXT =
	"[convert-to-llm withheld this request: its context could not be converted safely. Nothing of the conversation was sent.]";

/**
 * The messages for one request, converted by the shared registry (pi then passes them on unchanged:
 * they hold only model roles).
 *
 * Contract: never throws or rejects (pi would log the error and send the unconverted history: fail
 * open). A request is either the whole conversion or withheld: never empty, never the system prompt
 * alone. Problems the registry reports, and offered plugins that failed to apply, are shown as
 * warnings (each once), told as a pi user reads them ({@link problemText}); the request goes out with
 * what the plugins decided (a message a hardening plugin could not read is dropped). Every failure
 * withholds the request: the configuration holds something the extension cannot read (a misspelled
 * switch may be a safety switch left off: {@link Host.unreadable}), the conversion left nothing of
 * the conversation while the history had some ({@link leavesConversation}: `maxTokens` below the
 * newest prompt, a `redactSecrets` scanner that cannot load), the conversion failed as a whole
 * (`Conversion.failed`: something no guard caught, such as a throwing interceptor, or a
 * post-conversion tap that did not settle within `ASYNC_TAP_LIMIT_MS`), anything threw on the way,
 * or, under `strict`, any problem was reported. Withholding aborts pi's run, returns only the leading
 * system messages (pi requires one at index 0) and a user message saying so ({@link WITHHELD_TEXT}),
 * and shows, every time, an error that says why and what to change.
 *
 * With the session's `requests`, the conversion is compared with the one sent last to the same model
 * (`runAsync(history, { previous })`): the first time in the session a plugin breaks the prompt
 * prefix, a warning says which, what it costs and the step that avoids it. A break is a notice, never
 * a problem: it withholds nothing, strict or not.
 *
 * @example
 * pi.on("context_with_system", (event, ctx) => convertRequest(host, reporter, event.messages, ctx, requests));
 */
export async function convertRequest(
	host: Host,
	reporter: Reporter,
	messages: unknown[],
	ctx: PiContext,
	requests?: SessionRequests,
): Promise<PiContextResult> {
	try {
		const unreadable = host.unreadable();
		if (unreadable.length > 0) return withhold(reporter, messages, ctx, [...unreadable], UNREADABLE, requests);
		const { registry, plugins, problems: buildProblems, degraded } = host.build("request", currentContextWindow(ctx));
		const strict = host.hardening().strict;
		const model = modelOf(ctx);
		const previous = requests?.previous(model);
		// pi's AgentMessage of either line; the registry checks each message it is given.
		const conversion = await registry.runAsync(messages as AgentMessage[], { previous });
		// A prefix break is a notice about the bill, not a problem with the request (told below, once).
		const reported = conversion.problems.filter((problem) => problem.code !== ErrorCode.PREFIX_BREAK);
		const told = (outcome: RequestOutcome): string[] => [
			...buildProblems,
			...reported.map((problem) => problemText(problem, outcome)),
		];
		const hold = (problems: string[], why: string) => withhold(reporter, messages, ctx, problems, why, requests);
		if (conversion.failed) return hold(told("withheld"), failure(reported));
		if (!leavesConversation(messages, conversion.output)) {
			const problems = told("withheld");
			return hold(
				problems,
				problems.length > 0 ? `${NOTHING_LEFT}; what made it so, and what to change` : NOTHING_LEFT,
			);
		}
		if (strict && (degraded || reported.length > 0)) {
			return hold(told("strict"), "the conversion reported problems and strict is on");
		}
		reporter.warn(ctx, told("sent"));
		if (requests !== undefined) {
			const { prefix } = conversion;
			if (
				previous !== undefined &&
				prefix?.breakAt != null &&
				prefix.cause !== null &&
				prefix.cause !== HISTORY &&
				requests.firstBreak(prefix.cause)
			) {
				const cost = tokensFrom(requests.counter(), conversion.output, prefix.breakAt, model);
				const offeredBy = new Map(plugins.map(({ plugin, from }) => [plugin.name, from]));
				const notice = breakNotice(prefix, previous.output.length, cost, {
					hardening: host.hardening(),
					offeredBy,
				});
				showAll(ctx, [notice], "warning");
			}
			requests.sent(conversion, model);
		}
		return { messages: conversion.output };
	} catch (error) {
		return withhold(reporter, messages, ctx, [], `the conversion failed: ${errorText(error)}`, requests);
	}
}

/** Why requests are withheld while the configuration has problems. */
export const UNREADABLE =
	'the convert-to-llm configuration holds what it cannot read, and a misspelled or unreadable switch may be a safety switch you meant to turn on. Fix it in settings.json ("convertToLlm") or the --convert-to-llm flag, then /reload (a flag: restart pi)';

/** Why a request whose conversion kept no conversation is withheld. */
const NOTHING_LEFT =
	"the conversion left nothing of the conversation to send (no message, or the system messages alone), so the model would not see the prompt";

/**
 * Whether a conversion keeps some of the conversation: its output holds a message that is not a
 * `system` message, or the history held none to keep (a request of the system prompt alone, or of
 * nothing, is never what pi meant to send).
 *
 * Contract: never throws; a message whose role cannot be read counts as conversation.
 *
 * @example
 * leavesConversation([system, user], [system]); // false: the prompt was cut away
 */
export function leavesConversation(history: readonly unknown[], output: readonly unknown[]): boolean {
	const conversational = (message: unknown): boolean => {
		try {
			return (message as { role?: unknown } | null)?.role !== "system";
		} catch {
			return true;
		}
	};
	if (output.some(conversational)) return true;
	return !(Array.isArray(history) && history.some(conversational));
}

/**
 * The handler of pi's request event (`context_with_system` or `context`): `before(ctx)`, then
 * {@link convertRequest}, inside one fail-closed boundary: whatever throws (reading the event,
 * `before`, the conversion) withholds the request.
 *
 * @example
 * pi.on("context", requestHandler(host, reporter, (ctx) => flush(ctx)));
 */
export function requestHandler(
	host: Host,
	reporter: Reporter,
	before: (ctx: PiContext) => void | Promise<void>,
	requests?: SessionRequests,
): (event: { messages: unknown[] }, ctx: PiContext) => Promise<PiContextResult> {
	return async (event, ctx) => {
		let messages: unknown[] = [];
		try {
			messages = event.messages;
			await before(ctx);
			return await convertRequest(host, reporter, messages, ctx, requests);
		} catch (error) {
			return withhold(
				reporter,
				messages,
				ctx,
				[],
				`the request could not be handled: ${errorText(error)}`,
				requests,
			);
		}
	};
}

/** Why a failed conversion failed, from its last problem (the one that failed it). */
function failure(problems: readonly ConvertToLlmError[]): string {
	const last = problems.at(-1);
	if (last === undefined) return "the conversion failed";
	if (last.code === ErrorCode.ASYNC_HOOK_TIMEOUT) return `plugin "${last.plugin}" did not finish in time`;
	return `the conversion failed: ${last.message}`;
}

function withhold(
	reporter: Reporter,
	messages: unknown[],
	ctx: PiContext,
	problems: string[],
	why: string,
	requests?: SessionRequests,
): PiContextResult {
	// No response will bill the request sent before this one.
	requests?.withheld();
	reporter.error(ctx, [`request withheld (fail closed): ${why}.`, ...problems]);
	try {
		ctx.abort();
	} catch {
		// The returned context is the safe one either way.
	}
	const head: unknown[] = [];
	try {
		for (const message of Array.isArray(messages) ? messages : []) {
			if ((message as { role?: unknown } | null)?.role !== "system") break;
			head.push(message);
		}
	} catch {
		// A message whose role cannot be read ends the head: what is kept is only ever pi's own system messages.
	}
	head.push({ role: "user", content: [{ type: "text", text: WITHHELD_TEXT }], timestamp: Date.now() });
	return { messages: head };
}
