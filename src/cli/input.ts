import type { AgentMessage } from "@mariozechner/pi-agent-core";
import { InvalidSessionError } from "../errors.js";
import type { ContextEditEffect } from "../session/context-types.js";
import { NOT_JSON, tryParse } from "../session/parse.js";
import { readSession } from "../session/read.js";
import { isInstance, isJsonObject } from "../values.js";
import { CliError } from "./cli-error.js";
import { readFileBounded, tooLarge } from "./read-input.js";

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
	};
}

/** Where the input comes from. */
export interface InputSource {
	/** The path as given on the command line, or `-`. */
	spec: string;
	cwd: string;
	/** Reads standard input, refusing it (a {@link CliError}) once it passes `maxBytes`. */
	readStdin: (maxBytes: number) => Promise<string>;
	leaf: string | undefined;
	/** The most bytes read (`--max-input`). */
	maxBytes: number;
}

const WHAT_TO_PASS = "Pass a pi session file (.jsonl), a JSON array of AgentMessages or JSONL of AgentMessages.";

/**
 * Reads the input and detects its kind. The file is only read (never written, whatever its version).
 * Bad input throws a {@link CliError} naming the file and what to do.
 */
export async function loadInput(source: InputSource): Promise<LoadedInput> {
	const name = source.spec === "-" ? "stdin" : source.spec;
	const raw =
		source.spec === "-"
			? await source.readStdin(source.maxBytes)
			: readFileBounded(source.spec, source.cwd, source.maxBytes);
	// A reader that ignores the limit (a test's) is held to it here.
	if (source.spec === "-" && raw.length > source.maxBytes / 3 && Buffer.byteLength(raw) > source.maxBytes) {
		throw tooLarge(name, source.maxBytes);
	}
	const text = raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw;
	if (text.trim() === "") throw new CliError(`${quote(name)} is empty. ${WHAT_TO_PASS}`);

	const first = firstJsonLine(text);
	const start = text.trimStart()[0];
	if (start === "[") {
		if (source.leaf !== undefined) throw leafNeedsSession(name, "a JSON array");
		return { kind: "json", name, messages: parseArray(text, name), problems: [] };
	}
	if (isJsonObject(first?.value) && first.value.type === "session") {
		return loadSession(text, name, source.leaf);
	}
	if (isJsonObject(first?.value) && typeof first.value.role === "string") {
		if (source.leaf !== undefined) throw leafNeedsSession(name, "JSONL of AgentMessages");
		return loadJsonLines(text, name);
	}
	const whole = tryParse(text);
	if (isJsonObject(whole) && typeof whole.role === "string") {
		if (source.leaf !== undefined) throw leafNeedsSession(name, "an AgentMessage");
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

function loadSession(text: string, name: string, leaf: string | undefined): LoadedInput {
	try {
		const result = readSession(text, { leafId: leaf, file: name });
		return {
			kind: "session",
			name,
			messages: result.messages,
			// The library names its option; the CLI names its flag.
			problems: result.problems.map((problem) => problem.message.replaceAll(" with leafId.", " with --leaf.")),
			session: {
				version: result.session.version,
				entries: result.session.entries.length,
				pathLength: result.pathLength,
				leafId: result.leafId,
				entryIds: result.entryIds,
				model: result.model,
				thinkingLevel: result.thinkingLevel,
				contextEdits: result.contextEdits,
			},
		};
	} catch (error) {
		if (isInstance(error, InvalidSessionError)) {
			throw new CliError(error.message);
		}
		throw error;
	}
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

function loadJsonLines(text: string, name: string): LoadedInput {
	const messages: AgentMessage[] = [];
	const problems: string[] = [];
	const lines = text.split("\n");
	for (let i = 0; i < lines.length; i++) {
		const line = lines[i] as string;
		if (line.trim() === "") continue;
		const value = tryParse(line);
		if (value === NOT_JSON)
			problems.push(`line ${i + 1} is not valid JSON; it was skipped. Fix or remove that line.`);
		else messages.push(value as AgentMessage);
	}
	return { kind: "jsonl", name, messages, problems };
}

/** The first line that parses as JSON, as pi's reader finds its header (malformed lines skipped). */
function firstJsonLine(text: string): { value: unknown; line: number } | undefined {
	const lines = text.split("\n", 1000);
	for (let i = 0; i < lines.length; i++) {
		const line = lines[i] as string;
		if (line.trim() === "") continue;
		const value = tryParse(line);
		if (value !== NOT_JSON) return { value, line: i + 1 };
	}
	return undefined;
}

const quote = (name: string): string => (name === "stdin" ? "stdin" : `"${name}"`);

const leafNeedsSession = (name: string, what: string): CliError =>
	new CliError(
		`--leaf applies to pi session files, and ${quote(name)} is ${what}. Drop --leaf, or pass a session file.`,
	);
