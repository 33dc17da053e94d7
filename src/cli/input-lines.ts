/**
 * The CLI's input as lines, as they arrive: its kind is told by its first lines (a session header, an
 * AgentMessage, a `[`). A session is then the session reader's to read; JSONL of AgentMessages is
 * parsed line by line without holding the text; anything else is held to be parsed whole.
 */
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { type LineSink, LineSplitter } from "../session/index.js";
import { isJsonObject, NOT_JSON, parseJsonLine } from "../values.js";
import { CliError } from "./cli-error.js";

/** What the lines turned out to be: a session (read it with the session reader), parsed lines, or text to parse whole. */
export type StreamedInput =
	| { kind: "session" }
	| { kind: "jsonl"; messages: AgentMessage[]; problems: string[] }
	| { kind: "text"; text: string; first: { value: unknown; line: number } | undefined };

type Mode = "undecided" | "whole" | "session" | "jsonl";

/**
 * Feeds chunks to a line splitter and each line to the reader its kind needs. Until the kind is known
 * the lines are held (a session may start after any number of lines pi skips: blank, not JSON, `null`);
 * the first line pi would keep decides: a session header (then {@link InputLines.isSession} is true and
 * the lines stop here), an object with a `role` (JSONL of AgentMessages), or anything else, when the
 * text is held whole for the caller to tell.
 */
export class InputLines implements LineSink {
	private readonly splitter = new LineSplitter(this);
	private mode: Mode = "undecided";
	private held: string[] = [];
	private started = false;
	private first: { value: unknown; line: number } | undefined;
	private readonly messages: AgentMessage[] = [];
	private readonly problems: string[] = [];

	constructor(
		private readonly name: string,
		private readonly leaf: string | undefined,
	) {}

	/** Whether the input is a session: the lines so far said so, and nothing more need be pushed. */
	get isSession(): boolean {
		return this.mode === "session";
	}

	/** Whether the lines so far do not tell the input's kind. */
	get isUndecided(): boolean {
		return this.mode === "undecided";
	}

	push(chunk: string | Uint8Array): void {
		this.splitter.push(chunk);
	}

	end(): StreamedInput {
		if (this.mode === "session") return { kind: "session" };
		this.splitter.end();
		if (this.mode === "jsonl") return { kind: "jsonl", messages: this.messages, problems: this.problems };
		const text = this.held.join("\n");
		this.held = [];
		return { kind: "text", text, first: this.first };
	}

	line(text: string, number: number): void {
		if (this.mode === "jsonl") this.jsonLine(text, number);
		else if (this.mode === "whole") this.held.push(text);
		else if (this.mode === "undecided") {
			this.detect(number === 1 && text.charCodeAt(0) === 0xfeff ? text.slice(1) : text, number);
		}
	}

	private detect(text: string, number: number): void {
		this.held.push(text);
		if (text.trim() === "") return;
		const first = !this.started;
		this.started = true;
		if (first && text.trimStart()[0] === "[") {
			this.mode = "whole";
			return;
		}
		// The first line that is not blank is read without its leading whitespace, as pi 0.73.1 reads it
		// (the session reader says where pi 1.x does not).
		const value = parseJsonLine(first ? text.trimStart() : text);
		if (value === NOT_JSON) return;
		this.first ??= { value, line: number };
		// pi's loader skips null, false, 0 and "" as it skips text that is not JSON.
		if (!value) return;
		if (isJsonObject(value) && value.type === "session") {
			this.mode = "session";
			this.held = [];
		} else if (isJsonObject(value) && typeof value.role === "string") {
			if (this.leaf !== undefined) {
				throw new CliError(
					`--leaf applies to pi session files, and ${this.name === "stdin" ? "stdin" : `"${this.name}"`} is JSONL of AgentMessages. Drop --leaf, or pass a session file.`,
				);
			}
			this.mode = "jsonl";
			const held = this.held;
			this.held = [];
			for (let i = 0; i < held.length; i++) this.jsonLine(held[i] as string, i + 1);
		} else this.mode = "whole";
	}

	private jsonLine(text: string, number: number): void {
		if (text.trim() === "") return;
		const value = parseJsonLine(text);
		if (value === NOT_JSON)
			this.problems.push(`line ${number} is not valid JSON; it was skipped. Fix or remove that line.`);
		else this.messages.push(value as AgentMessage);
	}
}
