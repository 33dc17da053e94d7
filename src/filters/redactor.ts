/**
 * The work of one `redactSecrets` plugin: a pass over a conversion's output that finds the secrets
 * in what the provider receives and replaces each, wherever it occurs, by its numbered placeholder.
 * One per plugin, shared by every registry the plugin is used on and by every pass it makes.
 */
import type { Message } from "@earendil-works/pi-ai";
import { ConversionError } from "../errors.js";
import type { HookContext } from "../registry/types.js";
import { errorText } from "../values.js";
import { type KnownSecretSources, readKnownSecrets } from "./known-secrets.js";
import { mapStrings } from "./message-strings.js";
import { scanTexts, type TextFinding } from "./scan-batch.js";
import { ScanMemory, type Survey } from "./scan-memory.js";
import type { SecretFinding, SecretScanner } from "./secret-detector.js";
import { ExactMatcher, MIN_EXACT_LENGTH, normalizeSecret, type ValueOccurrence } from "./secret-encodings.js";
import { SecretNumbers } from "./secret-numbers.js";

/** A span of a string to replace: `[start, end, secret]`, the secret as it is known and numbered. */
type Span = readonly [start: number, end: number, secret: string];

/** How a {@link Redactor} finds and writes secrets: the plugin's options, read once. */
export interface RedactorSettings {
	/** The plugin's name, in every problem it reports. */
	readonly plugin: string;
	readonly loadScanner: () => Promise<SecretScanner>;
	/** More patterns, run on every scanned text (flags `g` and `d` set). */
	readonly patterns: readonly { readonly id: string; readonly pattern: RegExp }[];
	/** Whether a secret is left as it is. */
	readonly allowed: (secret: string) => boolean;
	/** The text that stands for a secret of `kind`, numbered `number` within its kind. */
	readonly placeholder: (kind: string, secret: string, number: number) => string;
	/** Where known secrets come from, when any is asked for. */
	readonly known: KnownSecretSources | undefined;
}

/** No occurrence: what most strings hold. */
const NO_OCCURRENCES: readonly ValueOccurrence[] = Object.freeze([]);
/** How many strings' exact-value occurrences are remembered before the memory is cleared. */
const OCCURRENCES_LIMIT = 100_000;

/**
 * Redacts conversions' outputs for one plugin.
 *
 * Contract: {@link redact} returns the output with every secret replaced, and reports (on `ctx`)
 * every message it dropped and every failure. A secret is: a value a rule or pattern finds in one of
 * the message's own strings or in a text the provider receives of it (`providerTexts`), in any of
 * them also without its invisible characters; or a known value (`known`). Each is replaced where it
 * was found, and wherever else it occurs in the output when it is at least 8 characters long (in
 * every form `encodingsOf` knows). The same secret gets the same placeholder in every conversion of
 * this redactor (see `SecretNumbers`). Fails closed: when the scanner or a known-secret source
 * fails, the output is `[]`.
 */
export class Redactor {
	private readonly memory = new ScanMemory();
	private readonly numbers = new SecretNumbers();
	private scanner: Promise<SecretScanner> | undefined;
	private matcher: ExactMatcher = new ExactMatcher([]);
	private matcherGeneration = -1;
	private readonly occurrences = new Map<string, readonly ValueOccurrence[]>();

	constructor(private readonly settings: RedactorSettings) {}

	async redact(messages: Message[], ctx: HookContext): Promise<Message[]> {
		const { plugin } = this.settings;
		const survey = this.memory.survey(messages);
		for (const { index, cause } of survey.unreadable)
			ctx.report(
				new ConversionError(
					`redactSecrets: output message ${index} could not be read: ${errorText(cause)}. It was dropped, since it could not be scanned for secrets; fix what put it in the history.`,
					{ plugin, cause },
				),
			);
		try {
			await this.knowSources();
		} catch (cause) {
			ctx.report(
				new ConversionError(
					`redactSecrets: the known secrets could not be read: ${errorText(cause)}. No message was sent; fix or leave out the values, env or envFiles option.`,
					{ plugin, cause },
				),
			);
			return [];
		}
		let fresh: ReadonlyMap<string, readonly TextFinding[]> = new Map();
		if (survey.missing.size > 0) {
			try {
				fresh = await scanTexts([...survey.missing], (text) => this.scan(text));
			} catch (cause) {
				ctx.report(
					new ConversionError(
						`redactSecrets: the secret scanner failed: ${errorText(cause)}. No message was sent, since none could be scanned; check that @secretlint/core and @secretlint/secretlint-rule-preset-recommend are installed.`,
						{ plugin, cause },
					),
				);
				return [];
			}
		}
		this.memory.learn(survey, fresh);
		return this.replace(survey, ctx);
	}

	/** Every known secret of the sources, known now (before any found one, so that each keeps its source's kind). */
	private async knowSources(): Promise<void> {
		const { known, allowed } = this.settings;
		if (known === undefined) return;
		for (const { value, kind } of await readKnownSecrets(known)) {
			const secret = normalizeSecret(value);
			if (secret.length >= MIN_EXACT_LENGTH && !allowed(secret)) this.numbers.know(secret, kind);
		}
	}

	private async scan(text: string): Promise<SecretFinding[]> {
		this.scanner ??= this.settings.loadScanner();
		let ready: SecretScanner;
		try {
			ready = await this.scanner;
		} catch (error) {
			// A failed load is tried again on the next conversion.
			this.scanner = undefined;
			throw error;
		}
		// A copy: the scanner's own array (frozen, or kept by a test double) is not added to.
		const findings = [...(await ready(text))];
		for (const { id, pattern } of this.settings.patterns)
			for (const match of text.matchAll(pattern)) {
				const whole = match.indices?.[0];
				const span = match.indices?.groups?.secret ?? whole;
				if (span !== undefined && span[1] > span[0])
					findings.push({
						ruleId: id,
						start: span[0],
						end: span[1],
						...(whole === undefined ? {} : { range: whole }),
					});
			}
		return findings;
	}

	/** The output with every secret replaced: the spans found in each message, and the known values everywhere. */
	private replace(survey: Survey, ctx: HookContext): Message[] {
		const { readable, texts } = survey;
		const spansOf: (Map<string, Span[]> | undefined)[] = [];
		const dropped = new Set<number>();
		for (const found of texts) {
			const spans = this.spansOf(found);
			if (spans !== "unreadable") spansOf[found.index] = spans;
			else {
				dropped.add(found.index);
				ctx.report(
					new ConversionError(
						`redactSecrets: output message ${found.index} read differently each time it was read (a getter), so what was found in it could not be placed. It was dropped; fix what put it in the history.`,
						{ plugin: this.settings.plugin },
					),
				);
			}
		}
		this.refreshMatcher();
		if (dropped.size === 0 && this.matcher.empty && !spansOf.some((spans) => spans !== undefined && spans.size > 0))
			return readable;
		const exactOnly = (value: string) => this.rewrite(value, undefined);
		let out: Message[] | undefined;
		for (let i = 0; i < readable.length; i++) {
			const message = readable[i] as Message;
			if (dropped.has(i)) {
				out ??= readable.slice(0, i);
				continue;
			}
			const spans = spansOf[i];
			const redacted =
				spans === undefined || spans.size === 0
					? mapStrings(message, exactOnly)
					: mapStrings(message, (value) => this.rewrite(value, spans.get(value)));
			if (redacted !== message) ctx.inheritSource(redacted, message);
			if (out !== undefined) out.push(redacted);
			else if (redacted !== message) {
				out = readable.slice(0, i);
				out.push(redacted);
			}
		}
		return out ?? readable;
	}

	/**
	 * The spans of the secrets found in one message's texts, by the string they are in, each secret
	 * known; `"unreadable"` when a composed text read differently the second time (a getter).
	 */
	private spansOf(found: Survey["texts"][number]): Map<string, Span[]> | "unreadable" {
		const { allowed } = this.settings;
		const spans = new Map<string, Span[]>();
		const add = (source: string, span: Span) => {
			const list = spans.get(source);
			if (list === undefined) spans.set(source, [span]);
			else list.push(span);
		};
		for (const value of found.strings)
			for (const [start, end, kind] of this.memory.findingsOf(value)) {
				const secret = normalizeSecret(value.slice(start, end));
				if (secret === "" || allowed(secret)) continue;
				this.numbers.know(secret, kind);
				add(value, [start, end, secret]);
			}
		for (const composed of found.composed) {
			const findings = this.memory.findingsOf(composed.text);
			if (findings.length === 0) continue;
			const text = composed.mapped();
			// A getter that answered differently when the text was mapped: nothing can be placed safely.
			if (text.text !== composed.text) return "unreadable";
			for (const [start, end, kind] of findings) {
				const pieces = text.pieces(start, end);
				const secret = normalizeSecret(pieces.map((p) => p.source.slice(p.start, p.end)).join(""));
				if (secret === "" || allowed(secret)) continue;
				this.numbers.know(secret, kind);
				// Pieces of one source in a row (split only by invisible characters) are one span.
				for (let p = 0; p < pieces.length; p++) {
					const first = pieces[p] as (typeof pieces)[number];
					let last = first;
					while (p + 1 < pieces.length && (pieces[p + 1] as typeof first).source === first.source)
						last = pieces[++p] as typeof first;
					add(first.source, [first.start, last.end, secret]);
				}
			}
		}
		return spans;
	}

	/** A new matcher when a secret was first known since the last one (and the occurrences found with the old one forgotten). */
	private refreshMatcher(): void {
		if (this.matcherGeneration === this.numbers.generation) return;
		this.matcher = new ExactMatcher(this.numbers.values());
		this.matcherGeneration = this.numbers.generation;
		this.occurrences.clear();
	}

	private occurrencesOf(value: string): readonly ValueOccurrence[] {
		let known = this.occurrences.get(value);
		if (known !== undefined) return known;
		const found = this.matcher.occurrences(value);
		known = found.length === 0 ? NO_OCCURRENCES : found;
		if (this.occurrences.size >= OCCURRENCES_LIMIT) this.occurrences.clear();
		this.occurrences.set(value, known);
		return known;
	}

	/** `value` with its spans and the known values in it replaced; overlapping spans merge into one. */
	private rewrite(value: string, found: readonly Span[] | undefined): string {
		if (this.matcher.empty && found === undefined) return value;
		const exact = this.matcher.empty ? NO_OCCURRENCES : this.occurrencesOf(value);
		if (exact.length === 0 && found === undefined) return value;
		const spans: Span[] = found === undefined ? [...exact] : [...found, ...exact];
		spans.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
		let out = "";
		let cursor = 0;
		for (let i = 0; i < spans.length; i++) {
			const [start, first, secret] = spans[i] as Span;
			let end = first;
			while (i + 1 < spans.length && (spans[i + 1] as Span)[0] < end) end = Math.max(end, (spans[++i] as Span)[1]);
			out += value.slice(cursor, start) + this.placeholderOf(secret);
			cursor = end;
		}
		return out + value.slice(cursor);
	}

	private placeholderOf(secret: string): string {
		const kind = this.numbers.kindOf(secret) ?? "secret";
		return this.settings.placeholder(kind, secret, this.numbers.numberOf(secret));
	}
}
