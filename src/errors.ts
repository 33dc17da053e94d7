/**
 * One error family for everything convert-to-llm reports or throws.
 *
 * Each class has a stable `code`, the structured fields that apply (`role`, `index`, `plugin`) and
 * the original error as `cause`. Messages say what happened, where, and what to do next.
 */

/** Stable machine-readable codes, one per error class. */
export const ErrorCode = Object.freeze({
	UNKNOWN_ROLE: "CONVERT_TO_LLM_UNKNOWN_ROLE",
	CONVERSION_FAILED: "CONVERT_TO_LLM_CONVERSION_FAILED",
	INVALID_MESSAGE: "CONVERT_TO_LLM_INVALID_MESSAGE",
	DUPLICATE_CONVERTER: "CONVERT_TO_LLM_DUPLICATE_CONVERTER",
	INVALID_PLUGIN: "CONVERT_TO_LLM_INVALID_PLUGIN",
	ASYNC_HOOK_IN_SYNC_CONVERT: "CONVERT_TO_LLM_ASYNC_HOOK_IN_SYNC_CONVERT",
} as const);

/** One of the {@link ErrorCode} values. */
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/** Where a problem happened. Every field is optional: a misuse of the API has no message index. */
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
 * Base class of every error convert-to-llm throws or reports on `hooks.error`.
 *
 * Contract: `instanceof ConvertToLlmError` holds for all of them, from any entry point, in ESM and
 * CJS; `code` is stable across versions; `role`, `index` and `plugin` are set where they apply.
 *
 * @example
 * registry.hooks.error.tap("log", (error) => {
 *   console.warn(`[${error.code}] ${error.message}`);
 * });
 */
export class ConvertToLlmError extends Error {
	readonly code: ErrorCode;
	readonly role: string | undefined;
	readonly customType: string | undefined;
	readonly index: number | undefined;
	readonly plugin: string | undefined;

	constructor(code: ErrorCode, message: string, details: ErrorDetails = {}) {
		super(message, details.cause === undefined ? undefined : { cause: details.cause });
		this.name = new.target.name;
		this.code = code;
		this.role = details.role;
		this.customType = details.customType;
		this.index = details.index;
		this.plugin = details.plugin;
	}
}

/**
 * A message whose role no registered converter handles (or every converter for it passed with
 * `undefined`). Lenient mode drops the message and reports this.
 */
export class UnknownRoleError extends ConvertToLlmError {
	constructor(message: string, details: ErrorDetails = {}) {
		super(ErrorCode.UNKNOWN_ROLE, message, details);
	}
}

/**
 * A converter or a hook tap threw, or returned something that is not a pi-ai `Message`.
 * Lenient mode falls back to the next converter for the role (or skips the tap) and reports this.
 */
export class ConversionError extends ConvertToLlmError {
	constructor(message: string, details: ErrorDetails = {}) {
		super(ErrorCode.CONVERSION_FAILED, message, details);
	}
}

/**
 * An entry of the history that is not a message (`null`, a number, no string `role`), a history
 * that is not an array, or a factory given an invalid timestamp.
 */
export class InvalidMessageError extends ConvertToLlmError {
	constructor(message: string, details: ErrorDetails = {}) {
		super(ErrorCode.INVALID_MESSAGE, message, details);
	}
}

/** A second converter registered for the same role (or `customType`) without `override: true`. Always thrown. */
export class DuplicateConverterError extends ConvertToLlmError {
	constructor(message: string, details: ErrorDetails = {}) {
		super(ErrorCode.DUPLICATE_CONVERTER, message, details);
	}
}

/** A plugin without a name or an `apply` function, or a converter registered without a name. Always thrown. */
export class InvalidPluginError extends ConvertToLlmError {
	constructor(message: string, details: ErrorDetails = {}) {
		super(ErrorCode.INVALID_PLUGIN, message, details);
	}
}

/**
 * The sync `convert` was called on a registry with `afterConvertAsync` taps. Always thrown: skipping
 * an async redactor silently would leak what it was meant to hide. Use `convertAsync`.
 */
export class AsyncHookInSyncConvertError extends ConvertToLlmError {
	constructor(message: string, details: ErrorDetails = {}) {
		super(ErrorCode.ASYNC_HOOK_IN_SYNC_CONVERT, message, details);
	}
}
