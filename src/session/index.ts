export { InvalidSessionError, type SessionErrorDetails } from "../errors.js";
export { type BuildContextOptions, buildSessionContext } from "./context.js";
export type { ContextEditEffect, SessionContext, SessionContextOptions } from "./context-types.js";
export { type ParseOptions, parseSession } from "./parse.js";
export {
	MAX_PROBLEMS_PER_KIND,
	type SessionProblem,
	type SessionProblemCount,
	type SessionProblemKind,
} from "./problems.js";
export {
	type ReadSessionOptions,
	type ReadSessionResult,
	readSession,
	readSessionFile,
	readSessionStream,
} from "./read.js";
export {
	type BranchSummaryEntry,
	type CompactionEntry,
	type ContextEditableContent,
	type ContextEditEntry,
	CURRENT_SESSION_VERSION,
	type CustomEntry,
	type CustomMessageEntry,
	type LabelEntry,
	type ModelChangeEntry,
	type ParsedSession,
	type ParseSessionOptions,
	type SessionEntry,
	type SessionEntryBase,
	type SessionHeader,
	type SessionInfoEntry,
	type SessionMessageEntry,
	type SessionSystemMessage,
	type ThinkingLevelChangeEntry,
	type UsageEntry,
} from "./types.js";
