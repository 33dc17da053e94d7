/**
 * `isolate: true`: copies of the converted messages that share no object or array with the input.
 *
 * A message is first copied as a tree (no bookkeeping: the common case, five times faster); one
 * whose copy grows past a budget of objects or of depth (a cycle, or references shared so often
 * that a tree copy would grow without bound) is copied again with a map of the copies made so far,
 * so each object is copied once and the copy keeps the input's shape. Strings are immutable and are
 * shared, so large outputs and image data cost nothing to copy.
 */
import type { Message } from "@mariozechner/pi-ai";

/** A tree copy of one message that needs more objects or depth than this is redone with a map. */
const TREE_OBJECTS = 20_000;
const TREE_DEPTH = 100;

/** Thrown (and caught here) when a tree copy goes over its budget. */
const OVER_BUDGET = Symbol("over budget");

/** Copies the messages of one conversion; `leftOut` counts what could not be copied as data. */
export class Copier {
	/** Values left out of the copies so far (functions, objects `structuredClone` refuses). */
	leftOut = 0;
	private copies: Map<object, unknown> | undefined;
	private objects = 0;

	/** A copy of `message`; throws when the message itself cannot be read or copied. */
	copyMessage(message: Message): Message {
		const leftOut = this.leftOut;
		this.objects = 0;
		try {
			return this.copy(message, 0) as Message;
		} catch (error) {
			if (error !== OVER_BUDGET) throw error;
		}
		this.leftOut = leftOut;
		this.copies ??= new Map();
		return this.copy(message, -1) as Message;
	}

	/** `depth` is -1 for a copy with the map, the depth of `value` in a tree copy otherwise. */
	private copy(value: object, depth: number): unknown {
		let copies: Map<object, unknown> | undefined;
		if (depth < 0) {
			copies = this.copies as Map<object, unknown>;
			const done = copies.get(value);
			if (done !== undefined) return done;
		} else if (++this.objects > TREE_OBJECTS || depth > TREE_DEPTH) throw OVER_BUDGET;
		const next = depth < 0 ? -1 : depth + 1;
		if (Array.isArray(value)) {
			// Index by index (never `slice()`, whose `Symbol.species` a subclass can redefine).
			const result: unknown[] = [];
			copies?.set(value, result);
			for (let i = 0; i < value.length; i++) result.push(this.item(value[i], next));
			return result;
		}
		const prototype = Object.getPrototypeOf(value);
		if (prototype !== Object.prototype && prototype !== null) return this.foreign(value, copies);
		// Spread defines own properties, so an own "__proto__" key (possible in parsed JSON) stays a key;
		// assigning to it below then updates that own property, never the prototype.
		const result: Record<PropertyKey, unknown> = { ...value };
		if (prototype === null) Object.setPrototypeOf(result, null);
		copies?.set(value, result);
		for (const key in result) {
			const item = result[key];
			if (item !== null && (typeof item === "object" || typeof item === "function")) {
				const copied = this.item(item, next);
				if (copied === undefined) delete result[key];
				else result[key] = copied;
			}
		}
		const symbols = Object.getOwnPropertySymbols(result);
		for (let i = 0; i < symbols.length; i++) {
			const key = symbols[i] as symbol;
			result[key] = this.item(result[key], next);
		}
		return result;
	}

	private item(value: unknown, depth: number): unknown {
		if (value === null || typeof value !== "object") {
			if (typeof value !== "function") return value;
			this.leftOut++;
			return undefined;
		}
		return this.copy(value, depth);
	}

	/** Dates, maps, typed arrays and class instances: `structuredClone` copies them, or they are left out. */
	private foreign(value: object, copies: Map<object, unknown> | undefined): unknown {
		let result: unknown;
		try {
			result = structuredClone(value);
		} catch {
			this.leftOut++;
			return undefined;
		}
		copies?.set(value, result);
		return result;
	}
}
