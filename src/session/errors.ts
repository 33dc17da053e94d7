import { ConvertToLlmError, type ErrorCode, type ErrorDetails } from "../errors.js";

/** Stable code of {@link InvalidSessionError}. */
export const INVALID_SESSION = "CONVERT_TO_LLM_INVALID_SESSION";

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
		// The code is not (yet) a member of the shared ErrorCode table, which this module does not own.
		super(INVALID_SESSION as unknown as ErrorCode, message, details);
		this.file = details.file;
		this.line = details.line;
		this.entryId = details.entryId;
	}
}
