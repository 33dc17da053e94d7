/**
 * Where a filter's problems go: the hook context's `report`, or a list function's `onProblem` (the first problem
 * thrown without one); shared by `pruneMessageList` and `trimMessageList`.
 */
import type { ConvertToLlmError } from "../errors.js";
import { describeValue } from "../values.js";

/** Where a filter's problems go: the hook context's `report`, or what a list function's caller chose. */
export interface ProblemSink {
	report(error: ConvertToLlmError): void;
}

/**
 * What a list function (`pruneMessageList`, `trimMessageList`) does with a problem.
 *
 * Contract: without `onProblem`, the first problem is thrown (the caller gets no list it did not ask
 * for: a request trimmed to the system messages alone, or a message dropped unread, is an error); with
 * it, each problem is handed to it and the function returns what it kept, as the plugin does in a
 * lenient registry. An `onProblem` that throws ends the call with that error.
 *
 * @example
 * const kept = trimMessageList(messages, { maxTokens: 8_000, onProblem: (problem) => log.warn(problem.message) });
 */
export interface ListProblemOptions {
	/** Called with each problem (a `ConvertToLlmError`); default: the first problem is thrown. */
	onProblem?: (problem: ConvertToLlmError) => void;
}

/** The sink of a list function: `onProblem`, or throw. A non-function `onProblem` is `invalid`'s error. */
export function listSink(onProblem: unknown, invalid: (what: string) => Error): ProblemSink {
	if (onProblem === undefined)
		return {
			report(error) {
				throw error;
			},
		};
	if (typeof onProblem !== "function")
		throw invalid(`onProblem is ${describeValue(onProblem)}; give a function of one problem, or leave it out`);
	return { report: (error) => void onProblem(error) };
}
