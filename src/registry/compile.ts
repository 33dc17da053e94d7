/**
 * Compiled dispatch, as tapable compiles a hook's taps: when the converters change, the role table
 * is turned into one specialised loop (a `switch` over the roles registered first, pass-through
 * inlined for model roles, everything else handed to the same {@link step} the interpreter uses),
 * and thrown away on the next `register`.
 *
 * It uses `new Function`. A host whose Content-Security-Policy forbids it (no `unsafe-eval`) gets
 * the interpreted loop instead (`interpret`), which gives identical results (property-tested),
 * one `Map` look-up per message slower.
 */
import type { ConvertLoop, RoleEntry, RoleTable } from "./dispatch.js";
import { customTypeOf, FAILED, interpret, judge, step, threw } from "./dispatch.js";

/** How many roles, in registration order, get a `case` of their own (the preset's, in practice). */
const SWITCHED_ROLES = 16;

/**
 * The loop for `table`. `inlineIdentity`: pass-through roles push the message itself, with no call
 * (off when outputs are copied or traced, which `step` does).
 */
export function compileLoop(table: RoleTable, inlineIdentity: boolean): ConvertLoop {
	const switched: RoleEntry[] = [];
	const rest = new Map<string, RoleEntry>();
	for (const [role, entry] of table) {
		if (switched.length < SWITCHED_ROLES) switched.push(entry);
		else rest.set(role, entry);
	}
	const identities: string[] = [];
	const cases: string[] = [];
	switched.forEach((entry, k) => {
		const label = `case ${JSON.stringify(entry.role)}:`;
		if (!inlineIdentity) cases.push(`${label} step(entries[${k}], message, i, run, out); continue;`);
		else if (entry.identity && entry.excludedBy === undefined) identities.push(label);
		else if (entry.list.fns.length === 1 && entry.byCustomType === undefined && !entry.identity)
			cases.push(`${label} {${single(entry, k)}}`);
		else cases.push(`${label} step(entries[${k}], message, i, run, out); continue;`);
	});
	const identity = identities.length === 0 ? "" : `${identities.join(" ")} out.push(message); continue;`;
	const source = `"use strict";
${switched.map((_, k) => `const L${k} = entries[${k}].list, F${k} = L${k}.fns[0];`).join("\n")}
return function convertMessages(input, run) {
	const out = [];
	const view = run.view;
	const length = input.length;
	for (let i = 0; i < length; i++) {
		const message = input[i];
		try {
			const role = message === null || typeof message !== "object" ? undefined : message.role;
			if (typeof role !== "string") {
				i = run.invalid(input, i, message);
				continue;
			}
			switch (role) {
				${identity}
				${cases.join("\n\t\t\t\t")}
				default: {
					const entry = rest.size === 0 ? undefined : rest.get(role);
					if (entry === undefined) run.unhandled(i, role, customTypeOf(message), NONE);
					else step(entry, message, i, run, out);
				}
			}
		} catch (cause) {
			run.failed(i, message, cause);
		}
	}
	return out;
};`;
	try {
		return new Function("entries", "rest", "step", "judge", "threw", "FAILED", "customTypeOf", "NONE", source)(
			switched,
			rest,
			step,
			judge,
			threw,
			FAILED,
			customTypeOf,
			Object.freeze([]),
		) as ConvertLoop;
	} catch {
		// `new Function` refused (a Content-Security-Policy without unsafe-eval): the same loop, interpreted.
		return interpret(table, inlineIdentity);
	}
}

/**
 * The case of a role with one converter, when outputs are neither copied nor traced: the converter
 * called directly, and a single model message appended at once; anything else goes to `judge`, as
 * the interpreter's `step` would send it.
 */
function single(entry: RoleEntry, k: number): string {
	// Excluded messages are dropped before the converter; nobody observes a run that is not traced.
	const exclusion = entry.excludedBy === undefined ? "" : "if (message.excludeFromContext) continue;";
	return `${exclusion}
					run.index = i;
					let result;
					try {
						result = F${k}(message, view);
					} catch (cause) {
						threw(L${k}, 0, message, i, run, cause);
						continue;
					}
					if (result !== null && typeof result === "object" && result !== message) {
						const to = result.role;
						if (to === "user" || to === "assistant" || to === "toolResult" || to === "system") {
							out.push(result);
							continue;
						}
					}
					const judged = judge(L${k}, 0, message, i, run, result);
					if (judged === FAILED) continue;
					if (judged === undefined) run.unhandled(i, ${JSON.stringify(entry.role)}, customTypeOf(message), L${k}.names);
					else run.take(judged, i, out);
					continue;
				`;
}
