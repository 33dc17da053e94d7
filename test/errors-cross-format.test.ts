/**
 * The error classes across the built formats: the ESM build (dist/*.js) and the CommonJS build
 * (dist/*.cjs) each define the classes, and a process can load both (an ESM app with a CommonJS
 * plugin). `instanceof` holds across them, for errors thrown through every entry point.
 */
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";

const DIST = fileURLToPath(new URL("../dist/", import.meta.url));
const require = createRequire(import.meta.url);

type Errors = typeof import("../src/errors.js");
type Build = {
	index: Errors & typeof import("../src/index.js");
	preset: typeof import("../src/preset.js");
	hooks: typeof import("../src/hooks/index.js");
	session: typeof import("../src/session/index.js");
};

const builds = {} as Record<"esm" | "cjs", Build>;

beforeAll(async () => {
	const esm = (name: string) => import(join(DIST, `${name}.js`));
	builds.esm = {
		index: await esm("index"),
		preset: await esm("preset"),
		hooks: await esm("hooks"),
		session: await esm("session"),
	};
	const cjs = (name: string) => require(join(DIST, `${name}.cjs`));
	builds.cjs = { index: cjs("index"), preset: cjs("preset"), hooks: cjs("hooks"), session: cjs("session") };
});

/** Whatever `fn` throws. */
function thrown(fn: () => unknown): unknown {
	try {
		fn();
	} catch (error) {
		return error;
	}
	throw new Error("expected a throw");
}

/** An error of each kind, thrown through the real entry points of one build. */
function throwers(build: Build): [name: keyof Errors, make: () => unknown][] {
	return [
		[
			"InvalidMessageError",
			() => thrown(() => build.preset.createDefaultRegistry({ strict: true }).convert([null as never])),
		],
		[
			"UnknownRoleError",
			() => thrown(() => build.index.createRegistry({ strict: true }).convert([{ role: "x" } as never])),
		],
		[
			"DuplicateConverterError",
			() => thrown(() => build.preset.createDefaultRegistry().register("user", () => undefined, { name: "again" })),
		],
		["InvalidPluginError", () => thrown(() => build.index.createRegistry().use({ name: "", apply() {} }))],
		[
			"LintError",
			() =>
				thrown(() =>
					build.preset
						.createDefaultRegistry({ strict: true })
						.use(build.hooks.lint())
						.convert([{ role: "user", content: "", timestamp: 0 }]),
				),
		],
		["InvalidSessionError", () => thrown(() => build.session.parseSession("not a session", { strict: true }))],
	];
}

describe("ConvertToLlmError instanceof across the ESM and CommonJS builds", () => {
	it("should load two sets of classes (the hazard is real)", () => {
		expect(builds.esm.index.ConvertToLlmError).not.toBe(builds.cjs.index.ConvertToLlmError);
	});

	it.each([
		["cjs", "esm"],
		["esm", "cjs"],
	] as const)(
		"should make an error thrown through the %s build instanceof the %s classes, its own and the base",
		(from, to) => {
			const target = builds[to].index;
			for (const [name, make] of throwers(builds[from])) {
				const error = make();
				expect(error, name).toBeInstanceOf(target[name] as never);
				expect(error, name).toBeInstanceOf(target.ConvertToLlmError);
				expect(error, name).toBeInstanceOf(Error);
				for (const other of ["UnknownRoleError", "ConversionError", "LintError", "InvalidSessionError"] as const) {
					if (other !== name)
						expect(error instanceof (target[other] as never), `${name} instanceof ${other}`).toBe(false);
				}
			}
		},
	);

	it("should hold across entry points of one build too (the preset's, the hooks' and the session's classes are the root's)", () => {
		for (const build of [builds.esm, builds.cjs]) {
			expect(build.hooks.LintError).toBe(build.index.LintError);
			expect(build.session.InvalidSessionError).toBe(build.index.InvalidSessionError);
		}
		expect(thrown(() => builds.cjs.session.parseSession("{", { strict: true }))).toBeInstanceOf(
			builds.esm.session.InvalidSessionError,
		);
	});

	it("should not take an object that only looks like one of them: a plain Error, or a record with a code", () => {
		const { ConvertToLlmError, UnknownRoleError } = builds.esm.index;
		const lookalike = Object.assign(new Error("x"), { code: "CONVERT_TO_LLM_UNKNOWN_ROLE" });
		expect(lookalike instanceof UnknownRoleError).toBe(false);
		expect(lookalike instanceof ConvertToLlmError).toBe(false);
		expect({ code: "CONVERT_TO_LLM_UNKNOWN_ROLE" } instanceof ConvertToLlmError).toBe(false);
		expect((null as unknown as object) instanceof ConvertToLlmError).toBe(false);
		expect(("CONVERT_TO_LLM_UNKNOWN_ROLE" as unknown as object) instanceof ConvertToLlmError).toBe(false);
	});

	it("should match a subclass of your own by its prototype chain only", () => {
		const { ConversionError } = builds.esm.index;
		class PluginFailure extends ConversionError {}
		const mine = new PluginFailure("mine");
		expect(mine).toBeInstanceOf(PluginFailure);
		expect(mine).toBeInstanceOf(builds.cjs.index.ConversionError);
		expect(new builds.cjs.index.ConversionError("theirs") instanceof PluginFailure).toBe(false);
		expect(new ConversionError("ours") instanceof PluginFailure).toBe(false);
	});

	it("should give each class its code as a static field", () => {
		const { index } = builds.esm;
		expect(index.ConvertToLlmError.code).toBeUndefined();
		expect(index.UnknownRoleError.code).toBe(index.ErrorCode.UNKNOWN_ROLE);
		expect(index.LintError.code).toBe(index.ErrorCode.LINT);
		expect(new index.UnknownRoleError("m").code).toBe(index.UnknownRoleError.code);
	});
});
