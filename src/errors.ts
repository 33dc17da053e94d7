/**
 * One error family for everything convert-to-llm reports or throws.
 *
 * Each class has a stable `code`, the structured fields that apply (`role`, `index`, `plugin`) and
 * the original error as `cause`. Messages say what happened, where, and what to do next.
 */

/**
 * Stable machine-readable codes, one per error class.
 *
 * Contract: each value is the `code` of exactly one class and does not change between versions; match
 * on `code` or `instanceof`, never on the message text, which may be reworded.
 *
 * @example
 * registry.hooks.error.tap("metrics", (error) => {
 *   if (error.code === ErrorCode.UNKNOWN_ROLE) metrics.increment("unknown-role");
 * });
 */
export const ErrorCode = Object.freeze({
	UNKNOWN_ROLE: "CONVERT_TO_LLM_UNKNOWN_ROLE",
	CONVERSION_FAILED: "CONVERT_TO_LLM_CONVERSION_FAILED",
	INVALID_MESSAGE: "CONVERT_TO_LLM_INVALID_MESSAGE",
	DUPLICATE_CONVERTER: "CONVERT_TO_LLM_DUPLICATE_CONVERTER",
	INVALID_PLUGIN: "CONVERT_TO_LLM_INVALID_PLUGIN",
	ASYNC_HOOK_IN_SYNC_CONVERT: "CONVERT_TO_LLM_ASYNC_HOOK_IN_SYNC_CONVERT",
	ASYNC_HOOK_TIMEOUT: "CONVERT_TO_LLM_ASYNC_HOOK_TIMEOUT",
	LINT: "CONVERT_TO_LLM_LINT",
	INVALID_SESSION: "CONVERT_TO_LLM_INVALID_SESSION",
	PREFIX_BREAK: "CONVERT_TO_LLM_PREFIX_BREAK",
} as const);

/** One of the {@link ErrorCode} values. */
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/**
 * Where a problem happened: the last argument of every error constructor.
 *
 * Contract: every field is optional (a misuse of the API has no message index); each is copied to the
 * error's field of the same name, and `cause` to the standard `Error.cause` (left unset when `undefined`).
 *
 * @example
 * new ConversionError('Converter "todo-ext" failed on message 3 …', { role: "custom", customType: "todo", index: 3, plugin: "todo-ext", cause });
 */
export interface ErrorDetails {
	/** The role of the message involved (for `custom`, see also `customType`). */
	role?: string;
	/** The `customType` of the custom message involved. */
	customType?: string;
	/** The index of the message in the history given to `convert` (after `beforeConvert`). */
	index?: number;
	/** The name of the plugin (converter or tap) involved. */
	plugin?: string;
	/** The original error. */
	cause?: unknown;
}

/**
 * Marks an error of this family (a non-enumerable own property). Registered (`Symbol.for`), so that the copies of
 * these classes in the ESM and the CommonJS builds (two modules, two sets of classes) know each other.
 */
const ERROR_BRAND = Symbol.for("convert-to-llm.error");

/**
 * An error of this family from another copy of the classes (the other build), for one of our own
 * classes (which has a static `code` of its own; the base's, `undefined`, matches every code).
 */
function isFamilyError(cls: object, value: unknown): boolean {
	if (typeof value !== "object" || value === null || !Object.hasOwn(cls, "code")) return false;
	if ((value as { [ERROR_BRAND]?: unknown })[ERROR_BRAND] !== true) return false;
	const code = (cls as { code?: unknown }).code;
	return code === undefined || (value as { code?: unknown }).code === code;
}

/**
 * Base class of every error convert-to-llm throws or reports on `hooks.error`.
 *
 * Contract: `instanceof ConvertToLlmError` holds for all of them, from any entry point, in ESM and
 * CJS: an error thrown through the CommonJS build is `instanceof` the ESM classes and the other way
 * round (the class's `Symbol.hasInstance` accepts an error of the family, branded with a registered
 * symbol, whose `code` is the class's static `code`); `code` is stable across versions; `role`,
 * `index` and `plugin` are set where they apply. A subclass of your own is matched by the prototype
 * chain only.
 *
 * @example
 * registry.hooks.error.tap("log", (error) => {
 *   console.warn(`[${error.code}] ${error.message}`);
 * });
 */
export class ConvertToLlmError extends Error {
	/** The `code` of this class's errors; `undefined` here, on the base class, which every code matches. */
	static get code(): ErrorCode | undefined {
		return undefined;
	}

	static override [Symbol.hasInstance](value: unknown): boolean {
		// biome-ignore lint/complexity/noThisInStatic: `this` is the class `instanceof` asks about, a subclass as often as not.
		return Function.prototype[Symbol.hasInstance].call(this, value) || isFamilyError(this, value);
	}

	readonly code: ErrorCode;
	readonly role: string | undefined;
	readonly customType: string | undefined;
	readonly index: number | undefined;
	readonly plugin: string | undefined;

	constructor(code: ErrorCode, message: string, details: ErrorDetails = {}) {
		super(message, details.cause === undefined ? undefined : { cause: details.cause });
		this.name = new.target.name;
		// Static getters and a constructor statement rather than class fields: the CommonJS build's
		// transform turns static fields into anonymous classes, which would lose `new.target.name`.
		Object.defineProperty(this, ERROR_BRAND, { value: true });
		this.code = code;
		this.role = details.role;
		this.customType = details.customType;
		this.index = details.index;
		this.plugin = details.plugin;
	}
}

/**
 * A message whose role no registered converter handles (or every converter for it passed with
 * `undefined`).
 *
 * Contract: the message is dropped; lenient registries report this on `hooks.error`, strict ones
 * throw it (`convertAsync` rejects with it), `explain` collects it. Sets `role`, `index` and, for a
 * `custom` message, `customType`; never `plugin`. Not raised for a message whose converters failed:
 * their `ConversionError` stands for it.
 *
 * @example
 * registry.hooks.error.tap("log", (error) => {
 *   if (error instanceof UnknownRoleError) console.warn(`no converter for ${error.role} (message ${error.index})`);
 * });
 */
export class UnknownRoleError extends ConvertToLlmError {
	static override get code(): ErrorCode {
		return ErrorCode.UNKNOWN_ROLE;
	}
	constructor(message: string, details: ErrorDetails = {}) {
		super(ErrorCode.UNKNOWN_ROLE, message, details);
	}
}

/**
 * A converter or a hook tap threw, rejected, or returned something that is not a pi-ai `Message` (for
 * a waterfall tap: not an array of them); `isolate` could not copy a message; or the final check of
 * the output found an entry that is not a pi-ai `Message` (a tap changed the array in place).
 *
 * Contract: reported once per input message, whatever the number of converters that failed on it.
 * Lenient registries report it on `hooks.error` and go on without the culprit's result: the next
 * converter for the role decides (the message is dropped if none does), a tap's change is skipped,
 * an uncopyable message or a rejected output entry is dropped. Strict ones throw it (`convertAsync` rejects
 * with it). A converter's failure sets `role`, `index`, `plugin` and, for `custom`, `customType`; a
 * tap's sets `plugin`; `cause` is what was thrown, when something was. Our own errors thrown by a
 * converter or tap are passed on as they are, never wrapped in this.
 *
 * @example
 * registry.hooks.error.tap("log", (error) => {
 *   if (error instanceof ConversionError) console.warn(`plugin ${error.plugin} failed`, error.cause);
 * });
 */
export class ConversionError extends ConvertToLlmError {
	static override get code(): ErrorCode {
		return ErrorCode.CONVERSION_FAILED;
	}
	constructor(message: string, details: ErrorDetails = {}) {
		super(ErrorCode.CONVERSION_FAILED, message, details);
	}
}

/**
 * An entry of the history that is not a message (`null`, a number, no string `role`), a history
 * that is not an array, or a factory given an invalid timestamp.
 *
 * Contract: an entry is dropped, with `index` set; a history that is not an array converts to `[]`,
 * with no field set. Both are reported on `hooks.error` by lenient registries, thrown by strict ones,
 * collected by `explain`. The factories (`createBranchSummaryMessage`, …) always throw it, with
 * `role` set.
 *
 * @example
 * registry.hooks.error.tap("log", (error) => {
 *   if (error instanceof InvalidMessageError) console.warn(`history entry ${error.index} is not a message`);
 * });
 */
export class InvalidMessageError extends ConvertToLlmError {
	static override get code(): ErrorCode {
		return ErrorCode.INVALID_MESSAGE;
	}
	constructor(message: string, details: ErrorDetails = {}) {
		super(ErrorCode.INVALID_MESSAGE, message, details);
	}
}

/**
 * A second converter registered for the same role (or `customType`) without `override: true`.
 *
 * Contract: always thrown, whatever `strict` says, by `register` and so by the `use()` that called
 * it; that converter is not registered. Sets
 * `plugin` (the newcomer), `role` and, for a `customType` converter, `customType`.
 *
 * @example
 * try {
 *   registry.use(mine);
 * } catch (error) {
 *   if (error instanceof DuplicateConverterError) console.error(`${error.plugin}: ${error.message}`);
 * }
 */
export class DuplicateConverterError extends ConvertToLlmError {
	static override get code(): ErrorCode {
		return ErrorCode.DUPLICATE_CONVERTER;
	}
	constructor(message: string, details: ErrorDetails = {}) {
		super(ErrorCode.DUPLICATE_CONVERTER, message, details);
	}
}

/**
 * A plugin without a name or an `apply` function, or a converter registered without a name.
 *
 * Contract: always thrown, whatever `strict` says: by `use()` (not a plugin object, no name, no
 * `apply`, a name another plugin object of the registry already has, or an `apply` that threw an
 * error not ours, as `cause`), by `exclude()` (no `options.name`) and by `register()` (no
 * `options.name`, a role that is not a string, a converter that is not a function, a `customType`
 * that is not a string or not on role `custom`). Sets `plugin` when the name is known, `role` where
 * one is involved.
 *
 * @example
 * try {
 *   registry.use(mine);
 * } catch (error) {
 *   if (error instanceof InvalidPluginError) console.error(`${error.plugin ?? "a nameless plugin"}: ${error.message}`);
 * }
 */
export class InvalidPluginError extends ConvertToLlmError {
	static override get code(): ErrorCode {
		return ErrorCode.INVALID_PLUGIN;
	}
	constructor(message: string, details: ErrorDetails = {}) {
		super(ErrorCode.INVALID_PLUGIN, message, details);
	}
}

/**
 * The sync `convert` was called on a registry with `afterConvertAsync` taps. Always thrown: skipping
 * an async redactor silently would leak what it was meant to hide. Use `convertAsync`.
 *
 * Contract: thrown by `convert` and `explain`, whatever `strict` says, before anything runs; `plugin`
 * is the first `afterConvertAsync` tap. `convertAsync` and `explainAsync` never throw it.
 *
 * @example
 * try {
 *   registry.convert(history);
 * } catch (error) {
 *   if (error instanceof AsyncHookInSyncConvertError) return registry.convertAsync(history);
 * }
 */
export class AsyncHookInSyncConvertError extends ConvertToLlmError {
	static override get code(): ErrorCode {
		return ErrorCode.ASYNC_HOOK_IN_SYNC_CONVERT;
	}
	constructor(message: string, details: ErrorDetails = {}) {
		super(ErrorCode.ASYNC_HOOK_IN_SYNC_CONVERT, message, details);
	}
}

/**
 * An `afterConvertAsync` tap did not settle within the registry's `asyncTimeoutMs`.
 *
 * Contract: the conversion fails closed, since the stuck tap may be the one that redacts: a lenient
 * `convertAsync` reports it on `hooks.error` and resolves with `[]`, a strict one rejects with it,
 * `explainAsync` collects it (its `output` is `[]`); later taps do not run. Sets `plugin` (the tap).
 *
 * @example
 * registry.hooks.error.tap("log", (error) => {
 *   if (error instanceof AsyncHookTimeoutError) log.error(`${error.plugin} hung; nothing was sent`);
 * });
 */
export class AsyncHookTimeoutError extends ConvertToLlmError {
	static override get code(): ErrorCode {
		return ErrorCode.ASYNC_HOOK_TIMEOUT;
	}
	constructor(message: string, details: ErrorDetails = {}) {
		super(ErrorCode.ASYNC_HOOK_TIMEOUT, message, details);
	}
}

/**
 * What the lint checks:
 * - `empty-content`: a `user` or `assistant` message with no content (an empty string or array, or
 *   only blank text blocks, blank meaning whitespace of at most 256 characters); providers reject it.
 *   A `toolResult` may be empty: it still answers its call; so may a `system` message (pi's loop
 *   writes `content: ""` ones that only declare tools).
 * - `orphan-tool-call`: a tool call with no `toolResult` before the next `user` or `assistant` message;
 *   pi-ai then sends a synthetic "No result provided" error in its place. A `system` message between
 *   a call and its result is neutral: pi-ai holds it back until the call is answered.
 * - `orphan-tool-result`: a `toolResult` that answers no tool call of the assistant message before it;
 *   providers reject the request.
 * - `image-while-blocked`: an image in a `user` or `toolResult` message while images are blocked;
 *   every block that is not a `text` block counts, since pi-ai's providers send it as an image.
 * - `invalid-timestamp`: a `timestamp` that is not a finite number.
 * - `invalid-system-message` (pi 1.x): a `system` message pi-ai cannot read: content that is not a
 *   string or an array of text blocks, `sections` that are not an object of strings and `null`s,
 *   `toolsAdded`/`toolsRemoved` that are not arrays of tools with a string `name`. pi-ai throws on
 *   these when it builds the request (`content.filter`, `for … of`), or leaves the part out of the
 *   prompt without a word (a non-text block, a section that is not a string).
 * - `unreadable-message`: an output entry whose fields cannot be read (a getter or a proxy trap
 *   throws); pi-ai would throw on it. `repair` drops it, and reports it all the same.
 *
 * Assistant messages that stopped with `error` or `aborted` are skipped, as pi-ai skips them.
 *
 * Contract: each {@link LintError} names exactly one rule in `rule`; a message that breaks several
 * gives one error per rule (and one `orphan-tool-call` per orphaned call). An output entry that is not
 * a message object is an `empty-content` finding. Declared here, with the error that carries it, so
 * that the ground floor imports nothing above it.
 *
 * @example
 * registry.hooks.error.tap("log", (error) => {
 *   if (error instanceof LintError && error.rule === "orphan-tool-result") log.error(error.message);
 * });
 */
export type LintRule =
	| "empty-content"
	| "orphan-tool-call"
	| "orphan-tool-result"
	| "image-while-blocked"
	| "invalid-timestamp"
	| "invalid-system-message"
	| "unreadable-message";

/** Where a lint finding is and which rule it breaks. */
export interface LintErrorDetails extends ErrorDetails {
	rule: LintRule;
	/** Index of the message in the output the lint checked (after `repair`). */
	outputIndex: number;
}

/**
 * A structural problem the `lint()` plugin found in the converted output.
 *
 * Contract: `rule` names the check; `outputIndex` is the message's place in the output; `index` and
 * `plugin` are the input message it came from and the plugin whose converter produced it (from
 * `ctx.sourceOf`; `undefined` for a message a later tap made without `inheritSource`). Reported on
 * `hooks.error`, thrown by strict registries.
 *
 * @example
 * registry.hooks.error.tap("log", (error) => {
 *   if (error instanceof LintError) console.warn(error.rule, error.index, error.plugin);
 * });
 */
export class LintError extends ConvertToLlmError {
	static override get code(): ErrorCode {
		return ErrorCode.LINT;
	}
	readonly rule: LintRule;
	readonly outputIndex: number;
	constructor(message: string, details: LintErrorDetails) {
		super(ErrorCode.LINT, message, details);
		this.rule = details.rule;
		this.outputIndex = details.outputIndex;
	}
}

/** Where in a session file a problem is. */
export interface SessionErrorDetails extends ErrorDetails {
	/** The file, when the session was read from one. */
	file?: string;
	/** The 1-based line of the file. */
	line?: number;
	/** The id of the entry involved. */
	entryId?: string;
}

/**
 * A session file that cannot be read (no header, an unknown `leafId`), or a problem with one of its
 * lines (not JSON, a broken parent link, an invalid date).
 *
 * Contract: thrown when nothing sensible can be read, or in strict mode; otherwise listed in
 * `problems` with its `line` and/or `entryId`, and the line is skipped as pi skips it. The message
 * says where and what to do.
 *
 * @example
 * for (const problem of readSession(text).problems) console.warn(`line ${problem.line}: ${problem.message}`);
 */
export class InvalidSessionError extends ConvertToLlmError {
	static override get code(): ErrorCode {
		return ErrorCode.INVALID_SESSION;
	}
	readonly file: string | undefined;
	readonly line: number | undefined;
	readonly entryId: string | undefined;

	constructor(message: string, details: SessionErrorDetails = {}) {
		super(ErrorCode.INVALID_SESSION, message, details);
		this.file = details.file;
		this.line = details.line;
		this.entryId = details.entryId;
	}
}

/**
 * A notice, not a failure: this conversion does not repeat the earlier one's output as its prefix
 * (`run(history, { previous })`), so the provider bills everything from `breakAt` on as new input
 * again (a cache write, about 1.25× the input price, instead of a cache read at about 0.1×).
 *
 * Contract: only in `Conversion.problems` and `Explanation.errors`, and only when a `previous` was
 * given and its prefix broke; never thrown, strict or not, and never the reason a conversion fails.
 * `prefix` is the same object as the result's `prefix`; `plugin` is its `cause` when a plugin caused
 * the break (unset for `"history"`). Hosts that withhold a request on problems skip this code.
 *
 * @example
 * for (const problem of conversion.problems)
 *   if (problem instanceof PrefixBreakNotice) log.info(problem.message);
 *   else log.warn(problem.message);
 */
export class PrefixBreakNotice extends ConvertToLlmError {
	static override get code(): ErrorCode {
		return ErrorCode.PREFIX_BREAK;
	}
	/** Where the prefix broke, and why. */
	readonly prefix: { readonly kept: number; readonly breakAt: number | null; readonly cause: string | null };
	constructor(
		message: string,
		prefix: { readonly kept: number; readonly breakAt: number | null; readonly cause: string | null },
		details: ErrorDetails = {},
	) {
		super(ErrorCode.PREFIX_BREAK, message, details);
		this.prefix = prefix;
	}
}
