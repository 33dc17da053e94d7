/**
 * Value inspection, written once: how a value is described in an error, whether it is a record or an
 * image, how a live setting is read, what a caught value says, and one JSONL line parsed. Used by the
 * registry, the hooks, the session reader and the CLI alike.
 *
 * Ground floor: imports nothing. Every function here is total: it never throws, whatever it is given
 * (revoked proxies, throwing getters and `getPrototypeOf` traps, `Object.create(null)`, symbols), so
 * that a report about a hostile value cannot itself become a crash. No regular expression runs here:
 * this is the report path, which may run at the stack limit (V8 aborts when it cannot compile one there).
 */

/** Longest string shown by {@link quote} and {@link describeValue} before it is cut with `…`. */
const SHOWN_CHARS = 200;

/** Longest text {@link errorText} returns: a cause's message can be megabytes (a serialized body). */
const ERROR_TEXT_CHARS = 1000;

/** `text` cut to `max` characters with a final `…`. */
function clip(text: string, max: number): string {
	return text.length > max ? `${text.slice(0, max)}…` : text;
}

/**
 * Whether `value` is a non-null object (arrays included): a value whose fields can be asked for.
 *
 * Contract: `typeof value === "object" && value !== null`; never throws, never reads a field.
 *
 * @example
 * isRecord({ role: "user" }); // true
 * isRecord([]);               // true
 * isRecord("user");           // false
 */
export function isRecord(value: unknown): value is Record<string, unknown> {
	return value !== null && typeof value === "object";
}

/**
 * Whether `value` is an object that is not an array, as a JSON object is.
 *
 * Contract: never throws; a revoked proxy (on which `Array.isArray` throws) is not one.
 *
 * @example
 * isJsonObject({ type: "session" }); // true
 * isJsonObject([{}]);                // false
 */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
	if (!isRecord(value)) return false;
	try {
		return !Array.isArray(value);
	} catch {
		return false;
	}
}

/**
 * A short description of any value for an error message: `null`, `undefined`, `number 5`,
 * `a string ("…")`, `an array of 3`, `a message with role "user"`, `an object without a string role`.
 *
 * Contract: one line of at most about 200 characters of the value's own text; never throws (a value
 * whose role cannot be read is `an object whose role cannot be read`); functions are `a function`,
 * never their source.
 *
 * @example
 * describeValue(42);                 // "number 42"
 * describeValue({ role: "ticket" }); // 'a message with role "ticket"'
 */
export function describeValue(value: unknown): string {
	try {
		if (value === null) return "null";
		if (value === undefined) return "undefined";
		if (typeof value === "string") return `a string (${JSON.stringify(clip(value, 40))})`;
		if (typeof value === "function") return "a function";
		if (typeof value !== "object") return `${typeof value} ${clip(String(value), SHOWN_CHARS)}`;
		if (Array.isArray(value)) return `an array of ${value.length}`;
	} catch {
		return "a value that cannot be described";
	}
	let role: unknown;
	try {
		role = (value as { role?: unknown }).role;
	} catch {
		return "an object whose role cannot be read";
	}
	return typeof role === "string"
		? `a message with role ${JSON.stringify(clip(role, SHOWN_CHARS))}`
		: "an object without a string role";
}

/**
 * The text of any value where a view or a message prints it: a string as it is, anything else as
 * `String()` gives it (`5`, `true`, `[object Object]`), and where `String()` throws (an object whose
 * `valueOf` and `toString` are not functions, `Object.create(null)`, a revoked proxy, a throwing
 * getter or `toString`, a symbol's description), `Object.prototype.toString`'s tag, or
 * `[a value that cannot be shown]`.
 *
 * Contract: never throws; returns a string for every value, so that a field the history filled with
 * `{"valueOf":0,"toString":0}` shows as `[object Object]` instead of ending the view. The one text
 * of a value used by the views, `--explain` and every error message that quotes a value.
 *
 * @example
 * textOf({ valueOf: 0, toString: 0 }); // "[object Object]"
 * textOf(42);                          // "42"
 */
export function textOf(value: unknown): string {
	if (typeof value === "string") return value;
	try {
		return String(value);
	} catch {
		try {
			return Object.prototype.toString.call(value);
		} catch {
			return "[a value that cannot be shown]";
		}
	}
}

/**
 * A string in double quotes (cut to about 200 characters), anything else {@link describeValue described}.
 *
 * Contract: never throws; safe for bigints, symbols, cycles and proxies.
 *
 * @example
 * quote("call_1"); // '"call_1"'
 * quote(7);        // "number 7"
 */
export function quote(value: unknown): string {
	return typeof value === "string" ? JSON.stringify(clip(value, SHOWN_CHARS)) : describeValue(value);
}

/**
 * Whether `value` is an instance of `type`, answering `false` where asking would throw (a proxy whose
 * `getPrototypeOf` trap throws, a `Symbol.hasInstance` that throws).
 *
 * Contract: never throws. Use it in every `catch` that classifies what it caught.
 *
 * @example
 * catch (cause) { if (isInstance(cause, ConvertToLlmError)) report(cause); else report(wrap(cause)); }
 */
export function isInstance<T>(value: unknown, type: abstract new (...args: never[]) => T): value is T {
	try {
		return value instanceof type;
	} catch {
		return false;
	}
}

/**
 * The text of a caught value, for use inside our own error messages: an `Error`'s message, any other
 * value's string form, or its {@link describeValue description} when it has none.
 *
 * Contract: never throws (whatever was thrown: `null`, `Object.create(null)`, a proxy whose every
 * trap throws); no regular expression; final periods dropped (our messages go on with ". …"); at most
 * 1,000 characters, cut with `…`.
 *
 * @example
 * errorText(new TypeError("x is not a function.")); // "x is not a function"
 */
export function errorText(cause: unknown): string {
	let text: string;
	try {
		text = cause instanceof Error ? textOf(cause.message) : String(cause);
	} catch {
		text = describeValue(cause);
	}
	let end = text.length;
	while (end > 0 && text.charCodeAt(end - 1) === 46) end--;
	return clip(end === text.length ? text : text.slice(0, end), ERROR_TEXT_CHARS);
}

/**
 * Whether `value` has the shape `registry.use()` takes: an object with a `name` that is a string
 * with more than white space in it, and an `apply` function.
 *
 * Contract: never throws (a throwing getter, a revoked proxy or a `getPrototypeOf` trap make it
 * `false`); reads `name` and `apply` once each. The one test of a plugin's shape outside the registry
 * (the CLI's `--plugin` modules, the pi extension's offers), so that they accept what `use()` accepts.
 *
 * @example
 * isPluginShape({ name: "my-ext", apply(registry) {} }); // true
 * isPluginShape({ name: " ", apply() {} });              // false
 */
export function isPluginShape(value: unknown): value is { readonly name: string; apply(registry: never): unknown } {
	if (!isRecord(value)) return false;
	try {
		const name: unknown = value.name;
		return typeof name === "string" && name.trim() !== "" && typeof value.apply === "function";
	} catch {
		return false;
	}
}

/**
 * pi's image test: a content block whose `type` is `"image"` (pi's `blockImages` and pi-ai's types).
 *
 * Contract: `false` for anything that is not an object; reads `type` once. A getter that throws
 * throws here: callers that must fail closed catch it per message.
 *
 * @example
 * isImageBlock({ type: "image", data, mimeType }); // true
 * isImageBlock({ type: "Image", data, mimeType }); // false (but see isNonTextBlock)
 */
export function isImageBlock(block: unknown): boolean {
	return isRecord(block) && block.type === "image";
}

/**
 * The strict image test: every content entry that is not a text block. pi-ai's Anthropic, OpenAI and
 * Google providers send each non-text block of a `user` or `toolResult` message as an image, so
 * `{ type: "Image", … }`, a bare `{ mimeType, data }`, `null` or a string all count.
 *
 * Contract: `true` unless `block` is an object whose `type` is `"text"`; reads `type` once. A getter
 * that throws throws here: callers that must fail closed catch it per message.
 *
 * @example
 * isNonTextBlock({ mimeType: "image/png", data }); // true
 * isNonTextBlock({ type: "text", text: "hi" });    // false
 */
export function isNonTextBlock(block: unknown): boolean {
	return !(isRecord(block) && block.type === "text");
}

/**
 * A setting read once (a boolean) or on every call (a function), such as pi's
 * `settingsManager.getBlockImages`.
 *
 * Contract: read by {@link readSetting} only, so every option that takes one means the same by it.
 *
 * @example
 * const blocked: LiveSetting = () => settings.blockImages;
 */
export type LiveSetting = boolean | (() => boolean);

/**
 * The current value of a {@link LiveSetting}: a function is called, and any value is read by its
 * truthiness (`Boolean()`), so `1` means on for every option that takes the same setting.
 *
 * Contract: a function that throws gives `true` (the settings read here guard something, such as
 * whether images are blocked, so they fail closed) after `onThrow(cause)` is called with what it
 * threw; `onThrow` may throw itself (a strict registry's report) and that is passed on.
 *
 * @example
 * if (readSetting(enabled, (cause) => ctx.report(settingFailed(cause)))) blockTheImages();
 */
export function readSetting(setting: unknown, onThrow: (cause: unknown) => void): boolean {
	if (typeof setting !== "function") return Boolean(setting);
	let value: unknown;
	try {
		value = setting();
	} catch (cause) {
		onThrow(cause);
		return true;
	}
	return Boolean(value);
}

/**
 * `pending`, or a rejection with `timedOut()` once `ms` have passed, whichever comes first; the timer
 * is cleared when `pending` settles. `unref`: the timer alone does not keep the process alive (the
 * CLI, which must exit when its work is done); a library's deadline keeps it (it must fire).
 */
export function settleWithin<T>(
	pending: Promise<T>,
	ms: number,
	timedOut: () => unknown,
	options: { unref?: boolean } = {},
): Promise<T> {
	return new Promise<T>((resolve, reject) => {
		const timer = setTimeout(() => reject(timedOut()), ms);
		if (options.unref === true) timer.unref?.();
		pending.then(
			(value) => {
				clearTimeout(timer);
				resolve(value);
			},
			(error: unknown) => {
				clearTimeout(timer);
				reject(error);
			},
		);
	});
}

/** What {@link parseJsonLine} returns for text that is not JSON (every JSON value, `null` included, is a value). */
export const NOT_JSON: unique symbol = Symbol("not JSON");

/** Characters a JSON text can start with (after JSON whitespace); any other start is not JSON. */
const JSON_START = new Set('{["-0123456789tfn \t\r\n');

/**
 * `JSON.parse(text)`, or {@link NOT_JSON} when it throws: one line of a JSONL file, as pi reads each
 * line of a session. Text that cannot start a JSON value is refused without calling `JSON.parse`: a
 * file of a million junk lines then costs no million `SyntaxError`s (each with a stack trace).
 */
export function parseJsonLine(text: string): unknown {
	if (!JSON_START.has(text.charAt(0))) return NOT_JSON;
	try {
		return JSON.parse(text);
	} catch {
		return NOT_JSON;
	}
}
