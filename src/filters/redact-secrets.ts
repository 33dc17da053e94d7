/**
 * The `redactSecrets` plugin and its options: secrets found by secretlint, extra patterns and known values, replaced
 * by numbered placeholders in an `afterConvertAsync` tap kept last; the work itself is in redactor.ts.
 */
import { InvalidPluginError } from "../errors.js";
import { type Plugin, Stage } from "../registry/types.js";
import { describeValue, isRecord } from "../values.js";
import type { KnownSecretSources } from "./known-secrets.js";
import { keepLast } from "./redact-last.js";
import { Redactor } from "./redactor.js";
import { loadSecretlint, type SecretScanner } from "./secret-detector.js";

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
	/** Shown in the placeholder (`[REDACTED:<id>#<n>]`). */
	readonly id: string;
	/** Run over every scanned text (flags `g` and `d` are added); keep it linear on any input. */
	readonly pattern: RegExp;
}

/**
 * Options of {@link redactSecrets} (and of `redactMessages`).
 *
 * Contract: read once, when the plugin is made; `values` given as a function, `env: true` and the
 * `.env*` files are read again on every conversion. An option not listed here (or a `messages`
 * key: see `redactMessages`) throws `InvalidPluginError`.
 *
 * @example
 * const options: RedactSecretsOptions = { env: true, envFiles: [".env", ".env.local"], allow: [/^sk_test_/] };
 */
export interface RedactSecretsOptions extends KnownSecretSources {
	/** More patterns, beside secretlint's recommended rules. */
	patterns?: readonly SecretPattern[];
	/** Secrets left as they are: a value equal to a string, or matched by a RegExp. */
	allow?: readonly (string | RegExp)[];
	/**
	 * What a secret becomes: a fixed text, or one made from its kind, the secret and its number.
	 * Default `[REDACTED:<kind>#<n>]`: the kind is secretlint's message id in kebab case
	 * (`aws-secret-access-key`, `github-token`, …), a pattern's id, `secret` for a value of `values`,
	 * or the variable's name for `env` and `envFiles` (`openai-api-key`); `n` counts the secrets of
	 * that kind in the order they first occur. A function that throws or returns a non-string gives
	 * the default.
	 */
	replacement?: string | ((kind: string, secret: string, number: number) => string);
	/** The scanner to use instead of secretlint's (a DLP service, a test double). Loaded once, on first use. */
	loadScanner?: () => Promise<SecretScanner>;
}

/** Every option {@link redactSecrets} takes. */
const OPTIONS = ["patterns", "allow", "replacement", "loadScanner", "values", "env", "envFiles"] as const;

/**
 * Replaces every secret in what the model receives, before the request leaves the machine: what
 * secretlint's recommended rules (and `patterns`) find, and the values known to be secret (`values`,
 * `env`, `envFiles`), each by a numbered placeholder that stays the same for the whole session.
 *
 * Contract: scans what the provider receives of each message: every string the model can receive
 * (user and system text, prompt sections and tool declarations, thinking, tool-call arguments at any
 * depth (every key and value), tool results, and so bash output, summaries and custom messages as
 * converted; not ids, metadata, signatures or an image's data: see `eachString`), and the texts the
 * providers compose of them (text blocks joined as pi-ai joins them, a system prompt with its
 * sections, tool-call arguments and tool declarations as their JSON text: see `providerTexts`),
 * each also without its invisible characters. What is found in a text is the same whatever else the
 * plugin scanned (texts are scanned as if alone: see `scanTexts`; a text over 64 Ki characters in
 * overlapping windows, so that the cost stays linear). secretlint runs with AWS access key ids and
 * npm `_authToken` values reported wherever they are and no `secretlint-disable` directive honoured
 * (the history's text is content). Each secret is replaced where it was found (a value far from its
 * name, a key split across blocks, a value inside JSON) and, when it is 8 characters or longer,
 * wherever else it occurs in the output, also JSON-escaped, URL- or base64-encoded, or with
 * invisible characters inside (see `encodingsOf`); a known value is replaced so too.
 *
 * Placeholders: `[REDACTED:<kind>#<n>]`, one number per secret within its kind, given when the
 * secret is first replaced and kept for the life of the plugin object: one numbering per plugin
 * instance, shared by every registry it is `use()`d on (a host that redacts its report's texts on a
 * second registry with the same plugin gets the numbers the model saw, when the history is
 * converted first). In a history that grows turn by turn, numbers follow each secret's first
 * occurrence, so the redacted prefix is byte-stable from one turn to the next, and a fresh plugin
 * gives the same output as one that converted the earlier turns.
 *
 * Order: taps `afterConvertAsync` at {@link REDACT_STAGE}, and makes every `afterConvertAsync` tap
 * that may run after it (a later stage such as `Stage.VERIFY`, or `before`), made before or after it,
 * redact what it returns as well (every `afterConvert` tap runs before `afterConvertAsync`), so that
 * nothing a plugin adds reaches the provider unscanned; a tap it could not make do so (one using
 * tapable's deprecated `context`, or one put after it past the interceptors) makes every conversion
 * send nothing, with the problem reported.
 *
 * Memory: each plugin remembers the texts it scanned (up to 100,000) and every secret it knows, so a
 * conversion scans only the texts new since the last one (pi converts the whole history every turn).
 * A thinking block that changed loses its signature. Messages without a secret pass on as they
 * are. Fails closed: a message it cannot read is dropped and reported; when the scanner cannot load
 * or throws, or a known-secret source cannot be read, no message is sent (`[]`) and that is
 * reported. secretlint is asynchronous, so use `convertAsync` (or `runAsync`); sync `convert`
 * throws `AsyncHookInSyncConvertError` before anything is converted, so no text ever passes
 * unscanned.
 *
 * @example
 * const registry = createDefaultRegistry().use(redactSecrets({ env: true }));
 * const messages = await registry.convertAsync(history); // "…STRIPE_SECRET_KEY=[REDACTED:stripe-secret-key-live#1]"
 * @throws {InvalidPluginError} for an option it does not take (`messages`: call `redactMessages`) or a value it cannot use.
 */
export function redactSecrets(options: RedactSecretsOptions = {}): Plugin {
	checkOptions(options);
	const { patterns = [], allow = [], replacement, loadScanner = loadSecretlint, values, env, envFiles } = options;
	const allowed = (secret: string) =>
		allow.some((entry) => {
			if (typeof entry === "string") return entry === secret;
			entry.lastIndex = 0;
			return entry.test(secret);
		});
	const placeholder = (kind: string, secret: string, number: number): string => {
		const fallback = `[REDACTED:${kind}#${number}]`;
		if (typeof replacement === "string") return replacement;
		if (typeof replacement !== "function") return fallback;
		try {
			const text: unknown = replacement(kind, secret, number);
			return typeof text === "string" ? text : fallback;
		} catch {
			return fallback;
		}
	};
	const known =
		values === undefined && env === undefined && envFiles === undefined ? undefined : { values, env, envFiles };
	const redactor = new Redactor({
		plugin: REDACT_SECRETS_PLUGIN,
		loadScanner,
		patterns: patterns.map(({ id, pattern }) => ({ id, pattern: withFlags(pattern) })),
		allowed,
		placeholder,
		known,
	});
	const pass = (messages: Parameters<Redactor["redact"]>[0], ctx: Parameters<Redactor["redact"]>[1]) =>
		redactor.redact(messages, ctx);
	return {
		name: REDACT_SECRETS_PLUGIN,
		apply(registry) {
			const guard = keepLast(registry.hooks, REDACT_SECRETS_PLUGIN, REDACT_STAGE, pass);
			registry.hooks.afterConvertAsync.tapPromise(
				{ name: REDACT_SECRETS_PLUGIN, stage: REDACT_STAGE },
				// The guard reported the problem when the hook was called; nothing is passed on.
				async (messages, ctx) => (guard.problem() === undefined ? pass(messages, ctx) : []),
			);
		},
	};
}

/** Throws `InvalidPluginError` for an option {@link redactSecrets} does not take or cannot use. */
function checkOptions(options: unknown): void {
	const fail = (what: string) => {
		throw new InvalidPluginError(`redactSecrets: ${what}`, { plugin: REDACT_SECRETS_PLUGIN });
	};
	if (!isRecord(options) || Array.isArray(options)) fail(`the options are ${describeValue(options)}, not an object.`);
	const given = options as Record<string, unknown>;
	if ("messages" in given)
		fail(
			"it makes a plugin and redacts nothing itself, so it takes no messages. To redact a Message[], call `await redactMessages(messages, options)` (convert-to-llm/filters); to redact a history, use the plugin on a registry.",
		);
	for (const key of Object.keys(given))
		if (!(OPTIONS as readonly string[]).includes(key))
			fail(`unknown option ${JSON.stringify(key)}; the options are ${OPTIONS.join(", ")}.`);
	const { patterns, allow, replacement, loadScanner, values, env, envFiles } = given;
	if (patterns !== undefined) {
		if (!Array.isArray(patterns)) fail(`patterns is ${describeValue(patterns)}, not a list.`);
		for (const extra of patterns as unknown[])
			if (!isRecord(extra) || typeof extra.id !== "string" || !(extra.pattern instanceof RegExp))
				fail(`pattern ${describeValue(extra)} is not { id: string, pattern: RegExp }.`);
	}
	if (
		allow !== undefined &&
		(!Array.isArray(allow) || allow.some((e) => typeof e !== "string" && !(e instanceof RegExp)))
	)
		fail(`allow is ${describeValue(allow)}, not a list of strings and RegExps.`);
	if (replacement !== undefined && typeof replacement !== "string" && typeof replacement !== "function")
		fail(`replacement is ${describeValue(replacement)}, not a string or a function.`);
	if (loadScanner !== undefined && typeof loadScanner !== "function")
		fail(`loadScanner is ${describeValue(loadScanner)}, not a function.`);
	if (
		values !== undefined &&
		typeof values !== "function" &&
		(!Array.isArray(values) || values.some((v) => typeof v !== "string"))
	)
		fail(`values is ${describeValue(values)}, not a list of strings or a function.`);
	if (env !== undefined && typeof env !== "boolean" && (!isRecord(env) || Array.isArray(env)))
		fail(`env is ${describeValue(env)}, not true, false or an environment object.`);
	if (
		envFiles !== undefined &&
		typeof envFiles !== "boolean" &&
		(!Array.isArray(envFiles) || envFiles.some((f) => typeof f !== "string"))
	)
		fail(`envFiles is ${describeValue(envFiles)}, not true, false or a list of paths.`);
}

function withFlags(pattern: RegExp): RegExp {
	let flags = pattern.flags;
	if (!flags.includes("g")) flags += "g";
	if (!flags.includes("d")) flags += "d";
	return new RegExp(pattern.source, flags.replace("y", ""));
}
