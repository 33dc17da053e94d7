/**
 * What a conversion passed on by reference, as data both processes can compare: for each output
 * message, the index of the input message it is (`===`), and the index of the input message whose
 * `content` array it carries, or -1. pi returns `user`, `assistant`, `toolResult` and (1.x) `system`
 * messages as the same objects and a `custom` message's array content by reference; a side that
 * copies where the other does not differs here even when the outputs deep-equal.
 *
 * @param {readonly unknown[]} input
 * @param {readonly unknown[]} output
 * @returns {[number, number][]}
 */
export function sharing(input, output) {
	const signature = [];
	for (const message of output) {
		const content = message !== null && typeof message === "object" ? message.content : undefined;
		let contentFrom = -1;
		if (content !== null && typeof content === "object") {
			contentFrom = input.findIndex((m) => m !== null && typeof m === "object" && m.content === content);
		}
		signature.push([input.indexOf(message), contentFrom]);
	}
	return signature;
}

/**
 * Freezes `value` and everything reachable from it. Returns `value`.
 *
 * @template T
 * @param {T} value
 * @returns {T}
 */
export function deepFreeze(value) {
	if (value === null || typeof value !== "object" || Object.isFrozen(value)) return value;
	Object.freeze(value);
	for (const key of Reflect.ownKeys(value)) deepFreeze(value[key]);
	return value;
}
