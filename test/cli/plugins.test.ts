/**
 * The CLI, run in-process: `--plugin` (module shapes, resolution, each way a module can fail),
 * `--explain` (the view and its JSON) and `--strict`.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { convertToLlm } from "../../src/preset.js";
import { readSession } from "../../src/session/index.js";
import { cli, DEMO, fixture, hash, json, PLUGIN, read, root, writeModule } from "../fixtures/sessions/run-cli.js";

const tmp = mkdtempSync(join(tmpdir(), "ctl-cli-plugins-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const module = (name: string, source: string): string => writeModule(tmp, name, source);

describe("convert-to-llm --explain", () => {
	it("should tell what became of each history message and what the post-conversion hooks changed", async () => {
		const run = await cli(["--explain", "--block-images", DEMO]);
		expect(run.code).toBe(0);
		const why = run.stdout.slice(run.stdout.indexOf("── Why"));
		expect(why).toContain("[0] compactionSummary  entry a1000009  → #0 by convert-to-llm:compaction-summary");
		expect(why).toContain(
			"[4] bashExecution      entry a1000015  dropped, excluded from context (a !! command) by convert-to-llm:bash-execution",
		);
		expect(why).toMatch(/\[6\] ticket {13}entry a1000018 {2}dropped: No converter for role "ticket"/);
		expect(why).toContain(
			"── Post-conversion hooks, in the order they ran\n   afterConvert convert-to-llm:block-images: replaced #4",
		);
		expect(run.stderr).toMatch(/warning: No converter for role "ticket"/);
	});

	it("should name the plugin that converted an extension's role", async () => {
		const run = await cli(["--explain", "--plugin", PLUGIN, DEMO]);
		expect(run.stdout).toContain("[6] ticket             entry a1000018  → #5 by example:ticket-role");
		expect(run.stderr).toBe("");
	});

	it("should explain a 200,000-message history (its column width is not a 200,000-argument call)", async () => {
		const history = Array.from({ length: 200_000 }, (_, i) => ({ role: "user", content: `m${i}`, timestamp: i }));
		const run = await cli(["--explain", "-"], { stdin: JSON.stringify(history) });
		expect(run).toMatchObject({ code: 0, stderr: "" });
		expect(run.stdout).toContain("\n   [     0] user  → #0 by convert-to-llm:model-roles\n");
		expect(run.stdout).toContain("\n   [199999] user  → #199999 by convert-to-llm:model-roles\n");
		expect(run.stdout).toContain("── 200,000 model messages from 200,000 history messages: 200,000 user\n");
	});

	it("should list a failed converter's error under a message dropped after the fallback ran", async () => {
		const plugin = module(
			"kaput.mjs",
			`export default { name: "todo-ext", apply(r) {
				r.register("custom", () => { throw new Error("kaput"); }, { name: "todo-ext", customType: "todo" });
				r.hooks.afterConvert.tap("todo-ext", (messages) => messages.filter((m) => !JSON.stringify(m.content).includes("drop me")));
			} };`,
		);
		const todo = (content: string, extra = {}) => ({
			role: "custom",
			customType: "todo",
			content,
			display: true,
			timestamp: 0,
			...extra,
		});
		const history = [
			todo("x", { excludeFromContext: true }),
			todo("drop me"),
			todo("kept"),
			{ role: "ticket", timestamp: 0 },
		];
		const run = await cli(["--explain", "--plugin", plugin, "-"], { stdin: JSON.stringify(history) });
		expect(run.code).toBe(0);
		const why = run.stdout.slice(run.stdout.indexOf("── Why")).split("\n");
		const kaput = (index: number) =>
			`       ↳ Converter "todo-ext" failed on message ${index} (role "custom", customType "todo"): it threw: kaput. The next converter for the role was used, or the message was dropped if there was none; fix or remove the plugin.`;
		expect(why.slice(1, 7)).toEqual([
			// Custom messages are sent whatever excludeFromContext says, as in every pi version.
			"   [0] custom:todo  → #0 by convert-to-llm:custom",
			kaput(0),
			"   [1] custom:todo  dropped, removed after conversion by todo-ext",
			kaput(1),
			"   [2] custom:todo  → #1 by convert-to-llm:custom",
			kaput(2),
		]);
		// The reason of an unknown-role drop is on its own line, not repeated below it.
		expect(why[7]).toMatch(/^ {3}\[3\] ticket {7}dropped: No converter for role "ticket"/);
		expect(why[8]).toBe("── Post-conversion hooks, in the order they ran");
	});

	it("should print the explanation as JSON with --json", async () => {
		const run = await cli(["--explain", "--json", DEMO]);
		const explanation = JSON.parse(run.stdout);
		expect(explanation.output).toStrictEqual(JSON.parse(json(convertToLlm(readSession(read(DEMO)).messages))));
		expect(explanation.messages[4]).toMatchObject({ role: "bashExecution", dropped: "excluded", outputs: [] });
		expect(explanation.messages[6]).toMatchObject({ role: "ticket", dropped: "unknown-role" });
		expect(explanation.errors[0]).toMatchObject({
			name: "UnknownRoleError",
			code: "CONVERT_TO_LLM_UNKNOWN_ROLE",
			role: "ticket",
		});
	});
});

describe("convert-to-llm --strict", () => {
	it.each([
		["an unknown role", [DEMO], /No converter for role "ticket".* \(--strict\)$/],
		["an unknown role, as JSON", ["--json", DEMO], /No converter for role "ticket".* \(--strict\)$/],
		["a skipped line", [fixture("v1-no-version.jsonl")], /line 7 is not valid JSON.* \(--strict\)$/],
	])("should fail on %s with exit code 1 and no output", async (_what, argv, message) => {
		const run = await cli(["--strict", ...argv]);
		expect(run.code).toBe(1);
		expect(run.stdout).toBe("");
		expect(run.stderr.trim()).toMatch(message);
	});

	it("should still show the explanation with --explain, then exit with 1", async () => {
		const run = await cli(["--strict", "--explain", DEMO]);
		expect(run.code).toBe(1);
		expect(run.stdout).toContain("── Why");
	});

	it("should succeed on clean input", async () => {
		expect((await cli(["--strict", "--plugin", PLUGIN, DEMO])).code).toBe(0);
	});
});

describe("convert-to-llm --plugin", () => {
	it("should resolve a relative module from the current directory", async () => {
		const cwd = join(root, "examples", "plugins");
		const run = await cli(["--json", "--plugin", "./ticket-role.mjs", join(root, DEMO)], { cwd });
		expect(run).toMatchObject({ code: 0, stderr: "" });
		expect(run.stdout).toContain("[ticket TODO-42, in progress] Due dates without seconds are rejected");
	});

	const ticket = (name: string) =>
		`{ name: "${name}", apply(registry) { registry.register("ticket", (m) => ({ role: "user", content: "${name}", timestamp: m.timestamp }), { name: "${name}" }); } }`;

	it.each([
		["a default export", "default.mjs", `export default ${ticket("via-default")};`, "via-default"],
		["a named plugin export", "named.mjs", `export const plugin = ${ticket("via-plugin")};`, "via-plugin"],
		["a named plugins list", "list.mjs", `export const plugins = [${ticket("via-list")}];`, "via-list"],
		["module.exports (CommonJS)", "common.cjs", `module.exports = ${ticket("via-cjs")};`, "via-cjs"],
		[
			"module.exports.plugin (CommonJS)",
			"common-named.cjs",
			`module.exports = { plugin: ${ticket("via-cjs-named")} };`,
			"via-cjs-named",
		],
	])("should take the plugins of %s", async (_what, name, source, text) => {
		const run = await cli(["--json", "--plugin", module(name, source), DEMO]);
		expect(run).toMatchObject({ code: 0, stderr: "" });
		expect(run.stdout).toContain(`"content": "${text}"`);
	});

	it.each([
		[
			"a missing module",
			() => "./missing-plugin.mjs",
			/cannot load plugin module "\.\/missing-plugin\.mjs": no such file \(looked for .*missing-plugin\.mjs\)/,
		],
		[
			"a module that throws",
			() => module("throws.mjs", 'throw new Error("boom at load");'),
			/cannot load plugin module ".*throws\.mjs": boom at load\. Fix the module/,
		],
		[
			"a module importing a missing package",
			() => module("deps.mjs", 'import "no-such-package-ctl";'),
			/cannot load plugin module ".*deps\.mjs": Cannot find package 'no-such-package-ctl'/,
		],
		[
			"a module without plugins",
			() => module("none.mjs", "export const x = 1;"),
			/plugin module ".*none\.mjs" exports no plugin: give it a plugin \{ name, apply\(registry\) \}/,
		],
		[
			"a factory as default export",
			() => module("factory.mjs", "export default () => ({});"),
			/exports no plugin: .*Its default export is a function: export the plugin it makes instead/,
		],
		[
			"a list with a non-plugin",
			() => module("bad-list.mjs", `export default [${ticket("ok")}, { name: "x" }];`),
			/item 1 of the default export of plugin module ".*bad-list\.mjs" is not a plugin/,
		],
		["an empty list", () => module("empty-list.mjs", "export default [];"), /is an empty list/],
		[
			"a plugin whose apply throws",
			() =>
				module(
					"apply.mjs",
					'export default { name: "bad-apply", apply() { throw new Error("no registry for me"); } };',
				),
			/plugin "bad-apply" from ".*apply\.mjs" failed to apply: .*no registry for me/,
		],
		[
			"a duplicate converter",
			() =>
				module(
					"dup.mjs",
					'export default { name: "dup", apply(r) { r.register("user", (m) => m, { name: "dup" }); } };',
				),
			/plugin "dup" from ".*dup\.mjs" failed to apply: .*already converts/,
		],
	])("should fail on %s with one line and exit code 2", async (_what, spec, message) => {
		const before = hash(DEMO);
		const run = await cli(["--plugin", spec(), DEMO]);
		expect(run.code).toBe(2);
		expect(run.stdout).toBe("");
		expect(run.stderr).toMatch(message);
		expect(run.stderr.trim().split("\n")).toHaveLength(1);
		expect(hash(DEMO)).toBe(before);
	});

	it("should use several --plugin modules, in order", async () => {
		mkdirSync(join(tmp, "two"), { recursive: true });
		const a = module("two/a.mjs", `export default ${ticket("first")};`);
		const b = module(
			"two/b.mjs",
			'export default { name: "second", apply(r) { r.register("ticket", () => ({ role: "user", content: "second", timestamp: 0 }), { name: "second", override: true }); } };',
		);
		const run = await cli(["--json", "--plugin", a, "--plugin", b, DEMO]);
		expect(run.code).toBe(0);
		expect(run.stdout).toContain('"content": "second"');
	});
});
