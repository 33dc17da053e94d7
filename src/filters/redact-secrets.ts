import type { Message } from "@earendil-works/pi-ai";
import { ConversionError, InvalidPluginError } from "../errors.js";
import { type HookContext, type Plugin, Stage } from "../registry/types.js";
import { describeValue, errorText } from "../values.js";
import { LiteralMatcher } from "./literal-matcher.js";
import { mapStrings } from "./message-strings.js";
import { scanBatch } from "./scan-batch.js";
import { type Found, ScanMemory } from "./scan-memory.js";
import { loadSecretlint, type SecretFinding, type SecretScanner } from "./secret-detector.js";

/** Name of the `redactSecrets` plugin (its tap on `afterConvertAsync`). */
export const REDACT_SECRETS_PLUGIN = "convert-to-llm:redact-secrets";

/** The stage `redactSecrets` taps `afterConvertAsync` at: a sanitizer, as `blockImages`. */
export const REDACT_STAGE = Stage.SANITIZE;

/**
 * An extra secret pattern: every match is a secret (its `secret` named group, when it has one).
 *
 * @example
 * const internal: SecretPattern = { id: "acme-token", pattern: /acme_(?<secret>[a-z0-9]{32})/ };
 */
export interface SecretPattern {
	/** Shown in the replacement (`[REDACTED:<id>]`). */
	readonly id: string;
	/** Run over the history's text (flags `g` and `d` are added); keep it linear on any input. */
	readonly pattern: RegExp;
}

/**
 * Options of {@link redactSecrets}.
 *
 * @example
 * const options: RedactSecretsOptions = { allow: ["AKIAIOSFODNN7EXAMPLE"], replacement: "[secret]" };
 */
export interface RedactSecretsOptions {
	/** More patterns, beside secretlint's recommended rules. */
	patterns?: readonly SecretPattern[];
	/** Secrets left as they are: a value equal to a string, or matched by a RegExp. */
	allow?: readonly (string | RegExp)[];
	/**
	 * What a secret becomes: a fixed text, or one made from the rule id and the secret. Default
	 * `[REDACTED:<rule id>]` (`aws`, `github`, `npm`, … or a pattern's id). A function that throws or
	 * returns a non-string gives the default.
	 */
	replacement?: string | ((ruleId: string, secret: string) => string);
	/** The scanner to use instead of secretlint's (a DLP service, a test double). Loaded once, on first use. */
	loadScanner?: () => Promise<SecretScanner>;
}

/**
 * Replaces every secret that secretlint's recommended rules (and `patterns`) find, in every string
 * the model receives, before the request leaves the machine.
 *
 * Contract: scans user and system text (prompt sections and tool declarations included), thinking,
 * tool-call arguments at any depth (every key and value, whatever its name), tool results, and so
 * bash output, summaries and custom messages as converted; not the ids, metadata and signatures of
 * messages and blocks, nor an image block's data (see `eachString` in `message-strings.ts`).
 * secretlint's rules run on the history's new strings joined by blank lines (in pieces of at most 64 Ki characters), with AWS access key ids and npm `_authToken` values reported wherever they are and no
 * `secretlint-disable` directive honoured (the history's text is content); each secret's exact value
 * is replaced wherever it occurs, also where no rule would flag it. Each plugin remembers what it
 * found in the strings it scanned (up to 100,000 strings), so a conversion scans only the strings
 * that are new since the last one (pi converts the whole history every turn). A thinking block that changed
 * loses its signature. Messages without a secret pass on as they are. Fails closed: a message it
 * cannot read is dropped and reported; when the scanner cannot load or throws, no message is
 * sent (`[]`) and that is reported. secretlint is asynchronous, so this taps `afterConvertAsync` at
 * {@link REDACT_STAGE}: use `convertAsync` (or `runAsync`); sync `convert` throws
 * `AsyncHookInSyncConvertError` before anything is converted, so no text ever passes unscanned.
 *
 * @example
 * const registry = createDefaultRegistry().use(redactSecrets());
 * const messages = await registry.convertAsync(history); // "…AWS_SECRET_ACCESS_KEY=[REDACTED:aws]"
 */
export function redactSecrets(options: RedactSecretsOptions = {}): Plugin {
	const { patterns = [], allow = [], replacement, loadScanner = loadSecretlint } = options;
	for (const extra of patterns)
		if (typeof extra?.id !== "string" || !(extra.pattern instanceof RegExp))
			throw new InvalidPluginError(
				`redactSecrets: pattern ${describeValue(extra)} is not { id: string, pattern: RegExp }.`,
				{
					plugin: REDACT_SECRETS_PLUGIN,
				},
			);
	const extraPatterns = patterns.map(({ id, pattern }) => ({ id, pattern: withFlags(pattern) }));
	const allowed = (secret: string) =>
		allow.some((entry) => (typeof entry === "string" ? entry === secret : entry.test(secret)));
	const replace = (ruleId: string, secret: string): string => {
		const fallback = `[REDACTED:${ruleId}]`;
		if (typeof replacement === "string") return replacement;
		if (typeof replacement !== "function") return fallback;
		try {
			const text: unknown = replacement(ruleId, secret);
			return typeof text === "string" ? text : fallback;
		} catch {
			return fallback;
		}
	};
	// One scanner per plugin, loaded on first use; a failed load is retried on the next conversion.
	let scanner: Promise<SecretScanner> | undefined;
	const scan = async (text: string): Promise<SecretFinding[]> => {
		scanner ??= loadScanner();
		let ready: SecretScanner;
		try {
			ready = await scanner;
		} catch (error) {
			scanner = undefined;
			throw error;
		}
		const findings = await ready(text);
		for (const { id, pattern } of extraPatterns)
			for (const found of patternFindings(text, id, pattern)) findings.push(found);
		return findings;
	};

	// What this plugin has scanned: pi converts the whole history on every turn, so only the strings
	// new since the last turn are scanned, and the strings met again are compared, not looked up.
	const memory = new ScanMemory();

	const filter = async (messages: Message[], ctx: HookContext): Promise<Message[]> => {
		const survey = memory.survey(messages);
		for (const { index, cause } of survey.unreadable)
			ctx.report(
				new ConversionError(
					`redactSecrets: output message ${index} could not be read: ${errorText(cause)}. It was dropped, since it could not be scanned for secrets; fix what put it in the history.`,
					{ plugin: REDACT_SECRETS_PLUGIN, cause },
				),
			);
		let fresh: ReadonlyMap<string, readonly Found[]> = new Map();
		if (survey.missing.size > 0) {
			try {
				fresh = await scanBatch([...survey.missing], scan);
			} catch (cause) {
				ctx.report(
					new ConversionError(
						`redactSecrets: the secret scanner failed: ${errorText(cause)}. No message was sent, since none could be scanned; check that @secretlint/core and @secretlint/secretlint-rule-preset-recommend are installed.`,
						{ plugin: REDACT_SECRETS_PLUGIN, cause },
					),
				);
				return [];
			}
		}
		memory.learn(survey, fresh);
		const secrets = new Map<string, string>();
		for (const list of survey.found)
			for (const [value, ruleId] of list as readonly Found[])
				if (!secrets.has(value) && !allowed(value)) secrets.set(value, ruleId);
		const { readable } = survey;
		if (secrets.size === 0) return readable;
		const finder = spansOf(secrets);
		const redact = (value: string) => redactString(value, finder, replace);
		return readable.map((message) => {
			const redacted = mapStrings(message, redact);
			if (redacted !== message) ctx.inheritSource(redacted, message);
			return redacted;
		});
	};

	return {
		name: REDACT_SECRETS_PLUGIN,
		apply(registry) {
			registry.hooks.afterConvertAsync.tapPromise({ name: REDACT_SECRETS_PLUGIN, stage: REDACT_STAGE }, filter);
		},
	};
}

function withFlags(pattern: RegExp): RegExp {
	let flags = pattern.flags;
	if (!flags.includes("g")) flags += "g";
	if (!flags.includes("d")) flags += "d";
	return new RegExp(pattern.source, flags.replace("y", ""));
}

function patternFindings(text: string, ruleId: string, pattern: RegExp): SecretFinding[] {
	const findings: SecretFinding[] = [];
	for (const match of text.matchAll(pattern)) {
		const span = match.indices?.groups?.secret ?? match.indices?.[0];
		if (span !== undefined && span[1] > span[0]) findings.push({ ruleId, start: span[0], end: span[1] });
	}
	return findings;
}

/** Up to this many secrets, each is looked for with `indexOf` (native, fastest for a few). */
const INDEXOF_SECRETS = 16;

/** Where the secrets occur in a string: `[start, end, ruleId]` each, in no particular order. */
type SpanFinder = (value: string) => [number, number, string][];

/**
 * The occurrences of `secrets` (value → rule id) in a string: by `indexOf` for a few, by one
 * {@link LiteralMatcher} pass for many (the same occurrences; thousands of secrets cost one pass,
 * not one search each).
 */
function spansOf(secrets: ReadonlyMap<string, string>): SpanFinder {
	if (secrets.size > INDEXOF_SECRETS) {
		const values = [...secrets.keys()];
		const rules = [...secrets.values()];
		const matcher = new LiteralMatcher(values);
		return (value) => matcher.occurrences(value).map(([start, end, p]) => [start, end, rules[p] as string]);
	}
	return (value) => {
		const spans: [number, number, string][] = [];
		for (const [secret, ruleId] of secrets) {
			for (let at = value.indexOf(secret); at >= 0; at = value.indexOf(secret, at + secret.length))
				spans.push([at, at + secret.length, ruleId]);
		}
		return spans;
	};
}

/** `value` with every occurrence of every secret replaced; overlapping occurrences merge into one. */
function redactString(value: string, find: SpanFinder, replace: (ruleId: string, secret: string) => string): string {
	const spans = find(value);
	if (spans.length === 0) return value;
	spans.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
	let out = "";
	let cursor = 0;
	for (let i = 0; i < spans.length; i++) {
		const [start, first, ruleId] = spans[i] as [number, number, string];
		let end = first;
		while (i + 1 < spans.length && (spans[i + 1] as [number, number, string])[0] < end)
			end = Math.max(end, (spans[++i] as [number, number, string])[1]);
		out += value.slice(cursor, start) + replace(ruleId, value.slice(start, end));
		cursor = end;
	}
	return out + value.slice(cursor);
}
