/**
 * secretlint, driven for text that is not a file: its recommended rules, configured to report what a
 * coding agent's history holds (AWS access key ids, npm `_authToken` values anywhere), with no way
 * for the scanned text to turn detection off, and each finding narrowed to the secret value's span.
 */

/** A secret found in a scanned text: the rule that found it, what kind of secret, and the value's exact span. */
export interface SecretFinding {
	/** The rule's short id (`aws`, `github`, …) or the id of an extra pattern. */
	readonly ruleId: string;
	/**
	 * What the secret is (`aws-secret-access-key`, `github-token`, `stripe-secret-key-live`, …), shown
	 * in its placeholder; `ruleId` when not given.
	 */
	readonly kind?: string;
	readonly start: number;
	readonly end: number;
	/**
	 * The span of text the rule matched to find it, when it is not the value's own (a name before
	 * the value): what tells a scan of joined texts that a match reached from one text into another.
	 */
	readonly range?: readonly [number, number];
}

/**
 * Finds the secrets in one text.
 *
 * Contract: `redactSecrets` gives it many texts at once, each after a separator (`"\n\0\n"`), in
 * calls of at most 64 Ki characters (see `scanTexts`); a finding whose span or `range` reaches over a
 * separator has its texts scanned again alone, so a scanner that reads context beyond the value (a
 * name before it) reports that context as `range`.
 *
 * @example
 * const dlp: SecretScanner = async (text) => (await service.scan(text)).map((f) => ({ ruleId: "dlp", start: f.at, end: f.at + f.length }));
 */
export type SecretScanner = (text: string) => Promise<SecretFinding[]>;

interface LintMessage {
	ruleId: string;
	messageId?: string;
	range: readonly [number, number];
	data?: Record<string, unknown>;
}

interface RuleCreator {
	meta: { id: string };
}

interface SecretlintCore {
	lintSource(input: {
		source: { content: string; filePath?: string; ext: string; contentType: "text" };
		options: { config: { rules: unknown[] }; noPhysicFilePath: boolean; maskSecrets: boolean };
	}): Promise<{ messages: LintMessage[] }>;
}

const RULE_PREFIX = "@secretlint/secretlint-rule-";
/** The rule that reads `secretlint-disable` comments: text in a history is content, never a directive. */
const FILTER_COMMENTS = `${RULE_PREFIX}filter-comments`;
const NPM = `${RULE_PREFIX}npm`;
/** Options of the preset's rules: report AWS access key ids (`AKIA…`) too, which the defaults leave out. */
const RULE_OPTIONS: Readonly<Record<string, object>> = Object.freeze({
	[`${RULE_PREFIX}aws`]: { enableIDScanRule: true },
});

/**
 * Loads secretlint (ESM-only: a dynamic import, which the CommonJS build keeps as one) and returns a
 * scanner over the recommended rules.
 *
 * Contract: the scanner runs two passes over a text: every recommended rule but `filter-comments`,
 * as for a file without a path; and the npm rule as for an `.npmrc`, so that `_authToken=` values are
 * found wherever they are (secretlint reads them only in `.npmrc` files, and a pathless source counts
 * as a package.json for that rule). Each finding's span is its secret value's (see `findingOf`), and
 * its kind is named from the rule's message id (`AWSSecretAccessKey`: `aws-secret-access-key`).
 *
 * @example
 * const scan = await loadSecretlint();
 * await scan("export AWS_ACCESS_KEY_ID=AKIA…"); // [{ ruleId: "aws", kind: "aws-access-key-id", start: 25, end: 45 }]
 */
export async function loadSecretlint(): Promise<SecretScanner> {
	const core = (await import("@secretlint/core")) as unknown as SecretlintCore;
	const preset = (await import("@secretlint/secretlint-rule-preset-recommend")) as unknown as { rules: RuleCreator[] };
	const descriptor = (rule: RuleCreator) => ({ id: rule.meta.id, rule, options: RULE_OPTIONS[rule.meta.id] ?? {} });
	const rules = preset.rules.filter((rule) => rule.meta.id !== FILTER_COMMENTS).map(descriptor);
	const npmRules = rules.filter((rule) => rule.id === NPM);
	const lint = (content: string, config: { rules: unknown[] }, filePath: string | undefined) =>
		core.lintSource({
			source: { content, filePath, ext: filePath === undefined ? ".txt" : ".npmrc", contentType: "text" },
			options: { config, noPhysicFilePath: true, maskSecrets: false },
		});
	return async (text) => {
		const [all, npmrc] = await Promise.all([
			lint(text, { rules }, undefined),
			lint(text, { rules: npmRules }, ".npmrc"),
		]);
		const findings: SecretFinding[] = [];
		for (const message of [...all.messages, ...npmrc.messages]) {
			const finding = findingOf(message, text);
			if (finding !== undefined) findings.push(finding);
		}
		return findings;
	};
}

/**
 * The finding's exact span: the value the rule reports in `data`, where it is. secretlint's ranges
 * can be wider or shifted (the AWS secret key and npm `_authToken` rules start the range at the key
 * name and give it the value's length), so the value is looked for from the range's start: the
 * longest reported value that starts inside the range, or else the nearest one after its start (a
 * value the name is far from: aligned `.env` columns, a YAML value on the next line). Only when
 * the rule reports no value that is in the text is the range itself the span; a finding whose
 * values are all blank (the npm rule's `_authToken=` at the end of a line) is none.
 *
 * Linear over a text's findings: a rule's matches do not overlap, and each search stops at the
 * match's own value.
 */
function findingOf(message: LintMessage, text: string): SecretFinding | undefined {
	const ruleId = message.ruleId.startsWith(RULE_PREFIX) ? message.ruleId.slice(RULE_PREFIX.length) : message.ruleId;
	const kind = kindOf(ruleId, message.messageId);
	const [from, to] = message.range;
	const reported = Object.values(message.data ?? {}).filter((v): v is string => typeof v === "string" && v !== "");
	const values = reported.filter((value) => value.trim() !== "");
	if (values.length === 0 && reported.length > 0) return undefined;
	let best: SecretFinding | undefined;
	// Only a start inside the range counts here: look no further than that.
	const last = Math.max(from, to - 1);
	for (const value of values) {
		const rel = text.slice(from, last + value.length).indexOf(value);
		if (rel < 0) continue;
		const at = from + rel;
		if (best === undefined || value.length > best.end - best.start)
			best = { ruleId, kind, start: at, end: at + value.length, range: message.range };
	}
	if (best !== undefined) return best;
	for (const value of values) {
		const at = text.indexOf(value, from);
		if (at >= 0 && (best === undefined || at < best.start))
			best = { ruleId, kind, start: at, end: at + value.length, range: message.range };
	}
	return best ?? { ruleId, kind, start: from, end: Math.max(from, to) };
}

/** Message ids whose words do not name the secret well on their own. */
const KINDS: Readonly<Record<string, string>> = Object.freeze({
	IncomingWebhook: "slack-webhook",
	SLACK_TOKEN: "slack-token",
	BasicAuth: "basic-auth-url",
	MongoDBConnection: "mongodb-url",
	MySQLConnection: "mysql-url",
	PostgreSQLConnection: "postgresql-url",
	OPS_TOKEN: "1password-service-account-token",
	Npmrc_authToken: "npm-auth-token",
	PackageJSON_xOauthToken: "github-x-oauth-token",
	PrivateKeyJSON: "gcp-service-account-key",
	PrivateKeyP12: "gcp-service-account-key",
});

/**
 * The kind a placeholder shows: the rule's message id in kebab case (`AWSSecretAccessKey`:
 * `aws-secret-access-key`, `GITHUB_TOKEN`: `github-token`), or the rule id without one.
 */
export function kindOf(ruleId: string, messageId: string | undefined): string {
	if (messageId === undefined || messageId === "") return ruleId;
	const named = KINDS[messageId];
	if (named !== undefined) return named;
	return messageId
		.replace(/([a-z0-9])([A-Z])/g, "$1-$2")
		.replace(/([A-Z]+)([A-Z][a-z])/g, "$1-$2")
		.replace(/_/g, "-")
		.toLowerCase();
}
