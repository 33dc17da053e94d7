/**
 * Compiled dispatch, as tapable compiles a hook's taps: the role table is turned into one
 * specialised loop (a `switch` over the roles registered first, pass-through inlined for model
 * roles, everything else handed to the same {@link step} the interpreter uses), compiled lazily
 * and thrown away when the converters change (`store.ts` decides when).
 *
 * As tapable's generated code touches only `_x` and its arguments, the generated source touches
 * only what it is given by name: the {@link LoopScope}, the run's {@link LoopPort} and, when sources
 * are tracked, its `SourceRecords`, all spelt through objects the type checker checks against their
 * interfaces (`S`, `PORT`, `RECORDS`), so a rename fails the type check. A host that refuses code
 * generation runs `interpret` instead (identical results, property-tested, and run by `npm test`
 * under `--disallow-code-generation-from-strings`).
 */
import type { ConvertLoop, LoopKind, RoleEntry, RoleTable } from "./dispatch.js";
import { askOthers, customTypeOf, FAILED, judge, NONE, step, threw } from "./dispatch.js";
import { interpret } from "./interpreted-loop.js";
import { type NamesOf, PORT } from "./port.js";
import { RECORDS } from "./sources.js";

/** How many roles, in registration order, get a `case` of their own (the preset's, in practice). */
const SWITCHED_ROLES = 16;

/** Everything the generated source is given besides its arguments (`input`, `port`). */
interface LoopScope {
	/** The switched roles' entries, by case number. */
	readonly entries: readonly RoleEntry[];
	/** The other roles' entries. */
	readonly rest: ReadonlyMap<string, RoleEntry>;
	readonly step: typeof step;
	readonly askOthers: typeof askOthers;
	readonly judge: typeof judge;
	readonly threw: typeof threw;
	readonly FAILED: typeof FAILED;
	readonly customTypeOf: typeof customTypeOf;
	readonly NONE: typeof NONE;
}

const S = Object.freeze({
	entries: "entries",
	rest: "rest",
	step: "step",
	askOthers: "askOthers",
	judge: "judge",
	threw: "threw",
	FAILED: "FAILED",
	customTypeOf: "customTypeOf",
	NONE: "NONE",
} as const satisfies NamesOf<LoopScope>);

/** Up to this input length the plain loop writes into an array made at once (beyond, a huge sparse input would make it a slow dictionary). */
const PREALLOCATED = 1 << 20;

/** The generated loop's own argument names. */
const INPUT = "input";
const P = "port";
const R = "records";

/** A compiled loop with the source it was made from (`onCompile` shows it to tests). */
export interface Compiled {
	readonly loop: ConvertLoop;
	readonly source: string | undefined;
}

/**
 * The loop of `kind` for `table`: pass-through roles append the message itself, with no call
 * (`plain`; recording its source when `tracked`; through `port.keep` when `fused`), or, `traced`,
 * every message goes through `step`.
 */
export function compileLoop(table: RoleTable, kind: LoopKind): Compiled {
	const switched: RoleEntry[] = [];
	const rest = new Map<string, RoleEntry>();
	for (const [role, entry] of table) {
		if (switched.length < SWITCHED_ROLES) switched.push(entry);
		else rest.set(role, entry);
	}
	const scope: LoopScope = { entries: switched, rest, step, askOthers, judge, threw, FAILED, customTypeOf, NONE };
	const source = loopSource(switched, kind);
	try {
		const names = Object.keys(scope);
		const values = names.map((name) => scope[name as keyof LoopScope]);
		return { loop: new Function(...names, source)(...values) as ConvertLoop, source };
	} catch {
		// `new Function` refused after all: the same loop, interpreted.
		return { loop: interpret(table, kind), source: undefined };
	}
}

/** The source of the loop over `switched` (and `rest`). */
function loopSource(switched: readonly RoleEntry[], kind: LoopKind): string {
	const inlineIdentity = kind !== "traced";
	// The plain loop writes into an array made at the input's length (growing one by push costs
	// more than the rest of the loop), counting with `n`; a call that appends by itself appends to
	// `spill`, whose new entries are then copied to `out` (cutting `out` to `n` for the call instead
	// would make the next write grow it again: a copy of the whole output per such call); `spill` is
	// emptied only now and then, since emptying an array frees its storage.
	const counted = kind !== "traced";
	// `tracked` writes the port's source records as it goes; `traced` only where each input begins
	// (`take` names the plugin); the other kinds write none.
	const tracked = kind === "tracked";
	const records = tracked
		? `\n\tconst starts = ${R}.${RECORDS.starts}, deciders = ${R}.${RECORDS.deciders};`
		: kind === "traced"
			? `\n\tconst starts = ${R} === undefined ? undefined : ${R}.${RECORDS.starts};`
			: "";
	const start = tracked
		? "starts[i] = n;"
		: kind === "traced"
			? "if (starts !== undefined) starts[i] = out.length;"
			: "";
	const decided = (k: number) => (tracked ? `deciders[i] = N${k}; ` : "");
	// Appending a model message that needs no check: through the port when a sanitizer is fused.
	const append = (value: string, role: string) =>
		kind === "fused"
			? `{ const kept = ${P}.${PORT.keep}(${value}, ${role}); if (kept !== null) out[n++] = kept; }`
			: counted
				? `out[n++] = ${value};`
				: `out.push(${value});`;
	/** A call that appends to the array it is given (`target`). */
	const handOver = (call: (target: string) => string) =>
		counted
			? `{ const from = spill.length; ${call("spill")} for (let s = from; s < spill.length; s++) out[n++] = spill[s]; if (spill.length > 64) spill.length = 0; }`
			: call("out");
	const stepCall = (k: number) =>
		`${handOver((target) => `${S.step}(${S.entries}[${k}], message, i, ${P}, ${target});`)} continue;`;
	const identities: string[] = [];
	const cases: string[] = [];
	switched.forEach((entry, k) => {
		const label = `case ${JSON.stringify(entry.role)}:`;
		if (!inlineIdentity) cases.push(`${label} ${stepCall(k)}`);
		else if (entry.identity && entry.excludedBy === undefined) {
			// Tracked, each pass-through role names its own plugin.
			if (tracked) cases.push(`${label} ${decided(k)}${append("message", "role")} continue;`);
			else identities.push(label);
		} else if (entry.byCustomType === undefined && !entry.identity)
			cases.push(`${label} {${single(entry, k, (value, role) => `${decided(k)}${append(value, role)}`, handOver)}}`);
		else cases.push(`${label} ${stepCall(k)}`);
	});
	const identity = identities.length === 0 ? "" : `${identities.join(" ")} ${append("message", "role")} continue;`;
	return `"use strict";
${switched.map((_, k) => `const L${k} = ${S.entries}[${k}].list, F${k} = L${k}.fns[0]${tracked ? `, N${k} = L${k}.names[0]` : ""};`).join("\n")}
return function convertMessages(${INPUT}, ${P}${records === "" ? "" : `, ${R}`}) {
	const length = ${INPUT}.length;
	${counted ? `const out = length <= ${PREALLOCATED} ? new Array(length) : [];\n\tconst spill = [];\n\tlet n = 0;` : "const out = [];"}
	const view = ${P}.${PORT.view};${records}
	for (let i = 0; i < length; i++) {
		const message = ${INPUT}[i];
		try {
			const role = message === null || typeof message !== "object" ? undefined : message.role;
			if (typeof role !== "string") {
				i = ${P}.${PORT.invalid}(${INPUT}, i, message);
				continue;
			}
			${start === "" ? "" : `${start}\n\t\t\t`}switch (role) {
				${identity}
				${cases.join("\n\t\t\t\t")}
				default: {
					const entry = ${S.rest}.size === 0 ? undefined : ${S.rest}.get(role);
					if (entry === undefined) ${P}.${PORT.unhandled}(i, role, ${S.customTypeOf}(message), ${S.NONE});
					else ${handOver((target) => `${S.step}(entry, message, i, ${P}, ${target});`)}
				}
			}
		} catch (cause) {
			${P}.${PORT.failed}(i, message, cause);
		}
	}
	${counted ? "out.length = n;\n\t" : ""}return out;
};`;
}

/**
 * The case of a role with no `customType` converters, when outputs are neither copied nor traced:
 * its first converter called directly, and a single model message appended at once; anything else
 * (a result whose role cannot be read included) goes to `judge`, as the interpreter's `step` would
 * send it, and, when the first did not decide, the others are asked (`askOthers`).
 */
function single(
	entry: RoleEntry,
	k: number,
	append: (value: string, role: string) => string,
	handOver: (call: (target: string) => string) => string,
): string {
	// Excluded messages are dropped before the converter; nobody observes a run that is not traced.
	const exclusion = entry.excludedBy === undefined ? "" : "if (message.excludeFromContext) continue;";
	// Several converters: when the first does not decide, the others are asked (`askOthers`).
	const many = entry.list.fns.length > 1;
	const others = (failed: string) =>
		many
			? ` ${handOver((target) => `${S.askOthers}(${S.entries}[${k}], message, i, ${P}, ${target}, ${failed});`)}`
			: "";
	return `${exclusion}
					${P}.${PORT.at}(i);
					let result;
					try {
						result = F${k}(message, view);
					} catch (cause) {
						${S.threw}(L${k}, 0, message, i, ${P}, cause);${others("true")}
						continue;
					}
					if (result !== null && typeof result === "object" && result !== message) {
						let to;
						try {
							to = result.role;
						} catch {
							to = undefined;
						}
						if (to === "user" || to === "assistant" || to === "toolResult" || to === "system") {
							${append("result", "to")}
							continue;
						}
					}
					const judged = ${S.judge}(L${k}, 0, message, i, ${P}, result);
					${
						many
							? `if (judged === undefined || judged === ${S.FAILED}) {${others(`judged === ${S.FAILED}`)} continue; }`
							: `if (judged === ${S.FAILED}) continue;
					if (judged === undefined) ${P}.${PORT.unhandled}(i, ${JSON.stringify(entry.role)}, ${S.customTypeOf}(message), L${k}.names);
					else `
					}${handOver((target) => `${P}.${PORT.take}(judged, i, L${k}.names[0], ${target});`)}
					continue;
				`;
}
