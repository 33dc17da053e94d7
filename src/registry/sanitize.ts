/**
 * Sanitizers (`registry.sanitize`): a per-message stage that is an `afterConvert` tap and, when
 * nothing before it can have changed the output, runs fused into the conversion loop, so the
 * output is not walked a second time. The tap then only passes on what the loop set aside: the
 * reports, in the order the tap would have made them.
 */
import type { Message } from "@mariozechner/pi-ai";
import type { HookContext, RegistryHooks, SanitizeMessage, Sanitizer } from "./hook-types.js";
import { Stage } from "./stage.js";
import { HookView } from "./views.js";

/** The sanitizers of one registry, by the tap each one made. */
export type Sanitizers = Map<unknown, Sanitizer>;

/** Taps `sanitizer` on `afterConvert` and records it, so the pipeline can fuse it. */
export function tapSanitizer(hooks: RegistryHooks, sanitizers: Sanitizers, sanitizer: Sanitizer): void {
	const hook = hooks.afterConvert;
	const before = new Set(hook.taps);
	hook.tap({ name: sanitizer.name, stage: sanitizer.stage ?? Stage.SANITIZE }, (messages, ctx) => {
		const fused = HookView.outputOf(ctx)?.fused;
		if (fused !== undefined && fused.sanitizer === sanitizer) {
			fused.flush();
			return undefined;
		}
		return sanitizeAll(sanitizer, messages, ctx);
	});
	const tap = hook.taps.find((t) => !before.has(t));
	if (tap !== undefined) sanitizers.set(tap, sanitizer);
}

/** The sanitizer the loop can apply itself: the first `afterConvert` tap's, when no interceptor can see between. */
export function fusable(hooks: RegistryHooks, sanitizers: Sanitizers): Sanitizer | undefined {
	const hook = hooks.afterConvert;
	if (sanitizers.size === 0 || hook.interceptors.length > 0) return undefined;
	return sanitizers.get(hook.taps[0]);
}

/** The tap's work when not fused: each message in turn, the array copied on the first change. */
function sanitizeAll(sanitizer: Sanitizer, messages: Message[], ctx: HookContext): Message[] {
	const sanitize: SanitizeMessage | undefined = sanitizer.prepare(ctx);
	if (sanitize === undefined) return messages;
	// Copy on write: the array is copied (whole, so it stays packed) only once a message changes.
	let output: Message[] | undefined;
	let dropped: number[] | undefined;
	const roles = sanitizer.roles;
	for (let i = 0; i < messages.length; i++) {
		const message = messages[i] as Message;
		if (roles !== undefined && !handles(roles, message)) continue;
		const result = sanitize(message, i);
		if (result === message) continue;
		if (result === null) {
			dropped ??= [];
			dropped.push(i);
			continue;
		}
		ctx.inheritSource(result, message);
		if (output === undefined) output = messages.slice();
		output[i] = result;
	}
	if (dropped !== undefined) return withoutIndices(output ?? messages, dropped);
	return output ?? messages;
}

/** Whether a sanitizer of `roles` is asked about `message`: one whose role cannot be read is asked (it reports and drops it). */
function handles(roles: readonly string[], message: Message): boolean {
	let role: unknown;
	try {
		role = message.role;
	} catch {
		return true;
	}
	return roles.includes(role as string);
}

/** `messages` without the entries at `indices` (ascending). */
function withoutIndices(messages: readonly Message[], indices: readonly number[]): Message[] {
	const kept: Message[] = [];
	let next = 0;
	for (let i = 0; i < messages.length; i++) {
		if (i === indices[next]) next++;
		else kept.push(messages[i] as Message);
	}
	return kept;
}
