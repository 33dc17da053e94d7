/**
 * The conversion loop, one of each:
 * - `role-table.ts`: what the loop dispatches on (each role's converters, `passThrough`, `customTypeOf`);
 * - `port.ts`: what the loop may call on its run;
 * - `step.ts`: one message through its role's converters, the one place a converter's result is judged;
 * - `convert-loop.ts`: the loop over a history.
 */
export { convertLoop } from "./convert-loop.js";
export type { LoopPort } from "./port.js";
export {
	type ConverterFn,
	type ConverterList,
	customTypeOf,
	NONE,
	passThrough,
	type RoleEntry,
	type RoleTable,
} from "./role-table.js";
