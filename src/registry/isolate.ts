import type { Message } from "@mariozechner/pi-ai";

/**
 * A copy of a converted message that shares no object with it: the message, its content array, each
 * content block and every nested object or array (tool call arguments, usage, details). Strings are
 * immutable and are shared, so large outputs and image data cost nothing to "copy".
 */
export function isolateMessage(message: Message): Message {
	return copy(message, 0) as Message;
}

// Messages are JSON-like data; a structure deeper than this is almost certainly cyclic.
const MAX_DEPTH = 256;

function copy(value: unknown, depth: number): unknown {
	if (value === null || typeof value !== "object") return value;
	if (depth > MAX_DEPTH) return structuredClone(value);
	if (Array.isArray(value)) {
		const result: unknown[] = new Array(value.length);
		for (let i = 0; i < value.length; i++) result[i] = copy(value[i], depth + 1);
		return result;
	}
	const prototype = Object.getPrototypeOf(value);
	// Dates, maps, typed arrays and class instances: structuredClone knows how to copy them.
	if (prototype !== Object.prototype && prototype !== null) return structuredClone(value);
	const result: Record<string, unknown> = {};
	for (const key of Object.keys(value)) {
		const item = copy((value as Record<string, unknown>)[key], depth + 1);
		// An own "__proto__" key (possible in parsed JSON) must stay a key, not become the prototype.
		if (key === "__proto__")
			Object.defineProperty(result, key, { value: item, enumerable: true, writable: true, configurable: true });
		else result[key] = item;
	}
	return result;
}
