/**
 * The pi session reader, one entrance (`readSessionFile`, `readSessionStream`, `readSession`): the
 * context pi would send, with entry ids, `context_edit` effects, problems and, when asked, the tree.
 *
 * read.ts          the entrance: source → lines → slim pass (→ whole pass) → context → result
 * source.ts        a regular file or a stream, bounded by maxBytes, as 64 KiB chunks
 * lines.ts         chunks to lines
 * line-parser.ts   each line as pi reads it, the header, line problems
 * slim.ts          message entries held slim before the latest compaction's kept entry
 * migrate.ts       version 1 and 2 files brought to version 3 in memory
 * parse.ts         parseSession: a text to a ParsedSession
 * context.ts       buildSessionContext: the path, the compaction, the context entries
 * entry-links.ts   parent links and ids, read once
 * path.ts          the walk from the leaf to the root
 * project.ts       what one entry sends, context_edit applied
 * problems.ts      problems as data, counted per kind
 * types.ts, context-types.ts   the file's shapes; the context's
 */
export { InvalidSessionError, type SessionErrorDetails } from "../errors.js";
export { type BuildContextOptions, buildSessionContext } from "./context.js";
export type { ContextEditEffect, SessionContext, SessionContextOptions } from "./context-types.js";
export { type LineSink, LineSplitter } from "./lines.js";
export { type ParseOptions, parseSession } from "./parse.js";
export {
	MAX_PROBLEMS_PER_KIND,
	omittedText,
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
	type SessionTree,
} from "./read.js";
export { fileChunks, type SourceOptions, streamChunks } from "./source.js";
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
