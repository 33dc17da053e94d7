import type { LintRule } from "./hooks/lint.js";

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
	LINT: "CONVERT_TO_LLM_LINT",
	INVALID_SESSION: "CONVERT_TO_LLM_INVALID_SESSION",
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
 * A session file that cannot be read (no header, an unknown `--leaf`), or a problem with one of its
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
