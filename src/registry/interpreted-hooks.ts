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

/** What the generated code does at the end: `return` a value (sync), call back, or resolve; or fail. */
interface Ending {
	error(error: unknown): unknown;
	result(value: unknown): unknown;
}

/** What is fixed when a call is built: the taps' styles and which interceptors have which handler. */
interface Plan {
	readonly kind: HookKind;
	readonly type: CompileOptions["type"];
	readonly taps: CompileOptions["taps"];
	readonly count: number;
	readonly calls: readonly number[];
	readonly tapped: readonly number[];
	readonly errors: readonly number[];
	readonly results: readonly number[];
	readonly dones: readonly number[];
	readonly needContext: boolean;
	/** The first tap that is not sync: the sync taps before it are called without a `try` in a sync call. */
	readonly firstAsync: number;
}

/** The call tapable would generate for `options`, as a closure (`this` is the hook). */
export function interpretCall(kind: HookKind, options: CompileOptions): Fn {
	const { type, taps, args } = options;
	const having = (key: keyof Interceptor) =>
		options.interceptors.flatMap((interceptor, i) => (interceptor[key] ? [i] : []));
	const firstAsync = taps.findIndex((tap) => tap.type !== "sync");
	const plan: Plan = {
		kind,
		type,
		taps,
		count: args.length,
		calls: having("call"),
		tapped: having("tap"),
		errors: having("error"),
		results: having("result"),
		dones: having("done"),
		needContext: taps.some((tap) => tap.context === true),
		firstAsync: firstAsync < 0 ? taps.length : firstAsync,
	};
	return function call(this: HookSelf, ...given: unknown[]): unknown {
		return callWith(plan, this, given);
	};
}

/** One call of the hook `self` with the arguments `given`, of the plan's call type. */
function callWith(plan: Plan, self: HookSelf, given: unknown[]): unknown {
	const { count } = plan;
	const values = given.slice(0, count);
	while (values.length < count) values.push(undefined);
	const calls = new Series(plan, self, values);
	if (plan.type === "sync") {
		const end: Ending = {
			error: (error) => {
				throw error;
			},
			result: (value) => value,
		};
		return calls.start(end, true);
	}
	if (plan.type === "async") {
		const callback = given[count] as Callback;
		const waterfall = plan.kind === "waterfall";
		calls.start(
			{ error: (error) => callback(error), result: (v) => (waterfall ? callback(null, v) : callback()) },
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
		calls.start({ error: fail, result: (value) => resolve(value) }, false);
		sync = false;
	});
}

/** The taps of one call, one after the other, as `callTapsSeries` chains them. */
class Series {
	private readonly context: object | undefined;
	private readonly fns: Fn[];
	private readonly hookTaps: unknown[];
	private readonly interceptors: Interceptor[];

	constructor(
		private readonly plan: Plan,
		self: HookSelf,
		private readonly values: unknown[],
	) {
		this.context = plan.needContext ? {} : undefined;
		this.fns = self._x as Fn[];
		this.hookTaps = self.taps;
		this.interceptors = self.interceptors;
	}

	start(end: Ending, rethrow: boolean): unknown {
		for (const i of this.plan.calls) {
			const interceptor = this.interceptors[i] as Required<Interceptor>;
			interceptor.call(...(interceptor.context ? [this.context, ...this.values] : this.values));
		}
		return this.step(0, this.ending(end), rethrow);
	}

	/** `end`, with the `error`, `result` and `done` interceptors the generated code calls before it. */
	private ending(end: Ending): Ending {
		const { plan, interceptors } = this;
		return {
			error: (error) => {
				for (const i of plan.errors) (interceptors[i] as Required<Interceptor>).error(error);
				return end.error(error);
			},
			result: (value) => {
				if (plan.kind === "waterfall") {
					for (const i of plan.results) (interceptors[i] as Required<Interceptor>).result(value);
					return end.result(value);
				}
				for (const i of plan.dones) (interceptors[i] as Required<Interceptor>).done();
				return end.result(undefined);
			},
		};
	}

	private argsOf(tap: { context?: boolean }, callback?: Callback): unknown[] {
		const list = tap.context === true ? [this.context, ...this.values] : this.values.slice();
		if (callback !== undefined) list.push(callback);
		return list;
	}

	private take(result: unknown): void {
		if (this.plan.kind === "waterfall" && result !== undefined) this.values[0] = result;
	}

	private step(k: number, end: Ending, rethrow: boolean): unknown {
		const { plan } = this;
		if (k === plan.taps.length) return end.result(this.values[0]);
		for (const i of plan.tapped) {
			const interceptor = this.interceptors[i] as Required<Interceptor>;
			if (interceptor.context) interceptor.tap(this.context, this.hookTaps[k]);
			else interceptor.tap(this.hookTaps[k]);
		}
		const fn = this.fns[k] as Fn;
		const tap = plan.taps[k] as CompileOptions["taps"][number];
		if (tap.type === "sync") {
			let result: unknown;
			if (rethrow && k < plan.firstAsync) result = fn(...this.argsOf(tap));
			else {
				try {
					result = fn(...this.argsOf(tap));
				} catch (error) {
					end.error(error);
					return undefined;
				}
			}
			this.take(result);
			return this.step(k + 1, end, rethrow);
		}
		if (tap.type === "async") {
			fn(
				...this.argsOf(tap, (error: unknown, result: unknown) => {
					if (error) return end.error(error);
					this.take(result);
					return this.step(k + 1, end, rethrow);
				}),
			);
			return undefined;
		}
		this.promised(fn(...this.argsOf(tap)), k, end, rethrow);
		return undefined;
	}

	/** A `tapPromise` tap's promise, followed as the generated code follows it. */
	private promised(promise: unknown, k: number, end: Ending, rethrow: boolean): void {
		const thenable = promise as PromiseLike<unknown> | undefined;
		if (!thenable?.then)
			// biome-ignore lint/style/useTemplate: `+` converts as tapable's generated code does (a template would differ).
			throw new Error("Tap function (tapPromise) did not return promise (returned " + promise + ")");
		let settled = false;
		thenable.then(
			(result) => {
				settled = true;
				this.take(result);
				this.step(k + 1, end, rethrow);
			},
			(error: unknown) => {
				if (settled) throw error;
				// biome-ignore lint/style/useTemplate: `+` converts as tapable's generated code does.
				end.error(error ? error : new Error('Tap function (tapPromise) rejects "' + error + '" value'));
			},
		);
	}
}
