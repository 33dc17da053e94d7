/**
 * The `lint` plugin: an `afterConvert` tap that reports (or, in `repair` mode, drops) what pi's providers would reject;
 * its options and modes live here, the checks themselves in lint-check.ts.
 */
import type { Message } from "@earendil-works/pi-ai";
import { ConversionError, LintError } from "../errors.js";
import { type HookContext, type MessageSource, type Plugin, Stage } from "../registry/types.js";
import { errorText, isRecord, type LiveSetting, quote, readSetting } from "../values.js";
import { check, type Finding, findingText, repaired } from "./lint-check.js";

/** Name of the `lint` plugin (its tap on `afterConvert`). */
export const LINT_PLUGIN = "convert-to-llm:lint";

export type { LintRule } from "../errors.js";

/**
 * What the lint does with what it finds.
 *
 * Contract: `"report"` never changes the output. `"repair"` first drops, without reporting them,
 * empty `user`/`assistant` messages and entries that are not messages (the only safe repair), then
 * reports what is left; it is idempotent and returns the same array when nothing is dropped.
 *
 * @example
 * lint({ mode: process.env.CI === "true" ? "report" : "repair" });
 */
export type LintMode = "report" | "repair";

/**
 * Options of {@link lint}.
 *
 * Contract: read once, when `lint()` is called, except `imagesBlocked` given as a function, which is
 * read on every conversion; any `mode` but `"repair"` reports.
 *
 * @example
 * lint({ mode: "repair", imagesBlocked: () => settings.blockImages });
 */
export interface LintOptions {
	/**
	 * `report` (default): report every finding. `repair`: drop empty `user`/`assistant` messages first
	 * (their one safe repair) and report the rest; the other findings have no repair that is safe.
	 */
	mode?: LintMode;
	/**
	 * Whether images are blocked, so that an image left in the output is a finding. Give the same
	 * setting as `blockImages({ enabled })`; a function is read on every conversion. Default `false`.
	 */
	imagesBlocked?: LiveSetting;
}

/** The role and source of an output entry, read so that a hostile entry cannot make a report throw. */
function whereFrom(message: unknown, ctx: HookContext): { role?: string; source?: MessageSource } {
	if (!isRecord(message)) return {};
	let role: unknown;
	let source: MessageSource | undefined;
	try {
		role = message.role;
		source = ctx.sourceOf(message as unknown as Message);
	} catch {
		// An unreadable-message finding: its role stays unknown.
	}
	return { role: typeof role === "string" ? role : undefined, source };
}

function toError(finding: Finding, messages: readonly Message[], ctx: HookContext): LintError {
	const message: unknown = messages[finding.outputIndex];
	const { role, source } = whereFrom(message, ctx);
	const where =
		source === undefined
			? "made after conversion by a tap that did not link it with ctx.inheritSource"
			: `from input message ${source.index}, converted by "${source.plugin}"`;
	return new LintError(
		`lint [${finding.rule}]: output message ${finding.outputIndex} (${role === undefined ? "no role" : `role ${quote(role)}`}, ${where}) ${findingText(finding, isRecord(message))}.`,
		{
			rule: finding.rule,
			outputIndex: finding.outputIndex,
			role,
			index: source?.index,
			plugin: source?.plugin,
		},
	);
}

/**
 * Checks the converted `Message[]` for what providers reject or silently patch: empty messages, tool
 * calls and results without their partner, images left while images are blocked, timestamps that are
 * not finite numbers (see {@link LintRule}). Each finding is a {@link LintError} naming the output
 * message, the input message it came from and the plugin responsible.
 *
 * Contract: taps `afterConvert` at `Stage.VERIFY` (after every ordinary tap and sanitizer) and turns
 * source tracking on. Lenient registries report each finding on `hooks.error`, in output order; strict
 * registries throw the first. Mode `report` never changes the output; mode `repair` drops empty
 * `user`/`assistant` messages (and non-messages) without reporting them and checks what is left, so it
 * is idempotent. A lenient registry with no `hooks.error` tap skips the check (nobody would hear of a
 * finding; `repair` still repairs). Taps on `afterConvertAsync` run after it and are not checked. Options are read once,
 * `imagesBlocked` given as a function on every conversion.
 *
 * @example
 * const registry = createDefaultRegistry({ strict: process.env.CI === "true" })
 *   .use(blockImages({ enabled: () => settings.blockImages }))
 *   .use(lint({ mode: "repair", imagesBlocked: () => settings.blockImages }));
 */
export function lint(options: LintOptions = {}): Plugin {
	const repair = options.mode === "repair";
	const imagesBlocked = options.imagesBlocked ?? false;
	const settingFailed = (cause: unknown) =>
		new ConversionError(
			`lint: its imagesBlocked() setting threw: ${errorText(cause)}. Images were checked as blocked all the same; fix the setting callback.`,
			{ plugin: LINT_PLUGIN, cause },
		);

	return {
		name: LINT_PLUGIN,
		apply(registry) {
			registry.trackSources();
			registry.hooks.afterConvert.tap({ name: LINT_PLUGIN, stage: Stage.VERIFY }, (messages, ctx) => {
				// Nobody would hear of a finding: skip the check (lenient, no error taps, not an explain run).
				if (!ctx.listening) return repair ? repaired(messages, undefined).output : messages;
				// Read before the pass that checks, reported after what the repair found (the order of the reports).
				let failed: unknown;
				let threw = false;
				const blocked = readSetting(imagesBlocked, (cause) => {
					threw = true;
					failed = cause;
				});
				const { output, unreadable, findings } = repair
					? repaired(messages, blocked)
					: { output: messages, unreadable: NONE, findings: check(messages, blocked) };
				// Strict runs throw the first finding from `report`; explain runs collect them all.
				for (const finding of unreadable) ctx.report(toError(finding, messages, ctx));
				if (threw) ctx.report(settingFailed(failed));
				for (const finding of findings) ctx.report(toError(finding, output, ctx));
				return output;
			});
		},
	};
}

const NONE: readonly Finding[] = Object.freeze([]);
