/**
 * `loadInput`: reads the CLI's input (a file or standard input) and detects its kind, a session through the
 * session reader, JSONL as it streams, a JSON array whole; bad input becomes a `CliError` naming the file.
 */
import { resolve } from "node:path";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import {
	type ContextEditEffect,
	fileChunks,
	InvalidSessionError,
	omittedText,
	type ReadSessionOptions,
	type ReadSessionResult,
	readSessionFile,
	readSessionStream,
	type SessionTree,
	streamChunks,
} from "../session/index.js";
import { isInstance, isJsonObject, NOT_JSON, parseJsonLine } from "../values.js";
import { CliError, codeOf } from "./cli-error.js";
import { InputLines, type StreamedInput } from "./input-lines.js";

/** The history to convert, and what it was read from. */
export interface LoadedInput {
	kind: "session" | "json" | "jsonl";
	/** The name to show: the path as given, or `stdin`. */
	name: string;
	messages: AgentMessage[];
	/** Problems met while reading (skipped lines, broken links), one line each. */
	problems: string[];
	/** For a session: the entry each message came from, and the session's facts. */
	session?: {
		version: number;
		entries: number;
		pathLength: number;
		leafId: string | null;
		entryIds: string[];
		model: { provider: string; modelId: string } | null;
		thinkingLevel: string;
		/** What the session's `context_edit` entries hid or replaced. */
		contextEdits: ContextEditEffect[];
		/** Every entry of the file, whole (asked for with `tree`: the HTML report's history column). */
		tree?: SessionTree;
	};
}

/** Where the input comes from. */
export interface InputSource {
	/** The path as given on the command line, or `-`. */
	spec: string;
	cwd: string;
	/** Reads standard input, refusing it (a {@link CliError}) once it passes `maxBytes`. */
	readStdin: (maxBytes: number) => Promise<string>;
	/** Standard input as a stream of chunks; when given, it is read as it arrives instead of `readStdin`. */
	stdin?: AsyncIterable<unknown>;
	leaf: string | undefined;
	/** The most bytes read (`--max-input`). */
	maxBytes: number;
	/** Whether a session's whole tree is wanted (`--html`). */
	tree?: boolean;
}

const WHAT_TO_PASS = "Pass a pi session file (.jsonl), a JSON array of AgentMessages or JSONL of AgentMessages.";

/**
 * Reads the input and detects its kind, line by line as it arrives: a session is read by the
 * session reader (a file from its path, standard input as the stream it is); JSONL is parsed as it
 * streams (never held whole); a JSON array, or text whose kind its lines do not tell, is held to be
 * parsed whole. The file is only read (never written, whatever its version). Bad input throws a
 * {@link CliError} naming the file and what to do.
 */
export async function loadInput(source: InputSource): Promise<LoadedInput> {
	const name = source.spec === "-" ? "stdin" : source.spec;
	const read: ReadSessionOptions = { leafId: source.leaf, file: name, maxBytes: source.maxBytes, tree: source.tree };
	const bounds = { file: name, maxBytes: source.maxBytes };
	const lines = new InputLines(name, source.leaf);
	try {
		if (source.spec !== "-") {
			const path = resolve(source.cwd, source.spec);
			for (const chunk of fileChunks(path, bounds)) {
				lines.push(chunk);
				// Leaving the loop closes the file: the session reader reads it from its path.
				if (lines.isSession) break;
			}
			if (lines.isSession) return fromSession(readSessionFile(path, read), name, source.leaf);
			return fromLines(lines.end(), name, source.leaf);
		}
		const stdin = source.stdin ?? [await source.readStdin(source.maxBytes)];
		const chunks = streamChunks(stdin, bounds)[Symbol.asyncIterator]();
		try {
			// The chunks read until the kind is known, for the session reader to read again.
			const seen: (string | Uint8Array)[] = [];
			for (let next = await chunks.next(); next.done !== true; next = await chunks.next()) {
				lines.push(next.value);
				if (lines.isSession) {
					seen.push(next.value);
					// Bounded already: the limit counts what was seen.
					const result = await readSessionStream(again(seen, chunks), { ...read, maxBytes: undefined });
					return fromSession(result, name, source.leaf);
				}
				if (lines.isUndecided) seen.push(next.value);
				else seen.length = 0;
			}
			return fromLines(lines.end(), name, source.leaf);
		} finally {
			// Left early (a refusal, an error): nothing more is read.
			await chunks.return?.(undefined);
		}
	} catch (error) {
		if (isInstance(error, InvalidSessionError)) throw new CliError(inCliWords(error.message));
		if (codeOf(error) === "ERR_STRING_TOO_LONG" || isStringLimit(error)) {
			throw new CliError(
				`${quote(name)} is too large for Node to hold as one string (about 512 MiB of text), which a JSON array or a single line must be. Pass a smaller history.`,
			);
		}
		throw error;
	}
}

/** The chunks `seen`, then the rest of `chunks` (bounded already; the caller ends them). */
async function* again(
	seen: readonly (string | Uint8Array)[],
	chunks: AsyncIterator<string | Uint8Array>,
): AsyncGenerator<string | Uint8Array> {
	yield* seen;
	for (let next = await chunks.next(); next.done !== true; next = await chunks.next()) yield next.value;
}

/**
 * The session reader's words for its options, as the CLI's flags: problems and errors name
 * `leafId` and `maxBytes`, and point a pipe to `readSessionStream`.
 */
const CLI_WORDS: readonly (readonly [string, string])[] = [
	[" with leafId.", " with --leaf."],
	["maxBytes", "--max-input"],
	["read it as a stream with readSessionStream", "- and send the history on standard input"],
];

function inCliWords(message: string): string {
	let text = message;
	for (const [library, cli] of CLI_WORDS) text = text.replaceAll(library, cli);
	return text;
}

function fromLines(input: StreamedInput, name: string, leaf: string | undefined): LoadedInput {
	if (input.kind === "session") throw new Error("a session is read by the session reader");
	if (input.kind === "jsonl") return { kind: "jsonl", name, messages: input.messages, problems: input.problems };
	return fromText(input.text, input.first, name, leaf);
}

/** The input held whole: a JSON array, one AgentMessage, or text that is neither (an error). */
function fromText(
	text: string,
	first: { value: unknown; line: number } | undefined,
	name: string,
	leaf: string | undefined,
): LoadedInput {
	if (text.trim() === "") throw new CliError(`${quote(name)} is empty. ${WHAT_TO_PASS}`);
	if (text.trimStart()[0] === "[") {
		if (leaf !== undefined) throw leafNeedsSession(name, "a JSON array");
		return { kind: "json", name, messages: parseArray(text, name), problems: [] };
	}
	const whole = parseJsonLine(text);
	if (isJsonObject(whole) && typeof whole.role === "string") {
		if (leaf !== undefined) throw leafNeedsSession(name, "an AgentMessage");
		return { kind: "json", name, messages: [whole as unknown as AgentMessage], problems: [] };
	}
	if (
		first !== undefined &&
		isJsonObject(first.value) &&
		typeof first.value.type === "string" &&
		"parentId" in first.value
	) {
		throw new CliError(
			`${quote(name)} has session entries but no session header (line ${first.line} is a "${first.value.type}" entry, expected {"type":"session",…} first). Pass the whole session file as pi wrote it.`,
		);
	}
	if (whole !== NOT_JSON) {
		throw new CliError(
			`${quote(name)} is JSON but neither a pi session nor AgentMessages (it is ${describe(whole)}). ${WHAT_TO_PASS}`,
		);
	}
	if (first === undefined) {
		throw new CliError(`${quote(name)} is not JSON (no line of it parses). ${WHAT_TO_PASS}`);
	}
	throw new CliError(
		`${quote(name)} is JSONL but neither a pi session nor AgentMessages (line ${first.line} has no "role" and is not a session header). ${WHAT_TO_PASS}`,
	);
}

function describe(value: unknown): string {
	if (value === null) return "null";
	if (isJsonObject(value)) return `an object without a "role"`;
	return `a ${typeof value}`;
}

function fromSession(result: ReadSessionResult, name: string, leaf: string | undefined): LoadedInput {
	// A person typed --leaf: an id the file does not have is refused, where the library falls back as
	// pi does (to the last entry: the context's leaf).
	if (leaf !== undefined && result.problemCounts.some((count) => count.kind === "unknown-leaf")) {
		const last = result.leafId;
		throw new CliError(
			`${quote(name)} has no entry with id ${JSON.stringify(leaf)}. Pick the "id" of one of its lines${last === null ? "" : ` (the last one is ${JSON.stringify(last)})`}.`,
		);
	}
	return {
		kind: "session",
		name,
		messages: result.messages,
		problems: shownProblems(result),
		session: {
			version: result.version,
			entries: result.entryCount,
			pathLength: result.pathLength,
			leafId: result.leafId,
			entryIds: result.entryIds,
			model: result.model,
			thinkingLevel: result.thinkingLevel,
			contextEdits: result.contextEdits,
			...(result.tree === undefined ? {} : { tree: result.tree }),
		},
	};
}

/** Problems shown of each kind before one line says how many more there are. */
const SHOWN_PER_KIND = 3;

/**
 * The session's problems as warnings: the first few of each kind, in file order, each kind's count
 * of the others right after its last one shown (so that a file of a million bad lines says so).
 */
function shownProblems(result: ReadSessionResult): string[] {
	const counts = new Map(result.problemCounts.map((count) => [count.kind, count.count]));
	const shown = new Map<string, number>();
	const lines: string[] = [];
	for (const problem of result.problems) {
		const count = (shown.get(problem.kind) ?? 0) + 1;
		shown.set(problem.kind, count);
		if (count > SHOWN_PER_KIND) continue;
		lines.push(inCliWords(problem.message));
		const total = counts.get(problem.kind) ?? count;
		if (count === SHOWN_PER_KIND && total > count) lines.push(omittedText(problem.kind, total - count));
	}
	return lines;
}

function parseArray(text: string, name: string): AgentMessage[] {
	let value: unknown;
	try {
		value = JSON.parse(text);
	} catch (error) {
		throw new CliError(
			`${quote(name)} starts like a JSON array but is not valid JSON (${(error as Error).message}). ${WHAT_TO_PASS}`,
		);
	}
	if (!Array.isArray(value)) throw new CliError(`${quote(name)} is not a JSON array. ${WHAT_TO_PASS}`);
	if (value.length > 0 && !value.some((item) => isJsonObject(item) && typeof item.role === "string")) {
		throw new CliError(
			`${quote(name)} is a JSON array, but none of its items is an AgentMessage (an object with a "role"). ${WHAT_TO_PASS}`,
		);
	}
	return value as AgentMessage[];
}

/** `join` or `+` past V8's longest string (a RangeError, as a stack overflow is: tell them apart). */
const isStringLimit = (error: unknown): boolean =>
	error instanceof RangeError && error.message.includes("Invalid string length");

const quote = (name: string): string => (name === "stdin" ? "stdin" : `"${name}"`);

const leafNeedsSession = (name: string, what: string): CliError =>
	new CliError(
		`--leaf applies to pi session files, and ${quote(name)} is ${what}. Drop --leaf, or pass a session file.`,
	);
