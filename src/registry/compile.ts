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
import { customTypeOf, interpret, step } from "./dispatch.js";

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
		if (inlineIdentity && entry.identity && entry.excludedBy === undefined) identities.push(label);
		else cases.push(`${label} step(entries[${k}], message, i, run, out); continue;`);
	});
	const identity = identities.length === 0 ? "" : `${identities.join(" ")} out.push(message); continue;`;
	const source = `"use strict";
return function convertMessages(input, run) {
	const out = [];
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
		return new Function("entries", "rest", "step", "customTypeOf", "NONE", source)(
			switched,
			rest,
			step,
			customTypeOf,
			Object.freeze([]),
		) as ConvertLoop;
	} catch {
		// `new Function` refused (a Content-Security-Policy without unsafe-eval): the same loop, interpreted.
		return interpret(table);
	}
}
