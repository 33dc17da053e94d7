import { isRecord } from "../values.js";

/**
 * Fields that hold no text for the model: message metadata, ids that pair calls with results, and
 * provider signatures (opaque tokens a provider checks; changing them breaks the request).
 */
const NOT_TEXT = new Set([
	"role",
	"type",
	"timestamp",
	"api",
	"provider",
	"model",
	"responseModel",
	"responseId",
	"providerThinkingLevel",
	"thinkingLevel",
	"stopReason",
	"usage",
	"diagnostics",
	"toolCallId",
	"id",
	"isError",
	"mimeType",
	"thinkingSignature",
	"textSignature",
	"thoughtSignature",
]);

/** How deep a message is walked; deeper (or cyclic) values make the message unreadable. */
const MAX_DEPTH = 100;

/** Maps one string; returns the same string when nothing changes. */
export type StringMapper = (text: string) => string;

/**
 * `value` with every string the model can receive mapped by `map`, copied on write (the same object
 * when nothing changed): string values and record keys at any depth, except the fields in
 * {@link NOT_TEXT} and an image block's `data`. A thinking block whose text changed loses its
 * signature, which signed the text it had. Throws on a value deeper than {@link MAX_DEPTH} (a cycle)
 * or a throwing getter, so that the caller can drop the message.
 *
 * @example
 * mapStrings({ role: "user", content: "key=abc" }, (s) => s.replace("abc", "***")); // { role: "user", content: "key=***" }
 */
export function mapStrings<T>(value: T, map: StringMapper): T {
	return walk(value, map, 0) as T;
}

function walk(value: unknown, map: StringMapper, depth: number): unknown {
	if (typeof value === "string") return map(value);
	if (typeof value !== "object" || value === null) return value;
	if (depth > MAX_DEPTH) throw new Error(`a value nested deeper than ${MAX_DEPTH} levels (a cycle?)`);
	if (Array.isArray(value)) {
		let copy: unknown[] | undefined;
		for (let i = 0; i < value.length; i++) {
			const item: unknown = value[i];
			const mapped = walk(item, map, depth + 1);
			if (mapped === item) continue;
			copy ??= value.slice();
			copy[i] = mapped;
		}
		return copy ?? value;
	}
	if (!isRecord(value)) return value;
	const image = value.type === "image";
	const keys = Object.keys(value);
	// Each field is read once (a getter could answer differently the second time); entries are made
	// only once something changed, so the common case (no secret) allocates one array per record.
	const items = new Array<unknown>(keys.length);
	let entries: [string, unknown][] | undefined;
	for (let k = 0; k < keys.length; k++) {
		const key = keys[k] as string;
		const item = value[key];
		items[k] = item;
		const text = !(NOT_TEXT.has(key) || (image && key === "data"));
		const mappedKey = text ? map(key) : key;
		const mapped = text ? walk(item, map, depth + 1) : item;
		if (entries === undefined && mappedKey === key && mapped === item) continue;
		if (entries === undefined) {
			entries = [];
			for (let j = 0; j < k; j++) entries.push([keys[j] as string, items[j]]);
		}
		entries.push([mappedKey, mapped]);
	}
	if (entries === undefined) return value;
	// fromEntries defines own properties, so a "__proto__" key stays a key.
	const thinking = value.type === "thinking";
	return Object.fromEntries(thinking ? entries.filter(([key]) => key !== "thinkingSignature") : entries);
}
