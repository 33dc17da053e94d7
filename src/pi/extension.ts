/**
 * The convert-to-llm pi extension: pi's history goes through a convert-to-llm registry before every
 * model request. With the default configuration that registry is pi's own conversion, so requests
 * are byte for byte what pi sends without the extension; the user's switches add hardening plugins,
 * other extensions add roles and filters over `pi.events`, and `/llm-context` shows the result.
 */
import { COMMAND, runCommand, type SystemSource } from "./command.js";
import { claimRuntime } from "./copies.js";
import { ASYNC_TAP_LIMIT_MS, createHost } from "./host.js";
import { readNextSystem } from "./next-system.js";
import type { PiContext, PiExtensionApi } from "./pi-api.js";
import { piSettingsPlaces } from "./pi-settings-files.js";
import { READY_CHANNEL, USE_CHANNEL } from "./protocol.js";
import { createReporter } from "./report.js";
import { requestHandler } from "./request.js";
import { createSessionRequests } from "./session-requests.js";
import { DEFAULT_HARDENING, readHardening, registerFlag } from "./settings.js";
import { hardenBranchSummary, hardenCompaction } from "./summaries.js";
import { systemPromptGuard } from "./system-prompt.js";

/**
 * Whether this pi has the `context_with_system` event (pi 0.87 and later): it sees the full
 * transcript, system messages included, and sends what it returns as it is. pi says nothing about
 * its events, so the line is told by an API of the same era that 0.73.1 lacks
 * (`pi.registerVirtualModel`, 0.99); between 0.87 and 0.99 the extension falls back to `context`.
 */
const hasFullTranscript = (pi: PiExtensionApi): boolean => typeof pi.registerVirtualModel === "function";

/**
 * The extension's factory, the package's `pi.extensions` entry (`dist/pi.js`).
 *
 * Contract: registers the `--convert-to-llm` flag, the `/llm-context` command, one request handler
 * (`context_with_system` on pi 1.x, `context` on 0.73.1, with `before_agent_start` there to redact
 * the system prompt when `redactSecrets` is on), the summary handlers
 * (`session_before_compact`, `session_before_tree`: pi's compaction and branch summaries go through
 * the same registry when a plugin or switch is active), a `message_end` handler that reads each
 * response's billed usage (the calibrated token counter of `/llm-context` learns from it) and a
 * listener for plugin offers on `pi.events`, then announces itself there so that extensions loaded
 * before it offer again; it starts nothing (no timers, files or sockets). The configuration is read,
 * and the memory of the session's requests cleared, at `session_start`; while the configuration
 * holds anything the extension cannot read, every request and summary is withheld. A
 * later copy of the package in the same pi (see copies.ts) registers nothing but a warning.
 *
 * @example
 * pi -e npm:convert-to-llm --convert-to-llm escapeSummaries,safeFences
 */
export default function convertToLlmExtension(pi: PiExtensionApi): void {
	const reporter = createReporter();
	// A second copy of this package in the same pi registers nothing: pi refuses two owners of a flag.
	const second = claimRuntime(pi);
	if (second !== undefined) {
		pi.on("session_start", (_event: unknown, ctx: PiContext) => reporter.warn(ctx, [second]));
		return;
	}
	// The last request of the session (its prompt prefix) and its bill: one session at a time.
	const requests = createSessionRequests();
	// clearToolResults counts the request as it will bill: with the session's calibrated counter.
	const host = createHost(pi, DEFAULT_HARDENING, ASYNC_TAP_LIMIT_MS, { tokenCounter: () => requests.counter() });
	// Problems with offers arrive without a ctx to show them with: shown at the next chance.
	const pending: string[] = [];
	const flush = (ctx: PiContext): void => {
		if (pending.length > 0) reporter.warn(ctx, pending.splice(0));
	};

	registerFlag(pi);
	pi.events.on(USE_CHANNEL, (data) => {
		for (const problem of host.offer(data)) pending.push(problem);
	});
	pi.on("session_start", (_event: unknown, ctx: PiContext) => {
		requests.reset();
		const { hardening, problems } = readHardening(pi, piSettingsPlaces(ctx.cwd));
		host.configure(hardening, ctx.cwd, problems);
		reporter.configuration(ctx, problems);
		flush(ctx);
	});
	// The whole handler is the fail-closed boundary: whatever throws in it withholds the request.
	const read = (ctx: PiContext) => readNextSystem(pi, ctx);
	let system: SystemSource;
	if (hasFullTranscript(pi)) {
		pi.on("context_with_system", requestHandler(host, reporter, flush, requests));
		system = { transcript: true, read, preview: async (prompt) => prompt };
	} else {
		// The system prompt is not in the `context` event's messages: redacted where pi passes it on.
		const guard = systemPromptGuard(host, reporter, ASYNC_TAP_LIMIT_MS);
		pi.on("before_agent_start", (event, ctx: PiContext) => guard.handle(event, ctx));
		const before = async (ctx: PiContext): Promise<void> => {
			flush(ctx);
			await guard.check(ctx);
		};
		pi.on("context", requestHandler(host, reporter, before, requests));
		system = { transcript: false, read, preview: (prompt) => guard.preview(prompt) };
	}
	// Each response's usage is the bill of the request sent last: the calibrated counter learns it.
	pi.on("message_end", (event: { message?: unknown } | undefined) => requests.ended(event?.message));
	// pi's summary requests use pi's own conversion and raise no request event: hardened here.
	pi.on("session_before_compact", (event, ctx: PiContext) => hardenCompaction(host, reporter, event, ctx));
	pi.on("session_before_tree", (event, ctx: PiContext) => hardenBranchSummary(host, reporter, event, ctx));
	pi.registerCommand(COMMAND, {
		description:
			"Show what the next model request sends, as convert-to-llm converts it (--json: the Message[] only; --html: write an HTML report beside the session)",
		handler: (args, ctx) => {
			flush(ctx);
			return runCommand(host, reporter, args, ctx, system, requests);
		},
	});
	pi.events.emit(READY_CHANNEL, { version: 1 });
}
