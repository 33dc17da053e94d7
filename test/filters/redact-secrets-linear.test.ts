/**
 * `redactSecrets` scans in work linear in the history's size whatever it holds: one long tool output
 * with thousands of findings is scanned in windows, so no scanner call holds more than a bounded
 * number of findings (secretlint's own cost grows with the square of the findings in one call).
 */
import { describe, expect, it } from "vitest";
import { redactSecrets } from "../../src/filters/redact-secrets.js";
import { SCAN_CHUNK } from "../../src/filters/scan-batch.js";
import { loadSecretlint } from "../../src/filters/secret-detector.js";
import { createDefaultRegistry } from "../../src/preset.js";
import { bashExecution } from "../support/fixtures.js";
import { mulberry32 } from "../support/random.js";

const UPPER_DIGITS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

/** `n` distinct AWS access key ids, one a line, as a `grep -r AKIA` over a repository shows them. */
function keyIds(n: number): string[] {
	const next = mulberry32(n);
	return Array.from({ length: n }, () => {
		let id = "AKIA";
		for (let i = 0; i < 16; i++) id += UPPER_DIGITS[Math.floor(next() * UPPER_DIGITS.length)];
		return id;
	});
}

/**
 * What scanning one output of `n` key ids costs, counted: the characters given to the scanner, and
 * the sum over its calls of the square of the findings in each (secretlint's de-duplication).
 */
async function scanWork(n: number): Promise<{ chars: number; squares: number; longest: number; sent: string }> {
	const ids = keyIds(n);
	const calls: { chars: number; findings: number }[] = [];
	const plugin = redactSecrets({
		loadScanner: async () => {
			const real = await loadSecretlint();
			return async (text) => {
				const found = await real(text);
				calls.push({ chars: text.length, findings: found.length });
				return found;
			};
		},
	});
	const output = ids.map((id, i) => `config/env-${i}.sh:3: export AWS_ACCESS_KEY_ID=${id}`).join("\n");
	const sent = JSON.stringify(
		await createDefaultRegistry()
			.use(plugin)
			.convertAsync([bashExecution({ command: "grep -rn AKIA .", output })]),
	);
	expect(ids.filter((id) => sent.includes(id))).toEqual([]);
	return {
		chars: calls.reduce((sum, c) => sum + c.chars, 0),
		squares: calls.reduce((sum, c) => sum + c.findings ** 2, 0),
		longest: Math.max(...calls.map((c) => c.chars)),
		sent,
	};
}

describe("redactSecrets", () => {
	it("should scan one output of 4n findings with about 4 times the work of one of n", async () => {
		const small = await scanWork(1_500);
		const large = await scanWork(6_000);
		expect(large.longest).toBeLessThanOrEqual(SCAN_CHUNK);
		// Linear work is 4 times; a whole-text scan would be 16 times (the square of 4).
		expect(large.chars / small.chars).toBeLessThan(5);
		expect(large.squares / small.squares).toBeLessThan(6);
		expect(large.sent.split("[REDACTED:aws-access-key-id#")).toHaveLength(6_001);
	}, 120_000);
});
