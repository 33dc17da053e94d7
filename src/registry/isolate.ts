/**
 * `isolate: true`: copies of the converted messages that share no object or array with the input.
 *
 * Made for pi's histories, which are JSON-shaped: plain objects are copied with a spread (one site
 * per place in a message, see `Place`), arrays index by index into arrays of their size, strings
 * shared (they are immutable, so large outputs and image data cost nothing). A message is first
 * copied as a tree, with no map of what was copied; one whose copy grows past a budget of objects or
 * of depth (a cycle, or references shared so often that a tree copy would grow without bound) is
 * copied again with that map, so each object is copied once and the copy keeps the input's shape.
 * What is not JSON-shaped is still handled: class instances, dates and maps go to `structuredClone`
 * (or are left out and counted), functions are left out and counted, symbol keys and null
 * prototypes are kept, getters and proxies are read once.
 */
import type { Message } from "@earendil-works/pi-ai";

/** A tree copy of one message that needs more objects or depth than this is redone with a map. */
const TREE_OBJECTS = 20_000;
const TREE_DEPTH = 100;

/** Thrown (and caught here) when a tree copy goes over its budget. */
const OVER_BUDGET = Symbol("over budget");

/**
 * Where an object sits in a message: a message, a block of its `content`, one of its other fields
 * (`usage`, `details`, `sections`…), or anything deeper. Each place is copied by a function of its
 * own, because V8 copies an object with a spread (and reads its prototype) fastest at a site that has
 * seen few shapes: one site for every object of a history sees them all, gives up, and is about three
 * times slower.
 */
type Place = 0 | 1 | 2 | 3 | 4 | 5;
const MESSAGE: Place = 0;
/** A message's `content`: its items are blocks. */
const CONTENT: Place = 1;
const BLOCK: Place = 2;
const FIELD: Place = 3;
const NESTED: Place = 4;
/** A message a post-conversion tap made (`copyMessage`'s `adopted`): its shapes are the tap's, kept off the loop's site. */
const ADOPTED: Place = 5;

/** What a shallow copy returns for an object that is not a plain one (its prototype is neither `Object.prototype` nor `null`). */
const FOREIGN = undefined;

type Shallow = Record<PropertyKey, unknown> | typeof FOREIGN;

// Five copies of one body, on purpose (see Place). Spread defines own properties, so an own
// "__proto__" key (possible in parsed JSON) stays a key; assigning to it later then updates that own
// property, never the prototype.
function shallowMessage(value: object): Shallow {
	const prototype = Object.getPrototypeOf(value);
	if (prototype === Object.prototype) return { ...value };
	return prototype === null ? Object.setPrototypeOf({ ...value }, null) : FOREIGN;
}
function shallowBlock(value: object): Shallow {
	const prototype = Object.getPrototypeOf(value);
	if (prototype === Object.prototype) return { ...value };
	return prototype === null ? Object.setPrototypeOf({ ...value }, null) : FOREIGN;
}
function shallowField(value: object): Shallow {
	const prototype = Object.getPrototypeOf(value);
	if (prototype === Object.prototype) return { ...value };
	return prototype === null ? Object.setPrototypeOf({ ...value }, null) : FOREIGN;
}
function shallowAdopted(value: object): Shallow {
	const prototype = Object.getPrototypeOf(value);
	if (prototype === Object.prototype) return { ...value };
	return prototype === null ? Object.setPrototypeOf({ ...value }, null) : FOREIGN;
}
function shallowNested(value: object): Shallow {
	const prototype = Object.getPrototypeOf(value);
	if (prototype === Object.prototype) return { ...value };
	return prototype === null ? Object.setPrototypeOf({ ...value }, null) : FOREIGN;
}

/** A shallow copy of `value` (own enumerable keys, symbols included, each read once), made at its place's site. */
function shallow(value: object, place: Place): Shallow {
	if (place === MESSAGE) return shallowMessage(value);
	if (place === ADOPTED) return shallowAdopted(value);
	if (place === BLOCK) return shallowBlock(value);
	return place === FIELD ? shallowField(value) : shallowNested(value);
}

/** The place of the value of string key `key` of an object at `place`. */
const placeOf = (place: Place, key: string): Place =>
	place !== MESSAGE && place !== ADOPTED ? NESTED : key === "content" ? CONTENT : FIELD;

/** Copies the messages of one conversion; `leftOut` counts what could not be copied as data. */
export class Copier {
	/** Values left out of the copies so far (functions, objects `structuredClone` refuses). */
	leftOut = 0;
	private copies: Map<object, unknown> | undefined;
	private objects = 0;

	/**
	 * A copy of `message`; throws when the message itself cannot be read or copied. `adopted`: a
	 * post-conversion tap made it, so its top level is copied at a site of its own (see `Place`).
	 */
	copyMessage(message: Message, adopted = false): Message {
		const place = adopted ? ADOPTED : MESSAGE;
		const leftOut = this.leftOut;
		this.objects = 0;
		try {
			return this.copy(message, 0, place) as Message;
		} catch (error) {
			if (error !== OVER_BUDGET) throw error;
		}
		this.leftOut = leftOut;
		this.copies ??= new Map();
		return this.copy(message, -1, place) as Message;
	}

	/** `depth` is -1 for a copy with the map, the depth of `value` in a tree copy otherwise. */
	private copy(value: object, depth: number, place: Place): unknown {
		let copies: Map<object, unknown> | undefined;
		if (depth < 0) {
			copies = this.copies as Map<object, unknown>;
			const done = copies.get(value);
			if (done !== undefined) return done;
		} else if (++this.objects > TREE_OBJECTS || depth > TREE_DEPTH) throw OVER_BUDGET;
		const next = depth < 0 ? -1 : depth + 1;
		if (Array.isArray(value)) return this.array(value, next, place === CONTENT ? BLOCK : NESTED, copies);
		const result = shallow(value, place);
		if (result === FOREIGN) return this.foreign(value, copies);
		copies?.set(value, result);
		for (const key in result) {
			const item = result[key];
			if (item !== null && (typeof item === "object" || typeof item === "function")) {
				const copied = this.item(item, next, placeOf(place, key));
				if (copied === undefined) delete result[key];
				else result[key] = copied;
			}
		}
		// About half of a copy's time on pi's histories (a runtime call per object, measured at 40 to
		// 60 ns on Node 20), yet the only way to find symbol keys: no cheaper call tells whether an
		// object has one (Object.assign into a sealed probe and merging a message's objects first were
		// both slower).
		const symbols = Object.getOwnPropertySymbols(result);
		for (let i = 0; i < symbols.length; i++) {
			const key = symbols[i] as symbol;
			result[key] = this.item(result[key], next, NESTED);
		}
		return result;
	}

	/**
	 * A copy of array `value` whose items are at `place`, index by index (never `slice()`, whose
	 * `Symbol.species` a subclass can redefine). One or two items (most contents) go in an array
	 * literal of that size: `push` onto `[]` would reserve room for 17.
	 */
	private array(value: unknown[], depth: number, place: Place, copies: Map<object, unknown> | undefined): unknown[] {
		if (copies === undefined && value.length <= 2) {
			if (value.length === 0) return [];
			const first = this.item(value[0], depth, place);
			if (value.length === 1) return [first];
			return [first, this.item(value[1], depth, place)];
		}
		const result: unknown[] = [];
		copies?.set(value, result);
		for (let i = 0; i < value.length; i++) result.push(this.item(value[i], depth, place));
		return result;
	}

	private item(value: unknown, depth: number, place: Place): unknown {
		if (value === null || typeof value !== "object") {
			if (typeof value !== "function") return value;
			this.leftOut++;
			return undefined;
		}
		return this.copy(value, depth, place);
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
