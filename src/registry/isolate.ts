/**
 * `isolate: true`: copies of the converted messages that share no object or array with the input.
 *
 * Each object is copied once per conversion (a map of the copies made so far), so shared references
 * and cycles cost one copy each and keep their shape, instead of growing without bound. Strings are
 * immutable and are shared, so large outputs and image data cost nothing to copy.
 */
import type { Message } from "@mariozechner/pi-ai";

/** Copies the messages of one conversion; `leftOut` counts what could not be copied as data. */
export class Copier {
	private readonly copies = new Map<object, unknown>();
	/** Values left out of the copies so far (functions, objects `structuredClone` refuses). */
	leftOut = 0;

	/** A copy of `message`; throws when the message itself cannot be read or copied. */
	copyMessage(message: Message): Message {
		return this.copy(message) as Message;
	}

	private copy(value: object): unknown {
		const done = this.copies.get(value);
		if (done !== undefined) return done;
		if (Array.isArray(value)) {
			// Index by index (never `slice()`, whose `Symbol.species` a subclass can redefine).
			const result: unknown[] = [];
			this.copies.set(value, result);
			for (let i = 0; i < value.length; i++) result.push(this.item(value[i]));
			return result;
		}
		const prototype = Object.getPrototypeOf(value);
		if (prototype !== Object.prototype && prototype !== null) return this.foreign(value);
		// Spread defines own properties, so an own "__proto__" key (possible in parsed JSON) stays a key;
		// assigning to it below then updates that own property, never the prototype.
		const result: Record<PropertyKey, unknown> = { ...value };
		if (prototype === null) Object.setPrototypeOf(result, null);
		this.copies.set(value, result);
		for (const key in result) {
			const item = result[key];
			if (item !== null && (typeof item === "object" || typeof item === "function")) {
				const copied = this.item(item);
				if (copied === undefined) delete result[key];
				else result[key] = copied;
			}
		}
		const symbols = Object.getOwnPropertySymbols(result);
		for (let i = 0; i < symbols.length; i++) {
			const key = symbols[i] as symbol;
			result[key] = this.item(result[key]);
		}
		return result;
	}

	private item(value: unknown): unknown {
		if (value === null || typeof value !== "object") {
			if (typeof value !== "function") return value;
			this.leftOut++;
			return undefined;
		}
		return this.copy(value);
	}

	/** Dates, maps, typed arrays and class instances: `structuredClone` copies them, or they are left out. */
	private foreign(value: object): unknown {
		let result: unknown;
		try {
			result = structuredClone(value);
		} catch {
			this.leftOut++;
			return undefined;
		}
		this.copies.set(value, result);
		return result;
	}
}
