/**
 * A host that refuses code generation (a Content-Security-Policy without `unsafe-eval`, Cloudflare
 * Workers, `node --disallow-code-generation-from-strings`): the built package, in a child process
 * with code generation refused, gives every registry, hook and pipeline case of
 * `support/codegen-cases.mjs` exactly what a plain process gives: outputs, problems, and the events
 * taps and interceptors saw. (The test runner itself needs code generation, hence the child.)
 */
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const CASES = fileURLToPath(new URL("../support/codegen-cases.mjs", import.meta.url));

interface Printed {
	readonly refused: boolean;
	readonly results: Record<string, { output?: unknown[]; events?: unknown[][]; escaped?: unknown }>;
}

/** The flag, dropped from NODE_OPTIONS for the plain child (the suite itself may run with it). */
const REFUSE = "--disallow-code-generation-from-strings";
const plainEnv = {
	...process.env,
	NODE_OPTIONS: (process.env.NODE_OPTIONS ?? "")
		.split(/\s+/)
		.filter((option) => option !== REFUSE)
		.join(" "),
};

const runCases = (flags: readonly string[]): Printed =>
	JSON.parse(
		execFileSync(process.execPath, [...flags, CASES], {
			encoding: "utf8",
			maxBuffer: 256 * 1024 * 1024,
			env: plainEnv,
		}),
	) as Printed;

describe("a registry where code generation is refused", () => {
	const plain = runCases([]);
	const refused = runCases([REFUSE]);

	it("should run the cases in a child that really refuses code generation", () => {
		expect(plain.refused).toBe(false);
		expect(refused.refused).toBe(true);
		expect(Object.keys(refused.results)).toEqual(Object.keys(plain.results));
		expect(Object.keys(plain.results).length).toBeGreaterThanOrEqual(9);
	});

	it.each(Object.keys(plain.results))("should give %s exactly what a plain host gives", (name) => {
		expect(refused.results[name]).toStrictEqual(plain.results[name]);
		expect(plain.results[name]?.escaped).toBeUndefined();
	});

	it("should convert with blockImages and an error tap (not [] nor an EvalError out of convert)", () => {
		const result =
			refused.results[Object.keys(refused.results).find((name) => name.startsWith("preset + blockImages")) ?? ""];
		expect(result?.output?.length).toBeGreaterThan(100);
		expect(JSON.stringify(result)).not.toContain("EvalError");
		expect(JSON.stringify(result?.output)).not.toContain('"type":"image"');
		expect(result?.events?.some((event) => event[0] === "call" && event[1] === "afterConvert")).toBe(true);
	});
});
