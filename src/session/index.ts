export { InvalidSessionError, type SessionErrorDetails } from "../errors.js";
export { type BuildContextOptions, buildSessionContext } from "./context.js";
export { type ParseOptions, parseSession } from "./parse.js";
export { type ReadSessionOptions, type ReadSessionResult, readSession, readSessionFile } from "./read.js";
export {
	type BranchSummaryEntry,
	type CompactionEntry,
	CURRENT_SESSION_VERSION,
	type CustomEntry,
	type CustomMessageEntry,
	type LabelEntry,
	type ModelChangeEntry,
	type ParsedSession,
	type ParseSessionOptions,
	type SessionContext,
	type SessionContextOptions,
	type SessionEntry,
	type SessionEntryBase,
	type SessionHeader,
	type SessionInfoEntry,
	type SessionMessageEntry,
	type ThinkingLevelChangeEntry,
} from "./types.js";
