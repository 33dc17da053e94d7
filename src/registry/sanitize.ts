/**
 * Sanitizers (`registry.sanitize`): a per-message stage, tapped on `afterConvert`, that copies the
 * array only once a message changes and keeps `ctx.sourceOf` working for what it replaces.
 */
import type { Message } from "@earendil-works/pi-ai";
import { isModelMessage } from "../messages.js";
import type { HookContext, RegistryHooks, SanitizeMessage, Sanitizer } from "./hook-types.js";
import { outputRejected } from "./registry-errors.js";
import { Stage } from "./stage.js";

/** Taps `sanitizer` on `afterConvert`. */
export function tapSanitizer(hooks: RegistryHooks, sanitizer: Sanitizer): void {
	hooks.afterConvert.tap({ name: sanitizer.name, stage: sanitizer.stage ?? Stage.SANITIZE }, (messages, ctx) =>
		sanitizeAll(sanitizer, messages, ctx),
	);
}

/** The tap's work: each message in turn, the array copied on the first change. */
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
		// A result that is not a message (against the contract) is dropped and reported, as the final check would.
		if (result === null || !isModelMessage(result)) {
			if (result !== null && ctx.listening) ctx.report(outputRejected(i, result));
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
