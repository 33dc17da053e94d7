/**
 * The converters of one registry: the duplicate and override rules, the exclusions, the read-only
 * view (`converters(role)`), and the role table the loop dispatches on, rebuilt after a change.
 */
import { isModelRole } from "../messages.js";
import type { ConverterInfo } from "./converter-types.js";
import { type ConverterFn, type ConverterList, passThrough, type RoleEntry, type RoleTable } from "./loop/index.js";
import { duplicateConverter } from "./registry-errors.js";

interface Stored {
	readonly name: string;
	readonly fn: ConverterFn;
	readonly stage: number;
	readonly override: boolean;
	readonly customType: string | undefined;
}

export interface AddOptions {
	readonly name: string;
	readonly stage?: number | undefined;
	readonly override?: boolean | undefined;
	readonly customType?: string | undefined;
}

const NO_CONVERTERS: ConverterList = Object.freeze({ names: [], fns: [], modelRole: false });

export class ConverterStore {
	/** Role → its generic converters, in the order they are asked. Roles in registration order. */
	private readonly byRole = new Map<string, Stored[]>();
	/** customType → its converters (role `custom`), in the order they are asked. */
	private readonly byCustomType = new Map<string, Stored[]>();
	/** Role → the plugin that excludes its `excludeFromContext` messages. */
	readonly exclusions = new Map<string, string>();
	/** The table of the last conversion, or `undefined` after a change. */
	private table: RoleTable | undefined;

	/**
	 * One converter per slot unless `override`; an override goes in front of every converter it
	 * overrides and, among overrides, a lower stage runs first (equal stages: the later one first).
	 */
	add(role: string, fn: ConverterFn, options: AddOptions): void {
		const { customType } = options;
		const list =
			customType === undefined ? this.listOf(this.byRole, role) : this.listOf(this.byCustomType, customType);
		const stored: Stored = {
			name: options.name,
			fn,
			stage: options.stage ?? 0,
			override: options.override === true,
			customType,
		};
		if (list.length > 0 && !stored.override) {
			const slot =
				customType === undefined ? `role ${JSON.stringify(role)}` : `customType ${JSON.stringify(customType)}`;
			throw duplicateConverter(stored.name, slot, (list[0] as Stored).name, role, customType);
		}
		let at = 0;
		while (at < list.length && (list[at] as Stored).override && (list[at] as Stored).stage < stored.stage) at++;
		list.splice(at, 0, stored);
		if (customType !== undefined && !this.byRole.has("custom")) this.byRole.set("custom", []);
		this.table = undefined;
	}

	exclude(role: string, name: string): void {
		if (this.exclusions.has(role)) return;
		this.exclusions.set(role, name);
		if (!this.byRole.has(role)) this.byRole.set(role, []);
		this.table = undefined;
	}

	/** The roles with at least one converter, in registration order. */
	roles(): string[] {
		const roles: string[] = [];
		for (const [role, list] of this.byRole) {
			if (list.length > 0 || (role === "custom" && this.byCustomType.size > 0)) roles.push(role);
		}
		return roles;
	}

	converters(role: string): readonly ConverterInfo[] {
		const infos: ConverterInfo[] = [];
		if (role === "custom") for (const list of this.byCustomType.values()) for (const s of list) infos.push(info(s));
		for (const s of this.byRole.get(role) ?? []) infos.push(info(s));
		return Object.freeze(infos);
	}

	/**
	 * The role table, built on the first conversion after a change. A conversion under way keeps the
	 * table it started with: a change builds a new one.
	 */
	getTable(): RoleTable {
		if (this.table !== undefined) return this.table;
		const typed = new Map<string, ConverterList>();
		for (const [customType, list] of this.byCustomType) typed.set(customType, toList(list, false));
		const table = new Map<string, RoleEntry>();
		for (const [role, stored] of this.byRole) table.set(role, this.entry(role, stored, typed));
		this.table = table;
		return table;
	}

	private listOf(map: Map<string, Stored[]>, key: string): Stored[] {
		let list = map.get(key);
		if (list === undefined) {
			list = [];
			map.set(key, list);
		}
		return list;
	}

	private entry(role: string, stored: readonly Stored[], typed: ReadonlyMap<string, ConverterList>): RoleEntry {
		const list = stored.length === 0 ? NO_CONVERTERS : toList(stored, isModelRole(role));
		const byCustomType = role === "custom" && typed.size > 0 ? typed : undefined;
		const identity =
			list.modelRole && byCustomType === undefined && list.fns.length === 1 && list.fns[0] === passThrough;
		return { role, list, byCustomType, identity, excludedBy: this.exclusions.get(role) };
	}
}
function toList(stored: readonly Stored[], modelRole: boolean): ConverterList {
	return Object.freeze({
		names: Object.freeze(stored.map((s) => s.name)),
		fns: Object.freeze(stored.map((s) => s.fn)),
		modelRole,
	});
}

const info = (s: Stored): ConverterInfo =>
	Object.freeze({ name: s.name, stage: s.stage, override: s.override, customType: s.customType });
