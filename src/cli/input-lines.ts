/**
 * The CLI's input as lines, as they arrive: its kind is told by its first lines (a session header, an
 * AgentMessage, a `[`), and a session or JSONL is then parsed line by line without holding the text.
 */
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { type LineSink, LineSplitter } from "../session/lines.js";
import { NOT_JSON, tryParse } from "../session/parse.js";
import { push, type ReadSessionResult, SessionReader } from "../session/read.js";
import { isJsonObject } from "../values.js";
import { CliError } from "./cli-error.js";

/** What the lines turned out to be: parsed as they came, or text to parse whole. */
export type StreamedInput =
	| { kind: "session"; result: ReadSessionResult }
	| { kind: "jsonl"; messages: AgentMessage[]; problems: string[] }
	| { kind: "text"; text: string; first: { value: unknown; line: number } | undefined }
	/** A session whose context sends an entry held slim (see slim.ts): read it again without the hint. */
	| { kind: "again" };

type Mode = "undecided" | "whole" | "session" | "jsonl";

/**
 * Feeds chunks to a line splitter and each line to the reader its kind needs. Until the kind is known
 * the lines are held (a session may start after any number of lines pi skips: blank, not JSON, `null`);
 * the first line pi would keep decides: a session header, an object with a `role` (JSONL of
 * AgentMessages), or anything else, when the text is held whole for the caller to tell.
 */
export class InputLines implements LineSink {
	private readonly splitter = new LineSplitter(this);
	private mode: Mode = "undecided";
	private held: string[] = [];
	private started = false;
	private first: { value: unknown; line: number } | undefined;
	private session: SessionReader | undefined;
	private readonly messages: AgentMessage[] = [];
	private readonly problems: string[] = [];

	constructor(
		private readonly name: string,
		private readonly leaf: string | undefined,
		/** The id of the compaction a session's context likely starts at (see slim.ts). */
		private readonly slimUntil?: string,
	) {}

	push(chunk: unknown): void {
		const piece = typeof chunk === "string" || chunk instanceof Uint8Array ? chunk : String(chunk);
		push(this.splitter, piece, this.name);
	}

	end(): StreamedInput {
		this.splitter.end();
		if (this.mode === "session") {
			const result = (this.session as SessionReader).finish();
			return result === undefined ? { kind: "again" } : { kind: "session", result };
		}
		if (this.mode === "jsonl") return { kind: "jsonl", messages: this.messages, problems: this.problems };
		const text = this.held.join("\n");
		this.held = [];
		return { kind: "text", text, first: this.first };
	}

	line(text: string, number: number): void {
		if (this.mode === "session") (this.session as SessionReader).line(text, number);
		else if (this.mode === "jsonl") this.jsonLine(text, number);
		else if (this.mode === "whole") this.held.push(text);
		else this.detect(number === 1 && text.charCodeAt(0) === 0xfeff ? text.slice(1) : text, number);
	}

	private detect(text: string, number: number): void {
		this.held.push(text);
		if (text.trim() === "") return;
		if (!this.started) {
			this.started = true;
			if (text.trimStart()[0] === "[") {
				this.mode = "whole";
				return;
			}
		}
		const value = tryParse(text);
		if (value === NOT_JSON) return;
		this.first ??= { value, line: number };
		// pi's loader skips null, false, 0 and "" as it skips text that is not JSON.
		if (!value) return;
		if (isJsonObject(value) && value.type === "session") this.decide("session");
		else if (isJsonObject(value) && typeof value.role === "string") {
			if (this.leaf !== undefined) {
				throw new CliError(
					`--leaf applies to pi session files, and ${this.name === "stdin" ? "stdin" : `"${this.name}"`} is JSONL of AgentMessages. Drop --leaf, or pass a session file.`,
				);
			}
			this.decide("jsonl");
		} else this.mode = "whole";
	}

	/** From now on the lines go to the reader of `mode`, the held ones first. */
	private decide(mode: "session" | "jsonl"): void {
		this.mode = mode;
		if (mode === "session") this.session = new SessionReader({ leafId: this.leaf, file: this.name }, this.slimUntil);
		const held = this.held;
		this.held = [];
		for (let i = 0; i < held.length; i++) this.line(held[i] as string, i + 1);
	}

	private jsonLine(text: string, number: number): void {
		if (text.trim() === "") return;
		const value = tryParse(text);
		if (value === NOT_JSON)
			this.problems.push(`line ${number} is not valid JSON; it was skipped. Fix or remove that line.`);
		else this.messages.push(value as AgentMessage);
	}
}
