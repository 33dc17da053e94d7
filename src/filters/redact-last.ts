/**
 * Keeps a redaction last on a registry's `afterConvertAsync`, with tapable's public API only: every
 * tap that can run after it (a later stage, the same stage, or placed by `before`) is wrapped, as it
 * is registered, so that its output is redacted again before anything else sees it; and each
 * conversion checks that every tap after the redaction is one of those wrappers, and empties its
 * result when one is not.
 */
import type { Message } from "@earendil-works/pi-ai";
import { ConversionError, InvalidPluginError } from "../errors.js";
import type { HookContext, RegistryHooks } from "../registry/types.js";

/** Redacts one array of messages (a pass of the plugin). */
export type RedactPass = (messages: Message[], ctx: HookContext) => Promise<Message[]>;

type Fn = (...args: unknown[]) => unknown;

/** A tap as tapable hands it to a `register` interceptor. */
interface TapInfo {
	readonly name: string;
	readonly type: "sync" | "async" | "promise";
	readonly fn: Fn;
	readonly stage?: number;
	readonly before?: string | string[];
	readonly context?: boolean;
}

/**
 * What {@link keepLast} set up on one hook: whether its taps still let the redaction run last.
 */
export interface LastGuard {
	/**
	 * Why the redaction would not see everything that reaches the provider, or `undefined` when it
	 * does: its own tap is the one it registered, and every tap after it is one this guard wrapped.
	 */
	problem(): string | undefined;
}

/**
 * Makes every `afterConvertAsync` tap that may run after the tap named `name` (at `stage`) redact
 * its output with `pass`, including taps made before this call, and returns the check that nothing
 * undid it.
 *
 * Contract: a tap at a stage at or above `stage`, or with `before`, is replaced (through a
 * `register` interceptor, as tapable's README describes) by a promise tap of the same name, stage
 * and `before` that calls it as its style asks (sync, callback or promise) and resolves with `pass`
 * of what it returned (of its input when it returned `undefined`). Such a tap that asks for tapable's
 * deprecated `context` cannot be called so: tapping it (or applying the plugin after it) throws
 * `InvalidPluginError`. A tap someone put after the redaction in a way no interceptor sees (a later
 * interceptor that rewrites taps, a change to `hook.taps`), or one that replaced the redaction's own
 * tap, is found by {@link LastGuard.problem}: a `call` interceptor reports it on the conversion's
 * context when the hook is called, and a `result` interceptor empties the hook's final array, in
 * place, so that nothing such a tap returned is sent.
 */
export function keepLast(hooks: RegistryHooks, name: string, stage: number, pass: RedactPass): LastGuard {
	const hook = hooks.afterConvertAsync as unknown as {
		intercept(interceptor: {
			name: string;
			register(tap: TapInfo): TapInfo;
			call(messages: unknown, ctx: HookContext | undefined): void;
			result(result: unknown): void;
		}): void;
		readonly taps: readonly TapInfo[];
	};
	const wrapped = new WeakSet<Fn>();
	/** The redaction's own tap function, as it was registered. */
	let own: Fn | undefined;
	const problem = (): string | undefined => {
		const { taps } = hook;
		const at = taps.findIndex((tap) => tap.name === name);
		if (at < 0 || taps[at]?.fn !== own) return "its own afterConvertAsync tap was removed or replaced";
		for (let i = at + 1; i < taps.length; i++) {
			const tap = taps[i] as TapInfo;
			if (!wrapped.has(tap.fn))
				return `the afterConvertAsync tap "${tap.name}" runs after it and could not be made to redact what it returns`;
		}
		return undefined;
	};
	hook.intercept({
		name,
		register(tap) {
			if (tap.name === name) {
				own = tap.fn;
				return tap;
			}
			const later = (tap.stage ?? 0) >= stage || tap.before !== undefined;
			if (!later || wrapped.has(tap.fn)) return tap;
			if (tap.context === true)
				throw new InvalidPluginError(
					`redactSecrets: the afterConvertAsync tap "${tap.name}" asks for tapable's deprecated context, so what it returns could not be redacted after it runs; tap it without context, or at a stage below ${stage}.`,
					{ plugin: name },
				);
			const fn: Fn = async (messages, ctx) => {
				const result = await callTap(tap, messages, ctx);
				return pass((result ?? messages) as Message[], ctx as HookContext);
			};
			wrapped.add(fn);
			return { ...tap, type: "promise", fn };
		},
		call(_messages, ctx) {
			const why = problem();
			// A hook called without the registry's context (by hand) has no one to tell: `result` still empties it.
			if (why !== undefined && typeof ctx?.report === "function")
				ctx.report(
					new ConversionError(
						`redactSecrets: ${why}, so what it adds would reach the provider unscanned. No message was sent; tap afterConvertAsync with tap, tapAsync or tapPromise (no interceptor that rewrites taps, no change to hook.taps).`,
						{ plugin: name },
					),
				);
		},
		result(result) {
			// The problem was reported when the call began, and the plugin's tap (if it ran) passed on
			// `[]`; what the taps after it added is taken out here, where nothing can run after.
			if (Array.isArray(result) && result.length > 0 && problem() !== undefined) result.length = 0;
		},
	});
	return { problem };
}

/** Calls a tap as tapable would, by its style, and resolves with what it returned. */
function callTap(tap: TapInfo, messages: unknown, ctx: unknown): Promise<unknown> {
	if (tap.type === "async")
		return new Promise((resolve, reject) => {
			tap.fn(messages, ctx, (error: unknown, result?: unknown) => (error ? reject(error) : resolve(result)));
		});
	return new Promise((resolve) => resolve(tap.fn(messages, ctx)));
}
