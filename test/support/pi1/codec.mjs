/**
 * A lossless JSON transport for the values the pi 1.x suites send between the vitest process (Node
 * 20) and the pi 1.x child (Node >= 22.19). Plain JSON would change what each side converts: it
 * drops `undefined` fields, turns `NaN`, `Infinity` and `-0` into `null` or `0`, and splits an object
 * that appears twice in a history into two. Generated histories have all of these, and the
 * conversion rules care (a bash run's `exitCode: NaN` is printed, `exitCode: undefined` is not).
 *
 * `encode` maps a value to a JSON-safe tree in which those values are tagged objects; `decode`
 * rebuilds the same graph: the same keys in the same order (an own `__proto__` key included), the
 * same prototypes (`Object.prototype` or `null`), `undefined` as a present key, and one object for
 * every object that the input shared. `decode(encode(x))` deep-equals `x` (node's
 * `isDeepStrictEqual`), and the suites check that for every generated value before comparing.
 *
 * Plain JavaScript so that both sides import the very same code.
 */

/** The key of a tagged object; no generated value has it, and one that does is escaped. */
export const TAG = "\u0000ctl-pi1";

/**
 * A JSON-safe tree of `value`.
 *
 * @param {unknown} value
 * @returns {unknown}
 */
export function encode(value) {
	const seen = new Map();
	const shared = new Set();
	count(value, seen, shared);
	const ids = new Map();
	return encodeValue(value, shared, ids);
}

/** Finds the objects reached more than once. */
function count(value, seen, shared) {
	if (value === null || typeof value !== "object") return;
	if (seen.has(value)) {
		shared.add(value);
		return;
	}
	seen.set(value, true);
	for (const key of Object.keys(value)) count(value[key], seen, shared);
}

function encodeValue(value, shared, ids) {
	switch (typeof value) {
		case "undefined":
			return { [TAG]: "undefined" };
		case "number":
			if (Number.isNaN(value)) return { [TAG]: "NaN" };
			if (value === Number.POSITIVE_INFINITY) return { [TAG]: "Infinity" };
			if (value === Number.NEGATIVE_INFINITY) return { [TAG]: "-Infinity" };
			if (Object.is(value, -0)) return { [TAG]: "-0" };
			return value;
		case "string":
		case "boolean":
			return value;
		case "object": {
			if (value === null) return null;
			if (shared.has(value)) {
				const id = ids.get(value);
				if (id !== undefined) return { [TAG]: "ref", id };
				ids.set(value, ids.size);
				return { [TAG]: "def", id: ids.size - 1, value: encodeBody(value, shared, ids) };
			}
			return encodeBody(value, shared, ids);
		}
		default:
			throw new TypeError(`codec: cannot carry a ${typeof value}`);
	}
}

function encodeBody(value, shared, ids) {
	if (Array.isArray(value)) {
		const out = [];
		for (let i = 0; i < value.length; i++) out.push(encodeValue(value[i], shared, ids));
		return out;
	}
	const proto = Object.getPrototypeOf(value);
	if (proto !== Object.prototype && proto !== null) {
		throw new TypeError(`codec: cannot carry an object of class ${value.constructor?.name ?? "?"}`);
	}
	const entries = [];
	for (const key of Object.keys(value)) entries.push([key, encodeValue(value[key], shared, ids)]);
	if (proto === null) return { [TAG]: "nullProto", entries };
	if (Object.hasOwn(value, TAG) || Object.hasOwn(value, "__proto__")) return { [TAG]: "object", entries };
	const out = {};
	for (const [key, inner] of entries) out[key] = inner;
	return out;
}

/**
 * The value `encode` was given, rebuilt.
 *
 * @param {unknown} tree
 * @returns {unknown}
 */
export function decode(tree) {
	return decodeValue(tree, new Map());
}

function decodeValue(tree, defs) {
	if (tree === null || typeof tree !== "object") return tree;
	if (Array.isArray(tree)) {
		const out = [];
		for (let i = 0; i < tree.length; i++) out.push(decodeValue(tree[i], defs));
		return out;
	}
	if (Object.hasOwn(tree, TAG)) {
		const tag = tree[TAG];
		switch (tag) {
			case "undefined":
				return undefined;
			case "NaN":
				return Number.NaN;
			case "Infinity":
				return Number.POSITIVE_INFINITY;
			case "-Infinity":
				return Number.NEGATIVE_INFINITY;
			case "-0":
				return -0;
			case "ref":
				if (!defs.has(tree.id)) throw new Error(`codec: reference ${tree.id} before its definition`);
				return defs.get(tree.id);
			case "def":
				return decodeDef(tree, defs);
			case "object":
			case "nullProto":
				return fromEntries(tag === "nullProto" ? Object.create(null) : {}, tree.entries, defs);
			default:
				throw new Error(`codec: unknown tag ${JSON.stringify(tag)}`);
		}
	}
	const out = {};
	for (const key of Object.keys(tree)) out[key] = decodeValue(tree[key], defs);
	return out;
}

/** A shared object: registered before its body is decoded, so it is one object wherever it occurs. */
function decodeDef(tree, defs) {
	const body = tree.value;
	if (Array.isArray(body)) {
		const out = [];
		defs.set(tree.id, out);
		for (let i = 0; i < body.length; i++) out.push(decodeValue(body[i], defs));
		return out;
	}
	if (body !== null && typeof body === "object" && Object.hasOwn(body, TAG)) {
		const target = body[TAG] === "nullProto" ? Object.create(null) : {};
		defs.set(tree.id, target);
		return fromEntries(target, body.entries, defs);
	}
	const out = {};
	defs.set(tree.id, out);
	for (const key of Object.keys(body)) out[key] = decodeValue(body[key], defs);
	return out;
}

function fromEntries(target, entries, defs) {
	for (const [key, inner] of entries) {
		Object.defineProperty(target, key, {
			value: decodeValue(inner, defs),
			enumerable: true,
			writable: true,
			configurable: true,
		});
	}
	return target;
}

/**
 * `encode` then `JSON.stringify`: the text that crosses the process boundary.
 *
 * @param {unknown} value
 * @returns {string}
 */
export function pack(value) {
	return JSON.stringify(encode(value));
}

/**
 * `JSON.parse` then `decode`.
 *
 * @param {string} text
 * @returns {unknown}
 */
export function unpack(text) {
	return decode(JSON.parse(text));
}
