/**
 * The converters of one registry: the duplicate and override rules, the exclusions, the read-only
 * view (`converters(role)`), and the role table and compiled loops built from them, thrown away on
 * the next change.
 */
import { isModelRole } from "../messages.js";
import { compileLoop } from "./compile.js";
import type { ConverterInfo } from "./converter-types.js";
import {
	type ConverterFn,
	type ConverterList,
	type ConvertLoop,
	type LoopKind,
	passThrough,
	type RoleEntry,
	type RoleTable,
} from "./dispatch.js";
import { interpret } from "./interpreted-loop.js";
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

/** How a store builds its loops: generated code, or never (a host that refuses code generation). */
export interface LoopOptions {
	readonly generate: boolean;
	/** Called with the source of every loop compiled (tests count them and read the source). */
	readonly onCompile?: ((source: string | undefined) => void) | undefined;
}

export class ConverterStore {
	/** Role → its generic converters, in the order they are asked. Roles in registration order. */
	private readonly byRole = new Map<string, Stored[]>();
	/** customType → its converters (role `custom`), in the order they are asked. */
	private readonly byCustomType = new Map<string, Stored[]>();
	/** Role → the plugin that excludes its `excludeFromContext` messages. */
	readonly exclusions = new Map<string, string>();
	/** The table of the last conversion; `dirty` lists the roles changed since. */
	private table: RoleTable | undefined;
	private readonly dirty = new Set<string>();
	private typed: ReadonlyMap<string, ConverterList> = new Map();
	private typedDirty = false;
	private loops: { [kind in LoopKind]?: ConvertLoop } = {};
	/** Conversions since the last change, and whether a table that lived one conversion waits for a second. */
	private uses = 0;
	private patient = false;

	constructor(private readonly options: LoopOptions = { generate: true }) {}

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
		if (customType !== undefined) this.typedDirty = true;
		this.changed(customType === undefined ? role : "custom");
	}

	exclude(role: string, name: string): void {
		if (this.exclusions.has(role)) return;
		this.exclusions.set(role, name);
		this.changed(role);
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
	 * The loop of one conversion (see {@link LoopKind}). Compiled lazily, once
	 * per table: on the first conversion after a change, or, when the last table changed after a
	 * single conversion (registering between conversions), on the second, so interleaving `register`
	 * and `convert` runs the interpreted loop instead of compiling every time.
	 */
	loop(kind: LoopKind): ConvertLoop {
		const table = this.getTable();
		this.uses++;
		const compiled = this.loops[kind];
		if (compiled !== undefined) return compiled;
		if (!this.options.generate || (this.patient && this.uses < 2)) return interpret(table, kind);
		const { loop, source } = compileLoop(table, kind);
		this.options.onCompile?.(source);
		this.loops[kind] = loop;
		return loop;
	}

	/** The role table, brought up to date: only the roles changed since the last call are rebuilt. */
	getTable(): RoleTable {
		if (this.table !== undefined && this.dirty.size === 0) return this.table;
		if (this.typedDirty) {
			const typed = new Map<string, ConverterList>();
			for (const [customType, list] of this.byCustomType) typed.set(customType, toList(list, false));
			this.typed = typed;
			this.typedDirty = false;
		}
		// A copy, so a conversion under way keeps the table it started with.
		const table = new Map(this.table);
		for (const role of this.dirty) table.set(role, this.entry(role, this.byRole.get(role) ?? []));
		this.dirty.clear();
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

	private changed(role: string): void {
		this.dirty.add(role);
		this.loops = {};
		// A table used by exactly one conversion before this change: registering between conversions.
		if (this.uses === 1) this.patient = true;
		else if (this.uses > 1) this.patient = false;
		this.uses = 0;
	}

	private entry(role: string, stored: readonly Stored[]): RoleEntry {
		const list = stored.length === 0 ? NO_CONVERTERS : toList(stored, isModelRole(role));
		const byCustomType = role === "custom" && this.typed.size > 0 ? this.typed : undefined;
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
