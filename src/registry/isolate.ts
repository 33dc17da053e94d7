/**
 * `isolate: true`: copies of the converted messages that share no object or array with the input.
 *
 * Plain objects are copied with a spread (own enumerable keys, each read once; an own `"__proto__"`
 * key stays a key), symbol keys and null prototypes kept; arrays index by index (never `slice()`,
 * whose `Symbol.species` a subclass can redefine); strings and other primitives shared (they are
 * immutable, so large outputs and image data cost nothing). Each object of a message is copied once
 * (a map of what was copied), so a cycle or a reference shared within a message keeps the input's
 * shape. What is not JSON-shaped is still handled: class instances, dates and maps go to
 * `structuredClone` (or are left out and counted), functions are left out and counted.
 */
import type { Message } from "@earendil-works/pi-ai";

/** Copies the messages of one conversion; `leftOut` counts what could not be copied as data. */
export class Copier {
	/** Values left out of the copies so far (functions, objects `structuredClone` refuses). */
	leftOut = 0;

	/** A copy of `message`, sharing nothing with it; throws when the message cannot be read or copied. */
	copyMessage(message: Message): Message {
		return this.copy(message, new Map()) as Message;
	}

	private copy(value: object, copies: Map<object, unknown>): unknown {
		const done = copies.get(value);
		if (done !== undefined) return done;
		if (Array.isArray(value)) {
			const result: unknown[] = [];
			copies.set(value, result);
			for (let i = 0; i < value.length; i++) result.push(this.item(value[i], copies));
			return result;
		}
		const prototype = Object.getPrototypeOf(value);
		if (prototype !== Object.prototype && prototype !== null) return this.foreign(value, copies);
		const result: Record<PropertyKey, unknown> =
			prototype === null ? Object.setPrototypeOf({ ...value }, null) : { ...value };
		copies.set(value, result);
		for (const key in result) {
			const item = result[key];
			if (item === null || (typeof item !== "object" && typeof item !== "function")) continue;
			const copied = this.item(item, copies);
			if (copied === undefined) delete result[key];
			else result[key] = copied;
		}
		for (const key of Object.getOwnPropertySymbols(result)) result[key] = this.item(result[key], copies);
		return result;
	}

	private item(value: unknown, copies: Map<object, unknown>): unknown {
		if (value === null || typeof value !== "object") {
			if (typeof value !== "function") return value;
			this.leftOut++;
			return undefined;
		}
		return this.copy(value, copies);
	}

	/** Dates, maps, typed arrays and class instances: `structuredClone` copies them, or they are left out. */
	private foreign(value: object, copies: Map<object, unknown>): unknown {
		let result: unknown;
		try {
			result = structuredClone(value);
		} catch {
			this.leftOut++;
			return undefined;
		}
		copies.set(value, result);
		return result;
	}
}
