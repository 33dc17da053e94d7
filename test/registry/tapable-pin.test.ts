/**
 * What the registry reaches into in tapable: `interpreted-hooks.ts` replaces a hook's `compile` with
 * a closure that does, statement for statement, what tapable's generated code does, and the guard
 * wraps `tap`, `tapAsync` and `tapPromise`. Both were written against tapable 2.3.4 (package.json
 * pins `~2.3.4`). These snapshots of the code tapable generates for the registry's four hooks fail
 * when an upgrade changes it, so that an upgrade is a decision: re-read `HookCodeFactory`, update
 * `interpreted-hooks.ts` if needed, then the snapshots (`vitest -u`).
 */
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { createRegistry } from "../../src/index.js";

type CallType = "sync" | "async" | "promise";

/** The code tapable generates for `hook` with its current taps and interceptors, for one call type. */
function generated(hook: object, type: CallType): string {
	return String((hook as { _createCall(type: CallType): unknown })._createCall(type));
}

describe("tapable's generated code for the registry's hooks", () => {
	it("should be tapable 2.3.x, the line the interpreted hooks follow", () => {
		const version = (createRequire(import.meta.url)("tapable/package.json") as { version: string }).version;
		expect(version).toMatch(/^2\.3\.\d+$/);
	});

	it.each([
		["beforeConvert", "sync"],
		["afterConvert", "sync"],
		["afterConvertAsync", "promise"],
		["afterConvertAsync", "async"],
		["error", "sync"],
	] as const)("should generate the %s hook's %s call as it did when the interpreter was written", (name, type) => {
		const registry = createRegistry();
		const hook = registry.hooks[name] as unknown as {
			tap(options: unknown, fn: unknown): void;
			tapAsync?(options: unknown, fn: unknown): void;
			tapPromise?(options: unknown, fn: unknown): void;
			intercept(interceptor: object): void;
		};
		hook.intercept({ call: () => {}, tap: () => {}, result: () => {}, error: () => {}, done: () => {} });
		hook.tap({ name: "sync", context: true }, () => undefined);
		if (name === "afterConvertAsync") {
			hook.tapAsync?.("callback", (...args: unknown[]) => (args.at(-1) as () => void)());
			hook.tapPromise?.("promise", async () => undefined);
		}
		expect(generated(hook, type)).toMatchSnapshot();
	});
});
