/**
 * The guard every tap of a registry's hooks gets when it is made (by wrapping `tap`, `tapAsync` and
 * `tapPromise` of the hook itself, not by an interceptor, so `isUsed()` stays tapable's answer): a
 * faulty tap is named and contained. Lenient registries report it and carry on with the previous
 * value, strict ones throw, `explain` collects, and sees what each tap changed.
 */
import type { ConvertToLlmError } from "../errors.js";
import { describeValue, settleWithin } from "../values.js";
import { asOurs, tapFaulty, tapThrew, tapTimedOut } from "./registry-errors.js";
import { HookView } from "./views.js";

type Fn = (...args: unknown[]) => unknown;
type Callback = (error: unknown, result?: unknown) => void;

/** The tapping methods of a tapable hook, as the guard replaces them. */
interface Tappable {
	tap(options: unknown, fn: Fn): void;
	tapAsync?(options: unknown, fn: Fn): void;
	tapPromise?(options: unknown, fn: Fn): void;
}

export interface WaterfallGuard {
	readonly hook: string;
	/** Checks the items a tap returned (`afterConvert*`: pi-ai messages). */
	readonly isItem?: (value: unknown) => boolean;
	/** Whether `explain` records what each tap changed. */
	readonly observed: boolean;
	/** Where a problem goes when the tap was called with a context the registry did not make. */
	readonly report: (error: ConvertToLlmError) => void;
	/** A time limit for an async tap to settle (`asyncTimeoutMs`). */
	readonly timeoutMs?: number | undefined;
}

const nameOf = (options: unknown): string => {
	if (typeof options === "string") return options.trim();
	const name = (options as { name?: unknown } | null)?.name;
	return typeof name === "string" ? name.trim() : "";
};

/** Guards every waterfall tap made on `hook` from now on. */
export function guardWaterfall(hook: Tappable, guard: WaterfallGuard): void {
	const wrap =
		(type: "sync" | "async" | "promise", tap: (options: unknown, fn: Fn) => void) => (options: unknown, fn: Fn) =>
			tap.call(hook, options, typeof fn === "function" ? guarded(type, nameOf(options), fn, guard) : fn);
	hook.tap = wrap("sync", hook.tap);
	if (hook.tapAsync !== undefined) hook.tapAsync = wrap("async", hook.tapAsync);
	if (hook.tapPromise !== undefined) hook.tapPromise = wrap("promise", hook.tapPromise);
}

/** Guards every `error` tap: an error handler that throws must not turn a report into a crash. */
export function guardErrorTaps(hook: Tappable): void {
	const tap = hook.tap;
	hook.tap = (options, fn) =>
		tap.call(
			hook,
			options,
			typeof fn !== "function"
				? fn
				: (...args: unknown[]) => {
						try {
							fn(...args);
						} catch {
							// Nothing sensible is left to report to: the error channel itself failed.
						}
					},
		);
}

function guarded(type: "sync" | "async" | "promise", plugin: string, call: Fn, guard: WaterfallGuard): Fn {
	const { hook, isItem } = guard;
	const report = (error: ConvertToLlmError, ctx: unknown) => {
		const run = HookView.runOf(ctx);
		if (run === undefined) guard.report(error);
		else run.report(error);
	};
	const problemOf = (result: unknown, input: unknown): string | undefined => {
		if (result === undefined || result === input) return undefined;
		try {
			if (!Array.isArray(result)) return `it returned ${describeValue(result)}, not an array`;
			if (isItem === undefined) return undefined;
			// Items kept in place were checked before the tap ran: only what the tap put there is checked.
			const kept = Array.isArray(input) && input.length === result.length ? input : undefined;
			for (let i = 0; i < result.length; i++) {
				const item: unknown = result[i];
				if (kept !== undefined && item === kept[i]) continue;
				if (!isItem(item)) return `item ${i} of what it returned is ${describeValue(item)}, not a pi-ai Message`;
			}
		} catch {
			return "what it returned cannot be read";
		}
		return undefined;
	};
	// Waterfall taps are called as (messages, ctx[, callback]).
	const settle = (result: unknown, input: unknown, ctx: unknown): unknown => {
		const problem = problemOf(result, input);
		if (problem !== undefined) {
			report(tapFaulty(hook, plugin, problem), ctx);
			result = undefined;
		}
		if (guard.observed)
			HookView.runOf(ctx)?.observer?.tapped(hook, plugin, input as never, (result ?? input) as never);
		return result;
	};
	const failed = (cause: unknown, input: unknown, ctx: unknown): undefined => {
		report(
			asOurs(cause, (c) => tapThrew(hook, plugin, c)),
			ctx,
		);
		settle(undefined, input, ctx);
		return undefined;
	};
	if (type === "sync") {
		return (...args) => {
			let result: unknown;
			try {
				result = call(...args);
			} catch (cause) {
				return failed(cause, args[0], args[1]);
			}
			return settle(result, args[0], args[1]);
		};
	}
	const { timeoutMs } = guard;
	if (type === "promise") {
		return (...args) => {
			let pending: Promise<unknown>;
			try {
				pending = Promise.resolve(call(...args));
			} catch (cause) {
				pending = Promise.reject(cause);
			}
			const done = pending.then(
				(result) => settle(result, args[0], args[1]),
				(cause) => failed(cause, args[0], args[1]),
			);
			return timeoutMs === undefined ? done : settleWithin(done, timeoutMs, () => tapTimedOut(plugin, timeoutMs));
		};
	}
	return callbackTap(call, plugin, settle, failed, timeoutMs);
}

/** A `tapAsync` tap, guarded: settles once, within `timeoutMs` when one is set. */
function callbackTap(
	call: Fn,
	plugin: string,
	settle: (result: unknown, input: unknown, ctx: unknown) => unknown,
	failed: (cause: unknown, input: unknown, ctx: unknown) => undefined,
	timeoutMs: number | undefined,
): Fn {
	return (...args) => {
		const callback = args.pop() as Callback;
		// Settle once: a tap that calls back twice, or throws after calling back, must not run the rest twice.
		let finished = false;
		let timer: ReturnType<typeof setTimeout> | undefined;
		const finish = (get: () => unknown) => {
			if (finished) return;
			finished = true;
			if (timer !== undefined) clearTimeout(timer);
			let value: unknown;
			try {
				value = get();
			} catch (error) {
				callback(error);
				return;
			}
			callback(null, value);
		};
		if (timeoutMs !== undefined)
			timer = setTimeout(
				() =>
					finish(() => {
						throw tapTimedOut(plugin, timeoutMs);
					}),
				timeoutMs,
			);
		try {
			call(...args, (error: unknown, result?: unknown) =>
				finish(() => (error ? failed(error, args[0], args[1]) : settle(result, args[0], args[1]))),
			);
		} catch (cause) {
			finish(() => failed(cause, args[0], args[1]));
		}
	};
}
