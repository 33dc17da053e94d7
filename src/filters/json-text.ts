/**
 * A value's JSON text, as `JSON.stringify` writes it (pi-ai's providers send tool-call arguments
 * so: `arguments: JSON.stringify(toolCall.arguments)`, or inside the request body), with every key
 * and string mapped back to the value's own strings.
 */
import { type MappedText, MappedTextBuilder } from "./mapped-text.js";

/** How deep a value is written; a deeper one (a cycle) throws, as `JSON.stringify` does on a cycle. */
const MAX_DEPTH = 100;

/** What `JSON.stringify` escapes in a string: `"`, `\`, C0 controls, lone surrogates. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the C0 controls are what JSON escapes.
const ESCAPED = /["\\\u0000-\u001f]|\p{Cs}/gu;
const SHORT: Readonly<Record<string, string>> = Object.freeze({
	'"': '\\"',
	"\\": "\\\\",
	"\b": "\\b",
	"\f": "\\f",
	"\n": "\\n",
	"\r": "\\r",
	"\t": "\\t",
});

/**
 * `value`'s JSON text (the same characters as `JSON.stringify(value)`), each key and string of it
 * mapped back to the string it was written from; `undefined` where `JSON.stringify` gives
 * `undefined`. Throws where `JSON.stringify` throws (a `BigInt`), and on a value nested deeper than
 * 100 levels (a cycle).
 *
 * @example
 * jsonText({ env: { AWS_SECRET_ACCESS_KEY: "wJal…" } })?.text; // '{"env":{"AWS_SECRET_ACCESS_KEY":"wJal…"}}'
 */
export function jsonText(value: unknown): MappedText | undefined {
	const builder = new MappedTextBuilder();
	const prepared = prepare(value, "");
	if (!written(prepared)) return undefined;
	write(builder, prepared, 0);
	return builder.build();
}

/** `value` as JSON sees it: after its `toJSON(key)`, boxed primitives unboxed. */
function prepare(value: unknown, key: string): unknown {
	if (typeof value === "object" && value !== null) {
		const toJSON = (value as { toJSON?: unknown }).toJSON;
		if (typeof toJSON === "function") value = toJSON.call(value, key);
	}
	if (value instanceof Number) return Number(value);
	if (value instanceof String) return String(value);
	if (value instanceof Boolean) return value.valueOf();
	return value;
}

/** Whether JSON writes a (prepared) value: not `undefined`, a function or a symbol. */
function written(value: unknown): boolean {
	return value !== undefined && typeof value !== "function" && typeof value !== "symbol";
}

/** Writes a prepared value that JSON writes. */
function write(out: MappedTextBuilder, value: unknown, depth: number): void {
	if (depth > MAX_DEPTH) throw new Error(`a value nested deeper than ${MAX_DEPTH} levels (a cycle?)`);
	switch (typeof value) {
		case "string":
			writeString(out, value);
			return;
		case "number":
			out.literal(Number.isFinite(value) ? String(value) : "null");
			return;
		case "boolean":
			out.literal(value ? "true" : "false");
			return;
		case "bigint":
			throw new TypeError("Do not know how to serialize a BigInt");
	}
	if (value === null) {
		out.literal("null");
		return;
	}
	if (Array.isArray(value)) {
		out.literal("[");
		for (let i = 0; i < value.length; i++) {
			if (i > 0) out.literal(",");
			const item = prepare(value[i], String(i));
			if (written(item)) write(out, item, depth + 1);
			else out.literal("null");
		}
		out.literal("]");
		return;
	}
	out.literal("{");
	let first = true;
	const record = value as Record<string, unknown>;
	for (const name of Object.keys(record)) {
		const item = prepare(record[name], name);
		if (!written(item)) continue;
		if (!first) out.literal(",");
		first = false;
		writeString(out, name);
		out.literal(":");
		write(out, item, depth + 1);
	}
	out.literal("}");
}

function writeString(out: MappedTextBuilder, text: string): void {
	out.literal('"');
	let cursor = 0;
	for (const match of text.matchAll(ESCAPED)) {
		const index = match.index;
		if (index > cursor) out.source(text, cursor, index);
		const char = match[0];
		out.escaped(SHORT[char] ?? `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`, text, index);
		cursor = index + 1;
	}
	if (cursor < text.length) out.source(text, cursor, text.length);
	out.literal('"');
}
