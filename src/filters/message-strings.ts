/**
 * Which strings of a pi-ai message reach the model, read the same way by the scan that looks for
 * secrets ({@link eachString}) and by the rewrite that replaces them ({@link mapStrings}).
 */
import { isRecord } from "../values.js";

/** How a field of a message or of a content block is read: by its key, which is pi-ai's name for it. */
enum Field {
	/** Metadata, ids that pair calls with results, and provider signatures: no text for the model. */
	Skip,
	/** A field of pi-ai's schema: its key is a name, not text; its value is text or more schema. */
	Schema,
	/** A field of pi-ai's schema whose value is free data (tool arguments, prompt sections): every key and string of it is text. */
	Data,
	/** A field pi-ai does not name: its key and its value are text. */
	Text,
}

/** The {@link Field} of a key of a message or a content block (a `switch`: several times cheaper than a `Map` here). */
function fieldOf(key: string): Field {
	switch (key) {
		case "role":
		case "type":
		case "timestamp":
		case "api":
		case "provider":
		case "model":
		case "responseModel":
		case "responseId":
		case "providerThinkingLevel":
		case "thinkingLevel":
		case "stopReason":
		case "usage":
		case "diagnostics":
		case "toolCallId":
		case "id":
		case "isError":
		case "mimeType":
		case "thinkingSignature":
		case "textSignature":
		case "thoughtSignature":
			return Field.Skip;
		case "content":
		case "text":
		case "thinking":
		case "redacted":
		case "name":
		case "toolName":
		case "errorMessage":
		case "description":
		case "toolsAdded":
		case "toolsRemoved":
			return Field.Schema;
		case "arguments":
		case "sections":
		case "parameters":
		case "details":
			return Field.Data;
		default:
			return Field.Text;
	}
}

/** How deep a message is walked; deeper (or cyclic) values make the message unreadable. */
const MAX_DEPTH = 100;

/** Maps one string; returns the same string when nothing changes. */
export type StringMapper = (text: string) => string;

/**
 * The one rule for what is text, at a record's field: `undefined` when the field is skipped, else
 * how its key and value are read. In a message or a content block (`schema`), pi-ai's metadata
 * fields are skipped, an image block's `data` too, and the keys of its other named fields are names;
 * a field pi-ai does not name is text, as is everything inside tool arguments, prompt sections, tool
 * parameters and details, where every key and every string is text.
 */
function fieldRule(schema: boolean, image: boolean, key: string): Field | undefined {
	if (!schema) return Field.Text;
	const field = fieldOf(key);
	return field === Field.Skip || (image && key === "data") ? undefined : field;
}

function tooDeep(): Error {
	return new Error(`a value nested deeper than ${MAX_DEPTH} levels (a cycle?)`);
}

/**
 * Calls `visit` with every string of `value` that the model can receive (the strings
 * {@link mapStrings} maps, in the same order), allocating nothing. Throws where `mapStrings` throws.
 * A record whose prototype (other than `Object.prototype`) has enumerable properties also has those
 * visited, after its own (`for…in`, several times cheaper than `Object.keys` on V8): a scan may read
 * more than is sent (`JSON.stringify` sends own properties only), never less.
 *
 * @example
 * eachString({ role: "user", content: "key=abc" }, (s) => console.log(s)); // "key=abc"
 */
export function eachString(value: unknown, visit: (text: string) => void): void {
	stringWalker(visit)(value);
}

/**
 * {@link eachString} for many values: `Object.prototype` is checked once, when the walker is made,
 * not for each value (make one per pass, so that a property added in between is seen).
 *
 * @example
 * const walk = stringWalker((s) => strings.push(s));
 * for (const message of messages) walk(message);
 */
export function stringWalker(visit: (text: string) => void): (value: unknown) => void {
	const forIn = !enumerablesInherited();
	return (value) => visitValue(value, visit, forIn, true, 0);
}

/** Whether `Object.prototype` has an enumerable property (someone added one), which `for…in` would list. */
function enumerablesInherited(): boolean {
	for (const _ in NO_KEYS) return true;
	return false;
}
const NO_KEYS = Object.freeze({});

/**
 * One value of an {@link eachString} walk. `forIn`: records are walked by `for…in` (V8's enum
 * cache), which lists their own enumerable keys in `Object.keys` order, then their prototypes';
 * `false` when `Object.prototype` itself has an enumerable property (then every record would list it).
 */
function visitValue(
	value: unknown,
	visit: (text: string) => void,
	forIn: boolean,
	schema: boolean,
	depth: number,
): void {
	if (typeof value === "string") {
		visit(value);
		return;
	}
	if (typeof value !== "object" || value === null) return;
	if (depth > MAX_DEPTH) throw tooDeep();
	if (Array.isArray(value)) {
		for (let i = 0; i < value.length; i++) visitValue(value[i], visit, forIn, schema, depth + 1);
		return;
	}
	const record = value as Record<string, unknown>;
	if (forIn) {
		for (const key in record) visitField(record, key, record[key], visit, forIn, schema, depth);
		return;
	}
	const keys = Object.keys(record);
	for (let k = 0; k < keys.length; k++) {
		const key = keys[k] as string;
		visitField(record, key, record[key], visit, forIn, schema, depth);
	}
}

/** A field, read even when skipped, as `mapStrings` reads it: a getter that throws makes the message unreadable to both. */
function visitField(
	record: Record<string, unknown>,
	key: string,
	item: unknown,
	visit: (text: string) => void,
	forIn: boolean,
	schema: boolean,
	depth: number,
): void {
	// Whether the record is an image block is asked only at a `data` field: most records have no `type`.
	const rule = fieldRule(schema, schema && key === "data" && record.type === "image", key);
	if (rule === undefined) return;
	if (rule === Field.Text) {
		visit(key);
		visitValue(item, visit, forIn, false, depth + 1);
	} else visitValue(item, visit, forIn, rule === Field.Schema, depth + 1);
}

/**
 * `value` with every string the model can receive mapped by `map`, copied on write (the same object
 * when nothing changed): the text fields of pi-ai's messages and blocks, and every key and string of
 * free data (tool-call arguments at any depth, prompt sections, tool parameters, fields pi-ai does
 * not name); not metadata, ids, signatures or an image block's `data`. A thinking block whose text
 * changed loses its signature, which signed the text it had. Throws on a value deeper than
 * {@link MAX_DEPTH} (a cycle) or a throwing getter, so that the caller can drop the message.
 *
 * @example
 * mapStrings({ role: "user", content: "key=abc" }, (s) => s.replace("abc", "***")); // { role: "user", content: "key=***" }
 */
export function mapStrings<T>(value: T, map: StringMapper): T {
	return mapValue(value, map, true, 0) as T;
}

function mapValue(value: unknown, map: StringMapper, schema: boolean, depth: number): unknown {
	if (typeof value === "string") return map(value);
	if (typeof value !== "object" || value === null) return value;
	if (depth > MAX_DEPTH) throw tooDeep();
	if (Array.isArray(value)) {
		let copy: unknown[] | undefined;
		for (let i = 0; i < value.length; i++) {
			const item: unknown = value[i];
			const mapped = mapValue(item, map, schema, depth + 1);
			if (mapped === item) continue;
			copy ??= value.slice();
			copy[i] = mapped;
		}
		return copy ?? value;
	}
	if (!isRecord(value)) return value;
	const image = schema && value.type === "image";
	const keys = Object.keys(value);
	// Each field is read once (a getter could answer differently the second time); entries are made
	// only once something changed, so the common case (no secret) allocates one array per record.
	const items = new Array<unknown>(keys.length);
	let entries: [string, unknown][] | undefined;
	for (let k = 0; k < keys.length; k++) {
		const key = keys[k] as string;
		const item = value[key];
		items[k] = item;
		const rule = fieldRule(schema, image, key);
		const mappedKey = rule === Field.Text ? map(key) : key;
		const mapped = rule === undefined ? item : mapValue(item, map, rule === Field.Schema, depth + 1);
		if (entries === undefined && mappedKey === key && mapped === item) continue;
		if (entries === undefined) {
			entries = [];
			for (let j = 0; j < k; j++) entries.push([keys[j] as string, items[j]]);
		}
		entries.push([mappedKey, mapped]);
	}
	if (entries === undefined) return value;
	// fromEntries defines own properties, so a "__proto__" key stays a key.
	const thinking = schema && value.type === "thinking";
	return Object.fromEntries(thinking ? entries.filter(([key]) => key !== "thinkingSignature") : entries);
}
