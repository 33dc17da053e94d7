/**
 * secretlint, driven for text that is not a file: its recommended rules, configured to report what a
 * coding agent's history holds (AWS access key ids, npm `_authToken` values anywhere), with no way
 * for the scanned text to turn detection off, and each finding narrowed to the secret value's span.
 */

/** A secret found in a scanned text: the rule that found it and the value's exact span. */
export interface SecretFinding {
	/** The rule's short id (`aws`, `github`, …) or the id of an extra pattern. */
	readonly ruleId: string;
	readonly start: number;
	readonly end: number;
}

/** Finds the secrets in one text. */
export type SecretScanner = (text: string) => Promise<SecretFinding[]>;

interface LintMessage {
	ruleId: string;
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
 * as a package.json for that rule). Each finding's span is its secret value's (the value the rule
 * reports, found at or inside the rule's range; the rule's whole range when it reports none).
 *
 * @example
 * const scan = await loadSecretlint();
 * await scan("export AWS_ACCESS_KEY_ID=AKIA…"); // [{ ruleId: "aws", start: 25, end: 45 }]
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
		for (const message of all.messages) findings.push(findingOf(message, text));
		for (const message of npmrc.messages) findings.push(findingOf(message, text));
		return findings;
	};
}

/**
 * The finding's exact span: secretlint's ranges can be wider or shifted (the AWS secret key and npm
 * `_authToken` rules start the range at the key name and give it the value's length), so the value
 * it reports in `data` is looked for from the range's start; the longest value found starting
 * inside the range wins.
 */
function findingOf(message: LintMessage, text: string): SecretFinding {
	const ruleId = message.ruleId.startsWith(RULE_PREFIX) ? message.ruleId.slice(RULE_PREFIX.length) : message.ruleId;
	const [from, to] = message.range;
	let best: SecretFinding | undefined;
	for (const value of Object.values(message.data ?? {})) {
		if (typeof value !== "string" || value.length === 0) continue;
		// Only a start inside the range counts: look no further than that (a value that is not there,
		// such as a rule's type name, would otherwise cost a scan of the rest of the text per finding).
		const last = Math.max(from, to - 1);
		const rel = text.slice(from, last + value.length).indexOf(value);
		if (rel < 0) continue;
		const at = from + rel;
		if (best === undefined || value.length > best.end - best.start)
			best = { ruleId, start: at, end: at + value.length };
	}
	return best ?? { ruleId, start: from, end: Math.max(from, to) };
}
