/**
 * tapable's hook calls without code generation, for hosts that refuse it (a Content-Security-Policy
 * without `unsafe-eval`, Cloudflare Workers, `node --disallow-code-generation-from-strings`).
 *
 * tapable compiles every `call`, `callAsync` and `promise` of a hook with `new Function` (the first
 * call after a tap or an interceptor is added builds it). Where that is refused, the registry gives
 * each of its hooks a `compile` that returns a closure doing what tapable's generated code does,
 * statement for statement (`HookCodeFactory`: `callTapsSeries`, `callTap`, `contentWithInterceptors`
 * and the three call types), for the two kinds of hook the registry declares: a series hook whose
 * results are ignored (`SyncHook`) and a waterfall (`SyncWaterfallHook`, `AsyncSeriesWaterfallHook`).
 * Tapping, `stage` and `before`, `isUsed()` and the interceptors' `register` stay tapable's own code;
 * the `call`, `tap`, `error`, `result` and `done` interceptors, `context`, a tap's sync, callback
 * and promise styles, and errors are handled as the generated code handles them.
 */

type Fn = (...args: unknown[]) => unknown;
type Callback = (error?: unknown, result?: unknown) => void;

/** What tapable passes to `hook.compile` (its `CompileOptions`). */
interface CompileOptions {
	readonly taps: readonly { readonly type: string; readonly fn: Fn; readonly context?: boolean }[];
	readonly interceptors: readonly Interceptor[];
	readonly args: readonly string[];
	readonly type: "sync" | "async" | "promise";
}

interface Interceptor {
	readonly context?: boolean;
	readonly call?: Fn;
	readonly tap?: Fn;
	readonly error?: Fn;
	readonly result?: Fn;
	readonly done?: Fn;
}

/** The fields of a tapable hook the generated code reads through `this`. */
interface HookSelf {
	taps: unknown[];
	interceptors: Interceptor[];
	_x?: Fn[];
}

/** How a hook's taps are chained: `waterfall` passes each defined result on as the first argument. */
export type HookKind = "series" | "waterfall";

/** Code generation is refused on this host: `new Function` throws (EvalError under CSP). */
export function codeGenerationRefused(): boolean {
	try {
		new Function("");
		return false;
	} catch {
		return true;
	}
}

/** Makes `hook` call its taps through {@link interpretCall} instead of generated code. */
export function interpretHook(hook: object, kind: HookKind): void {
	const target = hook as { compile(options: CompileOptions): Fn; _x?: Fn[] };
	target.compile = function compile(this: HookSelf, options: CompileOptions): Fn {
		// As tapable's `setup`: the tap functions as they are when the call is built.
		this._x = options.taps.map((tap) => tap.fn);
		return interpretCall(kind, options);
	};
}

/** What the generated code does after a step: `return` a value (sync), call back, or resolve. */
interface Ending {
	error(error: unknown): unknown;
	result(value: unknown): unknown;
}

/** The call tapable would generate for `options`, as a closure (`this` is the hook). */
export function interpretCall(kind: HookKind, options: CompileOptions): Fn {
	const { type, taps, args } = options;
	const count = args.length;
	// Which interceptors have which handler is fixed when the call is built, as in generated code.
	const having = (key: keyof Interceptor) =>
		options.interceptors.flatMap((interceptor, i) => (interceptor[key] ? [i] : []));
	const calls = having("call");
	const tapped = having("tap");
	const errors = having("error");
	const results = having("result");
	const dones = having("done");
	const needContext = taps.some((tap) => tap.context === true);
	let firstAsync = taps.findIndex((tap) => tap.type !== "sync");
	if (firstAsync < 0) firstAsync = taps.length;

	return function call(this: HookSelf, ...given: unknown[]): unknown {
		const values = given.slice(0, count);
		while (values.length < count) values.push(undefined);
		const context: object | undefined = needContext ? {} : undefined;
		const fns = this._x as Fn[];
		const hookTaps = this.taps;
		const interceptors = this.interceptors;
		const ending = (error: (e: unknown) => unknown, result: (v: unknown) => unknown): Ending => ({
			error: (e) => {
				for (const i of errors) (interceptors[i] as Required<Interceptor>).error(e);
				return error(e);
			},
			result: (value) => {
				if (kind === "waterfall") for (const i of results) (interceptors[i] as Required<Interceptor>).result(value);
				else for (const i of dones) (interceptors[i] as Required<Interceptor>).done();
				return kind === "waterfall" ? result(value) : result(undefined);
			},
		});
		const argsOf = (tap: { context?: boolean }, extra?: unknown): unknown[] => {
			const list = tap.context === true ? [context, ...values] : values.slice();
			if (extra !== undefined) list.push(extra);
			return list;
		};
		const start = (end: Ending, rethrow: boolean): unknown => {
			for (const i of calls) {
				const interceptor = interceptors[i] as Required<Interceptor>;
				interceptor.call(...(interceptor.context ? [context, ...values] : values));
			}
			return step(0, end, rethrow);
		};
		const take = (result: unknown) => {
			if (kind === "waterfall" && result !== undefined) values[0] = result;
		};
		const step = (k: number, end: Ending, rethrow: boolean): unknown => {
			if (k === taps.length) return end.result(values[0]);
			for (const i of tapped) {
				const interceptor = interceptors[i] as Required<Interceptor>;
				if (interceptor.context) interceptor.tap(context, hookTaps[k]);
				else interceptor.tap(hookTaps[k]);
			}
			const fn = fns[k] as Fn;
			const tap = taps[k] as CompileOptions["taps"][number];
			if (tap.type === "sync") {
				let result: unknown;
				if (rethrow && k < firstAsync) result = fn(...argsOf(tap));
				else {
					try {
						result = fn(...argsOf(tap));
					} catch (error) {
						end.error(error);
						return undefined;
					}
				}
				take(result);
				return step(k + 1, end, rethrow);
			}
			if (tap.type === "async") {
				fn(
					...argsOf(tap, (error: unknown, result: unknown) => {
						if (error) return end.error(error);
						take(result);
						return step(k + 1, end, rethrow);
					}),
				);
				return undefined;
			}
			let settled = false;
			const promise = fn(...argsOf(tap)) as PromiseLike<unknown> | undefined;
			if (!promise?.then)
				// biome-ignore lint/style/useTemplate: `+` converts as tapable's generated code does (a template would differ).
				throw new Error("Tap function (tapPromise) did not return promise (returned " + promise + ")");
			promise.then(
				(result) => {
					settled = true;
					take(result);
					step(k + 1, end, rethrow);
				},
				(error: unknown) => {
					if (settled) throw error;
					// biome-ignore lint/style/useTemplate: `+` converts as tapable's generated code does.
					end.error(error ? error : new Error('Tap function (tapPromise) rejects "' + error + '" value'));
				},
			);
			return undefined;
		};

		if (type === "sync")
			return start(
				ending(
					(error) => {
						throw error;
					},
					(value) => value,
				),
				true,
			);
		if (type === "async") {
			const callback = given[count] as Callback;
			start(
				ending(
					(error) => callback(error),
					(value) => (kind === "waterfall" ? callback(null, value) : callback()),
				),
				false,
			);
			return undefined;
		}
		return new Promise((resolve, reject) => {
			let sync = true;
			const fail = (error: unknown) => {
				if (sync)
					resolve(
						Promise.resolve().then(() => {
							throw error;
						}),
					);
				else reject(error);
			};
			start(
				ending(fail, (value) => resolve(value)),
				false,
			);
			sync = false;
		});
	};
}
