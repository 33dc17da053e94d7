/**
 * The `--max-input` bound: its default and its parsing, and standard input read whole within it (the
 * session reader's bounded stream, src/session/source.ts, joined).
 */
import { streamChunks } from "../session/index.js";
import { CliError, codeOf } from "./cli-error.js";

/**
 * 512 MiB by default: about the longest text Node can hold as one string (V8's limit is 2^29 − 24
 * characters), which a JSON array needs; a session is read line by line and may be larger (raise
 * `--max-input`), its parsed entries taking about four times its size in memory.
 */
export const DEFAULT_MAX_INPUT = 512 * 1024 * 1024;

/** `1536`, `64K`, `256M`, `1G` (binary units, case-insensitive, an optional `iB`/`B`) as bytes. */
export function parseSize(text: string): number | undefined {
	let end = text.length;
	const upper = text.toUpperCase();
	if (upper.endsWith("IB")) end -= 2;
	else if (upper.endsWith("B")) end -= 1;
	const unit = "KMG".indexOf(upper.charAt(end - 1));
	if (unit !== -1) end -= 1;
	const digits = text.slice(0, end);
	if (digits === "" || digits.length > 15) return undefined;
	for (let i = 0; i < digits.length; i++) {
		const code = digits.charCodeAt(i);
		if (code < 0x30 || code > 0x39) return undefined;
	}
	const bytes = Number(digits) * 1024 ** (unit + 1);
	return bytes > 0 && Number.isSafeInteger(bytes) ? bytes : undefined;
}

/**
 * The text of a stream (standard input), refused once it passes `maxBytes` (an `InvalidSessionError`,
 * which the CLI says in its words) or Node's longest string (a {@link CliError}).
 */
export async function readStreamBounded(stream: AsyncIterable<unknown>, maxBytes: number): Promise<string> {
	const chunks: Buffer[] = [];
	let total = 0;
	for await (const chunk of streamChunks(stream, { file: "stdin", maxBytes })) {
		const buffer =
			typeof chunk === "string" ? Buffer.from(chunk) : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length);
		total += buffer.length;
		chunks.push(buffer);
	}
	try {
		return (chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, total)).toString("utf8");
	} catch (error) {
		if (codeOf(error) !== "ERR_STRING_TOO_LONG") throw error;
		throw new CliError(
			"stdin is too large for Node to hold as one string (about 512 MiB of text). Pass a smaller history.",
		);
	}
}
