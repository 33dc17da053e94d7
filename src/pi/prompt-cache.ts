/**
 * What the prompt cache and the bill look like from pi, in words: the notice shown the first time
 * in a session a filter breaks the request's prompt prefix (which filter, what it costs, the step
 * that avoids it), and `/llm-context`'s section on what the next request reuses and what it will be
 * billed. Every token figure names its counter: pi's chars/4 estimate, the calibrated counter, or
 * the bill.
 */
import type { Message } from "@earendil-works/pi-ai";
import type { CalibratedCounter, TokenCount } from "../filters/calibrated-counter.js";
import { CLEAR_TOOL_RESULTS_PLUGIN, PRUNE_MESSAGES_PLUGIN, TRIM_TO_TOKENS_PLUGIN } from "../filters/index.js";
import type { Prefix } from "../registry/explain-types.js";
import { HISTORY } from "../registry/prefix.js";
import { format, plural } from "../view/render.js";
import type { LastBill } from "./session-requests.js";
import { DEFAULT_PRUNE_STEP, FLAG, type PiHardening, pruneStepOf, SETTINGS_KEY, trimStepOf } from "./settings.js";

/** What a provider bills a cache write and a cache read at, as a share of its input price (Anthropic's prices). */
const PRICES = "a cache write (about 1.25× the input price) instead of a cache read (about 0.1×)";

/** What the advice needs to know of the configuration: the switches, and who offered which plugin. */
export interface BreakContext {
	hardening: PiHardening;
	/** Plugin name → the extension that offered it (`usePlugins`). */
	offeredBy: ReadonlyMap<string, string>;
}

/** The tokens of `output` from message `from` on, by `counter` (for `model`), with the counter's label. */
export function tokensFrom(
	counter: CalibratedCounter,
	output: readonly Message[],
	from: number,
	model: string | undefined,
): TokenCount {
	const options = model === undefined ? undefined : { model };
	const whole = counter.count(output, options);
	const head = counter.count(output.slice(0, from), options);
	const tail = (a: number, b: number) => (Number.isFinite(a) && Number.isFinite(b) ? Math.max(0, a - b) : a);
	return { ...whole, tokens: tail(whole.tokens, head.tokens), estimate: tail(whole.estimate, head.estimate) };
}

/**
 * A token figure with its counter: `~31,200 tokens by pi's estimate (chars/4)`,
 * `~13,900 tokens, calibrated on 3 billed requests`.
 */
export function figure(count: TokenCount): string {
	const tokens = Number.isFinite(count.tokens)
		? `~${plural(count.tokens, "token")}`
		: "an uncountable number of tokens";
	if (count.kind !== "estimate") return `${tokens}, ${count.label}`;
	// An estimate where bills were seen: say why they do not apply (another model).
	const why = count.observations > 0 && count.fallback !== undefined ? `; ${count.fallback}` : "";
	return `${tokens} by pi's estimate (chars/4${why})`;
}

/**
 * The notice for the first break a plugin causes in a session: which plugin, what it costs (the
 * request from the break on, as a cache write), and how to avoid it (the step of the switch that
 * set it, or what to ask of the extension that offered it).
 *
 * @example
 * breakNotice({ kept: 1, breakAt: 1, cause: TRIM_TO_TOKENS_PLUGIN }, 40, cost, context);
 */
export function breakNotice(prefix: Prefix, previousLength: number, cost: TokenCount, context: BreakContext): string {
	const cause = prefix.cause ?? HISTORY;
	return `${JSON.stringify(cause)} broke the prompt cache: it changed message #${prefix.breakAt} of the ${plural(previousLength, "message")} the previous request sent, so the provider bills this request from there on (${figure(cost)}) as ${PRICES}. ${stepAdvice(cause, context)} (Shown once per session for each plugin; /llm-context shows what the next request reuses.)`;
}

/** How to keep `cause` from breaking the prefix: the step of the switch that sets it, if any. */
export function stepAdvice(cause: string, { hardening, offeredBy }: BreakContext): string {
	const offered = offeredBy.get(cause);
	if (offered === undefined && cause === TRIM_TO_TOKENS_PLUGIN && hardening.maxTokens !== undefined) {
		const step = trimStepOf(hardening);
		const quarter = Math.floor(hardening.maxTokens / 4);
		if (step !== undefined)
			return `maxTokens moves its window in steps of ${plural(step, "token")} (maxTokensStep), so this happens once per ${format(step)} tokens the conversation grows; a larger maxTokensStep (up to maxTokens) breaks it less often.`;
		if (quarter === 0) return `maxTokens (${hardening.maxTokens}) is too small to move in steps.`;
		return `maxTokens moves its window with every message because maxTokensStep is 0: leave maxTokensStep out (a quarter of maxTokens, ${quarter}) or set one, ${howToSet("maxTokensStep", quarter)}, so that it moves in steps and keeps the prefix in between.`;
	}
	if (offered === undefined && cause === PRUNE_MESSAGES_PLUGIN && hardening.prune !== undefined) {
		const step = pruneStepOf(hardening);
		if (step !== undefined)
			return `prune moves its toolCalls windows in steps of ${plural(step, "message")} (pruneStep), so this happens once per ${format(step)} messages; a larger pruneStep breaks it less often.`;
		return `prune moves its toolCalls windows with every message because pruneStep is 0: leave pruneStep out (${DEFAULT_PRUNE_STEP} messages) or set one, ${howToSet("pruneStep", DEFAULT_PRUNE_STEP)}, so that they move in steps.`;
	}
	if (offered === undefined && cause === CLEAR_TOOL_RESULTS_PLUGIN && hardening.clearToolResults !== undefined)
		return `clearToolResults moves its cleared boundary only when that clears at least clearAtLeast tokens (by default a tenth of the smallest token trigger), so this happens once per move; a larger "clearAtLeast", or "when": "cache-cold" (move only once the cache has expired), in "clearToolResults" under "${SETTINGS_KEY}" in settings.json breaks it less often.`;
	const who = offered === undefined ? "It" : `It was offered by ${offered}, which`;
	return `${who} has no step switch here: if it changes earlier messages on every turn, it should move in steps, as trimToTokens and pruneMessages do with their step option; a break now and then comes from a change in what it does (a setting turned on or off).`;
}

/** `"maxTokensStep": 30000 under "convertToLlm" in settings.json, or maxTokensStep=30000 in --convert-to-llm`. */
const howToSet = (key: string, value: number): string =>
	`e.g. "${key}": ${value} under "${SETTINGS_KEY}" in settings.json, or ${key}=${value} in --${FLAG}`;

/** What `/llm-context` knows of the next request's prefix and tokens (see {@link outlookLines}). */
export interface Outlook {
	/** The dry conversion of the next request's history against the last request sent. */
	next: { output: readonly Message[]; prefix: Prefix | undefined } | { failed: string };
	/** How many messages the last request sent held; `undefined` when there is none to compare with. */
	previousLength: number | undefined;
	counter: CalibratedCounter;
	model: string | undefined;
	lastBill: LastBill | undefined;
	context: BreakContext;
	/** pi 0.73.1: the system prompt and tools go beside the messages, so pi's estimate of the messages leaves them out. */
	beside: boolean;
}

/**
 * `/llm-context`'s section on the prompt cache and the bill, one unfolded line each: what the next
 * request repeats of the last one sent (messages and tokens) and what breaks it, the next request's
 * tokens by pi's estimate and by the calibrated counter side by side, and the last request's bill
 * with how far each counter was from it; before the first bill, that there is none yet.
 */
export function outlookLines(outlook: Outlook): string[] {
	const lines = ["── Prompt cache and billed tokens"];
	const { counter, model } = outlook;
	const options = model === undefined ? undefined : { model };
	if ("failed" in outlook.next) {
		lines.push(`next request: its conversion failed (${outlook.next.failed}): nothing to say of its prefix.`);
	} else {
		const { output, prefix } = outlook.next;
		lines.push(reuseLine(outlook, output, prefix));
		const next = counter.count(output, options);
		const calibrated =
			next.kind === "calibrated"
				? figure(next)
				: next.observations === 0
					? "no calibrated count yet: no bill seen in this session (it starts with the first response's usage)"
					: `no calibrated count (${next.fallback})`;
		lines.push(
			`next request: ${figure({ ...next, kind: "estimate", tokens: next.estimate, fallback: undefined })}${outlook.beside ? " of the messages" : ""} · ${calibrated}`,
		);
	}
	lines.push(billLine(outlook.lastBill));
	if (outlook.beside)
		lines.push(
			"pi 0.73.1 sends its system prompt and tools beside the messages: pi's estimate above counts the messages only; the bill and the calibrated count include them.",
		);
	return lines;
}

function reuseLine(outlook: Outlook, output: readonly Message[], prefix: Prefix | undefined): string {
	const { previousLength, counter, model } = outlook;
	if (prefix === undefined || previousLength === undefined)
		return "reuse: the extension has sent no request in this session yet (or since /reload, or to this model), so it cannot say what the provider has cached.";
	const kept = tokensFrom(counter, output.slice(0, prefix.kept), 0, model);
	if (prefix.breakAt === null)
		return `reuse: the next request repeats the ${plural(previousLength, "message")} the last one sent (${figure(kept)}) as its prefix: the provider can read them from its cache, and only what follows is new.`;
	const rest = tokensFrom(counter, output, prefix.breakAt, model);
	const cause = prefix.cause ?? HISTORY;
	const why =
		cause === HISTORY
			? "the history changed there (a compaction, /tree, an edit, or new system messages)"
			: `${JSON.stringify(cause)} changed it`;
	const advice = cause === HISTORY ? "" : ` ${stepAdvice(cause, outlook.context)}`;
	return `reuse: the next request repeats ${format(prefix.kept)} of the ${plural(previousLength, "message")} the last one sent (${figure(kept)}), then differs at #${prefix.breakAt} (${why}): the rest (${figure(rest)}) goes as ${PRICES}.${advice}`;
}

function billLine(bill: LastBill | undefined): string {
	if (bill === undefined) return "last request: no bill seen in this session yet.";
	const { observation, messages } = bill;
	const of = `last request (${plural(messages, "message")})`;
	if (!observation.accepted) return `${of}: its usage could not be read (${observation.reason}).`;
	const { billed, predicted } = observation;
	const off = (tokens: number) => {
		const share = ((tokens - billed) / billed) * 100;
		return `${share >= 0 ? "+" : ""}${share.toFixed(1)}% from the bill`;
	};
	const parts = [
		`billed ${plural(billed, "token")} (input + cacheRead + cacheWrite)`,
		`pi's estimate (chars/4) ${format(predicted.estimate)} (${off(predicted.estimate)})`,
	];
	if (predicted.kind === "calibrated")
		parts.push(`calibrated ${format(predicted.tokens)} (${off(predicted.tokens)}; ${predicted.label})`);
	return `${of}: ${parts.join(" · ")}`;
}
