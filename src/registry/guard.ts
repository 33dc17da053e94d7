/**
 * Wrapping of every tap the registry's hooks receive, so that a faulty plugin is named and contained:
 * lenient registries report it and carry on without its result, strict ones throw.
 */
import type { Message } from "@mariozechner/pi-ai";
import { AsyncHookInSyncConvertError, ConversionError, ConvertToLlmError } from "../errors.js";
import { isModelRole } from "../messages.js";
import { errorText as causeText, describeValue } from "../values.js";

export { isModelRole };

/** Whether `value` is an object with one of pi-ai's `Message` roles. */
export function isModelMessage(value: unknown): value is Message {
	if (value === null || typeof value !== "object") return false;
	return isModelRole((value as { role?: unknown }).role);
}

/** Why a converter result is not a `ConverterResult`, or `undefined` when it is one. */
export function describeBadResult(result: unknown): string | undefined {
	if (result === undefined || result === null) return undefined;
	if (Array.isArray(result)) {
		for (let i = 0; i < result.length; i++) {
			if (!isModelMessage(result[i])) return `item ${i} of its result is ${describeValue(result[i])}`;
		}
		return undefined;
	}
	return isModelMessage(result) ? undefined : `it returned ${describeValue(result)}`;
}

// One home for value inspection (src/values.ts); re-exported so the registry's imports keep working.
export { describeValue, errorText as causeText, quote } from "../values.js";

/** Turns anything a tap threw into our error, naming the tap; errors that are already ours pass unchanged. */
export function toConversionError(cause: unknown, hookName: string, plugin: string): ConvertToLlmError {
	if (cause instanceof ConvertToLlmError) return cause;
	return new ConversionError(
		`${hookName} tap "${plugin}" threw: ${causeText(cause)}. Its change was skipped; fix the plugin or remove it.`,
		{ plugin, cause },
	);
}

/** A tap as tapable stores it (the fields the guards read and replace). */
interface TapLike {
	name: string;
	type: "sync" | "async" | "promise";
	fn: unknown;
}

/** Reports a problem of a tap; `ctx` is the context argument the tap was called with. */
export type TapFailure = (error: ConvertToLlmError, ctx: unknown) => void;

/**
 * Guards a waterfall tap (`beforeConvert`, `afterConvert`, `afterConvertAsync`): a throw, a rejection
 * or a result that is not an array is reported through `fail` (which throws in strict mode), and the
 * waterfall goes on with the previous value (tapable keeps it when a tap returns `undefined`).
 */
export function guardWaterfallTap<T extends TapLike>(
	tap: T,
	hookName: string,
	fail: TapFailure,
	isItem?: (value: unknown) => boolean,
): T {
	const { name: plugin } = tap;
	const call = tap.fn as (...args: unknown[]) => unknown;
	const problemOf = (result: unknown, input: unknown): string | undefined => {
		if (result === undefined || result === input) return undefined;
		if (!Array.isArray(result)) return `it returned ${describeValue(result)}, not an array`;
		if (isItem === undefined) return undefined;
		// Items the tap kept in place were checked before it ran: a same-length result (a map) costs
		// one comparison per item, and only what the tap put there is checked.
		const kept = Array.isArray(input) && input.length === result.length ? input : undefined;
		for (let i = 0; i < result.length; i++) {
			const item: unknown = result[i];
			if (kept !== undefined && item === kept[i]) continue;
			if (!isItem(item)) return `item ${i} of what it returned is ${describeValue(item)}, not a pi-ai Message`;
		}
		return undefined;
	};
	// Waterfall taps are called as (messages, ctx[, callback]).
	const settle = (result: unknown, ctx: unknown, input: unknown): unknown => {
		const problem = problemOf(result, input);
		if (problem === undefined) return result;
		fail(
			new ConversionError(
				`${hookName} tap "${plugin}" is faulty: ${problem}. Its change was skipped; return an array of messages or undefined.`,
				{ plugin },
			),
			ctx,
		);
		return undefined;
	};
	const failed = (cause: unknown, ctx: unknown): undefined => {
		fail(toConversionError(cause, hookName, plugin), ctx);
		return undefined;
	};
	if (tap.type === "sync") {
		tap.fn = ((...args: unknown[]) => {
			let result: unknown;
			try {
				result = call(...args);
			} catch (cause) {
				return failed(cause, args[1]);
			}
			return settle(result, args[1], args[0]);
		}) as T["fn"];
	} else if (tap.type === "promise") {
		tap.fn = ((...args: unknown[]) => {
			try {
				return Promise.resolve(call(...args)).then(
					(result) => settle(result, args[1], args[0]),
					(cause) => failed(cause, args[1]),
				);
			} catch (cause) {
				return Promise.resolve().then(() => failed(cause, args[1]));
			}
		}) as T["fn"];
	} else {
		tap.fn = ((...args: unknown[]) => {
			const callback = args.pop() as (error: unknown, result?: unknown) => void;
			// Settle once: a tap that calls back twice, or throws after calling back, must not run the rest twice.
			let done = false;
			const finish = (get: () => unknown) => {
				if (done) return;
				done = true;
				let value: unknown;
				try {
					value = get();
				} catch (error) {
					callback(error);
					return;
				}
				callback(null, value);
			};
			try {
				call(...args, (error: unknown, result?: unknown) =>
					finish(() => (error ? failed(error, args[1]) : settle(result, args[1], args[0]))),
				);
			} catch (cause) {
				finish(() => failed(cause, args[1]));
			}
		}) as T["fn"];
	}
	return tap;
}

/** Guards an `error` tap: an error handler that throws must not turn a report into a crash. */
export function guardErrorTap<T extends TapLike>(tap: T): T {
	const call = tap.fn as (...args: unknown[]) => unknown;
	tap.fn = ((...args: unknown[]) => {
		try {
			call(...args);
		} catch {
			// Nothing sensible is left to report to: the error channel itself failed.
		}
	}) as T["fn"];
	return tap;
}

/** The error of a sync call (`convert`, `explain`) on a registry whose `afterConvertAsync` has taps. */
export function asyncTapsError(
	taps: readonly { readonly name: string }[],
	method: string,
	asyncMethod: string,
): AsyncHookInSyncConvertError {
	const names = taps.map((t) => `"${t.name}"`).join(", ");
	return new AsyncHookInSyncConvertError(
		`registry.${method}() cannot run the afterConvertAsync taps ${names}, and skipping them could leak what they remove. ` +
			`Use registry.${asyncMethod} instead${method === "convert" ? " (e.g. new Agent({ convertToLlm: registry.convertAsync }))" : ""}.`,
		{ plugin: taps[0]?.name },
	);
}
