/**
 * Hooks without code generation: `interpretHook` makes a tapable hook call its taps without
 * `new Function`, and for any taps (sync, callback and promise styles; results, throws, rejections,
 * `context`), stages, `before` and interceptors (`call`, `tap`, `error`, `result`, `done`,
 * `register`), every call type gives what tapable's generated code gives: the same events in the
 * same order, the same result or the same error.
 */
import fc from "fast-check";
import { AsyncSeriesWaterfallHook, SyncHook, SyncWaterfallHook } from "tapable";
import { describe, expect, it } from "vitest";
import { codeGenerationRefused, interpretHook } from "../../src/registry/interpreted-hooks.js";

type Behaviour = "value" | "undefined" | "throw" | "fail" | "falsy-fail" | "not-a-promise" | "twice";
interface TapSpec {
	readonly type: "sync" | "async" | "promise";
	readonly behaviour: Behaviour;
	readonly stage: number;
	readonly before: boolean;
	readonly context: boolean;
}
interface InterceptorSpec {
	readonly handlers: readonly ("call" | "tap" | "error" | "result" | "done" | "register")[];
	readonly context: boolean;
	readonly early: boolean;
}
type Kind = "SyncHook" | "SyncWaterfallHook" | "AsyncSeriesWaterfallHook";

const arbTap = (types: readonly TapSpec["type"][]): fc.Arbitrary<TapSpec> =>
	fc.record({
		type: fc.constantFrom(...types),
		behaviour: fc.constantFrom<Behaviour>(
			"value",
			"value",
			"undefined",
			"throw",
			"fail",
			"falsy-fail",
			"not-a-promise",
			"twice",
		),
		stage: fc.constantFrom(0, 0, -5, 10),
		before: fc.boolean(),
		context: fc.constantFrom(false, false, true),
	});
const arbInterceptor: fc.Arbitrary<InterceptorSpec> = fc.record({
	handlers: fc.subarray(["call", "tap", "error", "result", "done", "register"] as const),
	context: fc.boolean(),
	early: fc.boolean(),
});

const CALL_TYPES: Record<Kind, readonly ("call" | "callAsync" | "promise")[]> = {
	SyncHook: ["call", "callAsync", "promise"],
	SyncWaterfallHook: ["call", "callAsync", "promise"],
	AsyncSeriesWaterfallHook: ["callAsync", "promise"],
};

const describeValue = (value: unknown): unknown =>
	value instanceof Error
		? `Error(${value.message})`
		: typeof value === "object" && value !== null
			? JSON.stringify(value)
			: value;

/** Builds a hook from the specs; every tap and interceptor writes what it sees to `log`. */
function build(
	kind: Kind,
	taps: readonly TapSpec[],
	interceptors: readonly InterceptorSpec[],
	log: unknown[],
	interpreted: boolean,
) {
	const hook =
		kind === "SyncHook"
			? new SyncHook<[unknown, unknown]>(["value", "extra"])
			: kind === "SyncWaterfallHook"
				? new SyncWaterfallHook<[unknown, unknown]>(["value", "extra"])
				: new AsyncSeriesWaterfallHook<[unknown, unknown]>(["value", "extra"]);
	if (interpreted) interpretHook(hook, kind === "SyncHook" ? "series" : "waterfall");
	const intercept = (spec: InterceptorSpec, i: number) => {
		const interceptor: Record<string, unknown> = { context: spec.context };
		for (const handler of spec.handlers) {
			interceptor[handler] =
				handler === "register"
					? (tap: { name: string }) => {
							log.push(["register", i, tap.name]);
							return { ...tap, name: `${tap.name}'` };
						}
					: (...args: unknown[]) => {
							log.push([
								handler,
								i,
								...args.map((a) =>
									a !== null && typeof a === "object" && "name" in a
										? (a as { name: string }).name
										: describeValue(a),
								),
							]);
						};
		}
		hook.intercept(interceptor as never);
	};
	interceptors.forEach((spec, i) => {
		if (spec.early) intercept(spec, i);
	});
	taps.forEach((spec, i) => {
		const name = `t${i}`;
		const options = {
			name,
			stage: spec.stage,
			before: spec.before && i > 0 ? "t0" : undefined,
			context: spec.context,
		};
		const result = (args: unknown[]) => {
			log.push(["tap", name, ...args.map(describeValue)]);
			return spec.behaviour === "undefined" ? undefined : `${String(args[spec.context ? 1 : 0])}>${name}`;
		};
		if (spec.type === "sync")
			hook.tap(options, (...args: unknown[]) => {
				if (spec.behaviour === "throw" || spec.behaviour === "fail") throw new Error(`${name} threw`);
				return result(args);
			});
		else if (spec.type === "async")
			(hook as AsyncSeriesWaterfallHook<[unknown, unknown]>).tapAsync(options, (...args: unknown[]) => {
				const callback = args.pop() as (error: unknown, value?: unknown) => void;
				if (spec.behaviour === "throw") throw new Error(`${name} threw`);
				if (spec.behaviour === "fail") return callback(new Error(`${name} failed`));
				const value = result(args);
				callback(null, value);
				if (spec.behaviour === "twice") callback(null, value);
			});
		else
			(hook as AsyncSeriesWaterfallHook<[unknown, unknown]>).tapPromise(options, ((...args: unknown[]) => {
				if (spec.behaviour === "throw") throw new Error(`${name} threw`);
				if (spec.behaviour === "not-a-promise") return result(args);
				if (spec.behaviour === "fail") return Promise.reject(new Error(`${name} rejected`));
				if (spec.behaviour === "falsy-fail") return Promise.reject(0);
				return Promise.resolve(result(args));
			}) as never);
	});
	interceptors.forEach((spec, i) => {
		if (!spec.early) intercept(spec, i);
	});
	return hook;
}

/** One call of the given type; what happened, in order, once everything settled. */
async function run(
	kind: Kind,
	taps: readonly TapSpec[],
	interceptors: readonly InterceptorSpec[],
	callType: string,
	interpreted: boolean,
) {
	const log: unknown[] = [];
	const hook = build(kind, taps, interceptors, log, interpreted) as unknown as Record<
		string,
		(...args: unknown[]) => unknown
	>;
	const unhandled = (reason: unknown) => log.push(["unhandled", describeValue(reason)]);
	process.on("unhandledRejection", unhandled);
	try {
		for (let round = 0; round < 2; round++) {
			try {
				if (callType === "call")
					log.push(["returned", describeValue((hook.call as (...args: unknown[]) => unknown)("v", "x"))]);
				else if (callType === "callAsync")
					(hook.callAsync as (...args: unknown[]) => unknown)("v", "x", (error: unknown, value: unknown) =>
						log.push(["callback", describeValue(error), describeValue(value)]),
					);
				// Not awaited: a call whose promise never settles (as tapable's can) is part of what is compared.
				else
					void (hook.promise as (...args: unknown[]) => Promise<unknown>)("v", "x").then(
						(value) => log.push(["resolved", describeValue(value)]),
						(error: unknown) => log.push(["rejected", describeValue(error)]),
					);
			} catch (error) {
				log.push(["thrown", describeValue(error)]);
			}
			await new Promise((resolve) => setTimeout(resolve, 0));
		}
	} finally {
		process.off("unhandledRejection", unhandled);
	}
	return log;
}

/**
 * The oracle of these tests is tapable's generated code, which a host that refuses code generation
 * cannot run: there (`NODE_OPTIONS=--disallow-code-generation-from-strings`) they are skipped, and
 * test/registry/codegen-refused.test.ts compares such a host with a plain child instead.
 */
const generates = !codeGenerationRefused();

describe("interpretHook", () => {
	it("should tell whether this host allows code generation, as new Function does", () => {
		let allowed = true;
		try {
			new Function("");
		} catch {
			allowed = false;
		}
		expect(codeGenerationRefused()).toBe(!allowed);
	});

	it.runIf(generates)("should call taps and interceptors exactly as tapable's generated code does", async () => {
		const arbCase = fc.constantFrom<Kind>("SyncHook", "SyncWaterfallHook", "AsyncSeriesWaterfallHook").chain((kind) =>
			fc.record({
				kind: fc.constant(kind),
				taps: fc.array(arbTap(kind === "AsyncSeriesWaterfallHook" ? ["sync", "async", "promise"] : ["sync"]), {
					maxLength: 5,
				}),
				interceptors: fc.array(arbInterceptor, { maxLength: 2 }),
				callType: fc.constantFrom(...CALL_TYPES[kind]),
			}),
		);
		let compared = 0;
		await fc.assert(
			fc.asyncProperty(arbCase, async ({ kind, taps, interceptors, callType }) => {
				const generated = await run(kind, taps, interceptors, callType, false);
				const interpreted = await run(kind, taps, interceptors, callType, true);
				expect(interpreted).toEqual(generated);
				compared++;
			}),
			{ numRuns: 300 },
		);
		expect(compared).toBe(300);
	});

	it.runIf(generates)(
		"should call tapAsync-style and promise taps on a sync hook's callAsync and promise too",
		async () => {
			for (const callType of ["callAsync", "promise"]) {
				const taps: TapSpec[] = [
					{ type: "sync", behaviour: "value", stage: 0, before: false, context: false },
					{ type: "sync", behaviour: "throw", stage: 0, before: false, context: true },
				];
				const interceptors: InterceptorSpec[] = [
					{ handlers: ["call", "tap", "error", "result"], context: true, early: true },
				];
				const generated = await run("SyncWaterfallHook", taps, interceptors, callType, false);
				expect(generated.some((entry) => (entry as unknown[])[0] === "error")).toBe(true);
				expect(await run("SyncWaterfallHook", taps, interceptors, callType, true)).toEqual(generated);
			}
		},
	);
});
