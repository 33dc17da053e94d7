/** Exit status of the CLI. */
export const ExitCode = Object.freeze({
	OK: 0,
	/** A problem under `--strict`. */
	PROBLEM: 1,
	/** Bad input or usage. */
	BAD_INPUT: 2,
} as const);

/**
 * What the CLI tells the user before it exits: one line on stderr, no stack trace.
 *
 * Contract: `message` says what is wrong, with what (the file, the plugin module), and what to do.
 */
export class CliError extends Error {
	constructor(
		message: string,
		readonly exitCode: number = ExitCode.BAD_INPUT,
	) {
		super(message);
		this.name = "CliError";
	}
}
