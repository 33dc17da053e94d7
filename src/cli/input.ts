import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { resolve } from "node:path";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { InvalidSessionError } from "../errors.js";
import type { ContextEditEffect } from "../session/context-types.js";
import {
	MIN_PARALLEL_BYTES,
	readInParallel,
	type SplitPlan,
	type StartedWorker,
	type StartRunner,
	splitPlan,
	startWorker,
} from "../session/parallel-read.js";
import { NOT_JSON, tryParse } from "../session/parse.js";
import { omittedText } from "../session/problems.js";
import type { ReadSessionResult } from "../session/read.js";
import { latestCompaction, type ReadAt } from "../session/slim.js";
import type { SessionEntry } from "../session/types.js";
import { isInstance, isJsonObject } from "../values.js";
import { CliError, codeOf } from "./cli-error.js";
import { InputLines, type StreamedInput } from "./input-lines.js";
import { boundedChunks, fileChunks, tooLarge } from "./read-input.js";

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
		/** Every entry as read (slim before the latest compaction's kept entry), when `InputSource.tree` asked for them. */
		tree?: { entries: readonly SessionEntry[]; leafId: string | null };
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
	/** Keep a session's entries in the result (`session.tree`), for the report's history column. */
	tree?: boolean;
	/**
	 * How a long session file is read on two threads (see parallel-read.ts): the smallest file to
	 * split (8 MiB), the most of it the start takes (`START_SHARE`, 0.48), and what reads the start (a worker
	 * thread). Tests set them.
	 */
	parallel?: { minBytes?: number; share?: number; runStart?: StartRunner };
}

const WHAT_TO_PASS = "Pass a pi session file (.jsonl), a JSON array of AgentMessages or JSONL of AgentMessages.";

/**
 * Reads the input and detects its kind, line by line as it arrives: a session or JSONL is parsed as
 * it streams (never held whole); a JSON array, or text whose kind its lines do not tell, is held to
 * be parsed whole. The file is only read (never written, whatever its version). Bad input throws a
 * {@link CliError} naming the file and what to do.
 */
export async function loadInput(source: InputSource): Promise<LoadedInput> {
	const name = source.spec === "-" ? "stdin" : source.spec;
	try {
		// A file's messages before its latest compaction's kept entry are held slim; should the
		// context send one of them after all, the file is read again, whole.
		const hint = source.spec === "-" ? undefined : compactionHint(source);
		if (hint?.plan !== undefined) {
			const read = await inParallel(source, name, hint.plan, hint.runStart);
			if (read?.kind === "session") return fromSession(read.result, name, source.leaf, source.tree);
			if (read?.kind === "again") {
				return fromStream(await streamed(source, name, undefined), name, source.leaf, source.tree);
			}
		}
		let input = await streamed(source, name, hint?.keptId);
		if (input.kind === "again") input = await streamed(source, name, undefined);
		return fromStream(input, name, source.leaf, source.tree);
	} catch (error) {
		if (isInstance(error, InvalidSessionError)) throw new CliError(error.message);
		if (codeOf(error) === "ERR_STRING_TOO_LONG" || isStringLimit(error)) {
			throw new CliError(
				`${quote(name)} is too large for Node to hold as one string (about 512 MiB of text), which a JSON array or a single line must be. Pass a smaller history.`,
			);
		}
		throw error;
	}
}

/**
 * The entry the latest compaction of the file keeps from, read from its end (see slim.ts), and for a
 * long file, where it splits and what reads its start (a worker thread, started before the end is
 * read); nothing when the file cannot be read here (reading it then says why).
 */
function compactionHint(
	source: InputSource,
): { keptId: string | undefined; plan?: SplitPlan; runStart?: StartRunner } | undefined {
	let fd: number | undefined;
	let worker: StartedWorker | undefined;
	try {
		// Not blocking: a FIFO is refused by fileChunks, not waited on here.
		fd = openSync(resolve(source.cwd, source.spec), constants.O_RDONLY | constants.O_NONBLOCK);
		const stats = fstatSync(fd);
		if (!stats.isFile() || stats.size > source.maxBytes) return undefined;
		const runStart = source.parallel?.runStart;
		if (runStart === undefined && stats.size >= (source.parallel?.minBytes ?? MIN_PARALLEL_BYTES)) {
			worker = startWorker();
		}
		const file = fd;
		const read: ReadAt = (buffer, position) => {
			let filled = 0;
			for (let read = -1; filled < buffer.length && read !== 0; filled += read) {
				read = readSync(file, buffer, filled, buffer.length - filled, position + filled);
			}
			return filled;
		};
		const compaction = latestCompaction(read, stats.size);
		const plan = splitPlan(read, stats.size, compaction, source.parallel?.minBytes, source.parallel?.share);
		if (plan === undefined) worker?.cancel();
		return { keptId: compaction?.keptId, plan, runStart: runStart ?? worker?.run };
	} catch {
		worker?.cancel();
		return undefined;
	} finally {
		if (fd !== undefined) closeSync(fd);
	}
}

/**
 * A long session file read on two threads (see parallel-read.ts); `undefined` when it cannot be
 * (then it is read on one).
 */
function inParallel(source: InputSource, name: string, plan: SplitPlan, runStart: StartRunner | undefined) {
	return readInParallel(
		{ path: resolve(source.cwd, source.spec), end: plan.end, slimUntil: plan.slimUntil, file: name },
		fileChunks(source.spec, source.cwd, source.maxBytes, plan.end),
		{ leafId: source.leaf, file: name },
		runStart,
	);
}

async function streamed(source: InputSource, name: string, slimUntil: string | undefined): Promise<StreamedInput> {
	const lines = new InputLines(name, source.leaf, slimUntil);
	for await (const chunk of chunksOf(source)) lines.push(chunk);
	return lines.end();
}

async function* chunksOf(source: InputSource): AsyncGenerator<unknown> {
	if (source.spec !== "-") {
		yield* fileChunks(source.spec, source.cwd, source.maxBytes);
		return;
	}
	if (source.stdin !== undefined) {
		yield* boundedChunks(source.stdin, source.maxBytes);
		return;
	}
	const raw = await source.readStdin(source.maxBytes);
	// A reader that ignores the limit (a test's) is held to it here.
	if (raw.length > source.maxBytes / 3 && Buffer.byteLength(raw) > source.maxBytes) {
		throw tooLarge("stdin", source.maxBytes);
	}
	yield raw;
}

function fromStream(input: StreamedInput, name: string, leaf: string | undefined, tree?: boolean): LoadedInput {
	if (input.kind === "again") throw new Error("a session read without slim entries cannot send one");
	if (input.kind === "session") return fromSession(input.result, name, leaf, tree);
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
	const whole = tryParse(text);
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

function fromSession(result: ReadSessionResult, name: string, leaf: string | undefined, tree?: boolean): LoadedInput {
	// A person typed --leaf: an id the file does not have is refused, where the library falls back as pi does.
	if (leaf !== undefined && result.problemCounts.some((count) => count.kind === "unknown-leaf")) {
		const last = result.session.entries.at(-1)?.id;
		throw new CliError(
			`${quote(name)} has no entry with id ${JSON.stringify(leaf)}. Pick the "id" of one of its lines${last === undefined ? "" : ` (the last one is ${JSON.stringify(last)})`}.`,
		);
	}
	return {
		kind: "session",
		name,
		messages: result.messages,
		problems: shownProblems(result),
		session: {
			version: result.session.version,
			entries: result.session.entries.length,
			pathLength: result.pathLength,
			leafId: result.leafId,
			entryIds: result.entryIds,
			model: result.model,
			thinkingLevel: result.thinkingLevel,
			contextEdits: result.contextEdits,
			...(tree === true ? { tree: { entries: result.session.entries, leafId: result.leafId } } : {}),
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
		// The library names its option; the CLI names its flag.
		lines.push(problem.message.replaceAll(" with leafId.", " with --leaf."));
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
