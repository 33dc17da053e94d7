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

function copy(value: object, depth: number): object {
	if (depth > MAX_DEPTH) return structuredClone(value);
	if (Array.isArray(value)) {
		const result = value.slice();
		for (let i = 0; i < result.length; i++) {
			const item: unknown = result[i];
			if (item !== null && typeof item === "object") result[i] = copy(item, depth + 1);
		}
		return result;
	}
	const prototype = Object.getPrototypeOf(value);
	// Dates, maps, typed arrays and class instances: structuredClone knows how to copy them.
	if (prototype !== Object.prototype && prototype !== null) return structuredClone(value);
	// Spread defines own properties, so an own "__proto__" key (possible in parsed JSON) stays a key;
	// assigning to it below then updates that own property, never the prototype.
	const result: Record<string, unknown> = { ...value };
	for (const key in result) {
		const item = result[key];
		if (item !== null && typeof item === "object") result[key] = copy(item, depth + 1);
	}
	return result;
}
