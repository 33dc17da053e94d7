/**
 * `convert-to-llm/filters` as it ships: the built entry loads from ESM and CJS by package name, and
 * `redactSecrets` finds its ESM-only scanner (secretlint) from the CommonJS build too. dist/ is built
 * (when stale) by the globalSetup, test/support/build.ts.
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const SECRET = ["ghp", "wWPw5k4aXcaT4fNP0UcnZwJUVFk6LO0pINUx"].join("_");

const program = (load: string) => `
${load}
const registry = preset.createDefaultRegistry().use(filters.redactSecrets()).use(filters.trimToTokens({ maxTokens: 100 }));
registry.hooks.error.tap("log", (e) => console.error(e.message));
registry.convertAsync([{ role: "user", content: "GITHUB_TOKEN=${SECRET}", timestamp: 0 }]).then((m) => console.log(JSON.stringify(m)));
`;

describe("convert-to-llm/filters", () => {
	it.each([
		[
			"esm",
			[
				"--input-type=module",
				"-e",
				program(
					'import * as preset from "convert-to-llm/preset"; import * as filters from "convert-to-llm/filters";',
				),
			],
		],
		[
			"cjs",
			[
				"-e",
				program(
					'const preset = require("convert-to-llm/preset"); const filters = require("convert-to-llm/filters");',
				),
			],
		],
	])("should load and redact from %s", (_format, args) => {
		const result = spawnSync(process.execPath, args, { cwd: ROOT, encoding: "utf8", timeout: 30_000 });
		expect(result.stderr).toBe("");
		expect(JSON.parse(result.stdout)).toEqual([
			{ role: "user", content: "GITHUB_TOKEN=[REDACTED:github-token#1]", timestamp: 0 },
		]);
	});
});
