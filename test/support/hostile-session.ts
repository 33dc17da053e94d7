/**
 * A pi session (format version 3) with a hostile string in every field a report shows: markup that
 * would run a script if it were ever parsed as HTML (each sets `window.__pwned`), `javascript:` links,
 * a `</script>` that would end the data block, bidi overrides, zero-width and tag characters, line
 * separators and terminal escapes; in ids, roles, custom types, tool names, models, contents,
 * thinking, tool-call arguments, image types, bash commands, summaries and labels. Also a plugin
 * module whose name and `afterConvert` tap are as hostile, so the hook section is too.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";

/** Each payload would set `window.__pwned` if the page ever ran it. */
export const PAYLOADS = [
	"<script>window.__pwned='script'</script>",
	"</script><script>window.__pwned='break-out'</script>",
	"<img src=x onerror=\"window.__pwned='img'\">",
	"<a href=\"javascript:window.__pwned='link'\">click</a>",
	"javascript:window.__pwned='href'",
	"<svg onload=\"window.__pwned='svg'\"></svg>",
	"<!-- <style>body{display:none}</style>",
	"<iframe srcdoc=\"<script>parent.__pwned='frame'</script>\"></iframe>",
	"\u202egnp.exe\u202c \u200bzero\u2060width \u2066isolate\u2069 \u{E0041}\u{E0042}tags \u2028line\u2029para \u001b[31mred\u001b[0m &amp; &lt;",
];

/** One string holding every payload. */
export const HOSTILE = PAYLOADS.join(" | ");

/** A short hostile string for ids and names. */
const short = (i: number): string => `<b id=x${i}>${PAYLOADS[i % PAYLOADS.length]}\u202e${i}`;

/** Writes the session to `path`. */
export function writeHostileSession(path: string): void {
	const lines: unknown[] = [
		{ type: "session", version: 3, id: short(0), timestamp: "2025-01-31T09:00:00.000Z", cwd: HOSTILE },
	];
	let parent: string | null = null;
	let n = 0;
	const add = (entry: Record<string, unknown>): string => {
		const id = `${short(++n)}-${n}`;
		lines.push({ id, parentId: parent, timestamp: "2025-01-31T09:00:00.000Z", ...entry });
		parent = id;
		return id;
	};
	const ms = 1738314000000;
	add({ type: "model_change", provider: short(1), modelId: short(2) });
	add({ type: "thinking_level_change", thinkingLevel: short(3) });
	const first = add({ type: "message", message: { role: "user", content: HOSTILE, timestamp: ms } });
	add({
		type: "message",
		message: {
			role: "assistant",
			content: [
				{ type: "thinking", thinking: HOSTILE },
				{ type: "text", text: HOSTILE },
				{ type: "toolCall", id: short(4), name: short(5), arguments: { html: HOSTILE, [short(6)]: HOSTILE } },
			],
			api: "anthropic-messages",
			provider: short(7),
			model: short(8),
			usage: {
				input: 1,
				output: 1,
				cacheRead: 0,
				cacheWrite: 0,
				totalTokens: 2,
				cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
			},
			stopReason: short(9),
			errorMessage: HOSTILE,
			timestamp: ms + 1,
		},
	});
	const long = Array.from({ length: 120 }, (_, i) => `${i} ${PAYLOADS[i % PAYLOADS.length]}`).join("\n");
	add({
		type: "message",
		message: {
			role: "toolResult",
			toolCallId: short(4),
			toolName: short(10),
			content: [
				{ type: "text", text: long },
				{ type: "image", mimeType: "image/png\"><script>window.__pwned='mime'</script>", data: HOSTILE },
				{
					type: "image",
					mimeType: "image/png",
					data: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
				},
			],
			isError: true,
			timestamp: ms + 2,
		},
	});
	add({
		type: "message",
		message: {
			role: "bashExecution",
			command: HOSTILE,
			output: HOSTILE,
			exitCode: 1,
			cancelled: false,
			truncated: false,
			timestamp: ms + 3,
		},
	});
	add({
		type: "message",
		message: {
			role: "bashExecution",
			command: HOSTILE,
			output: HOSTILE,
			exitCode: 0,
			cancelled: false,
			truncated: false,
			excludeFromContext: true,
			timestamp: ms + 4,
		},
	});
	add({ type: "custom_message", customType: short(11), content: HOSTILE, display: true });
	add({ type: "message", message: { role: short(12), content: HOSTILE, timestamp: ms + 5 } });
	add({ type: "label", targetId: first, label: HOSTILE });
	add({ type: "custom", customType: short(13), data: { html: HOSTILE } });
	add({
		type: "message",
		message: { role: "user", content: [{ type: "text", text: `last: ${HOSTILE}` }], timestamp: ms + 6 },
	});
	writeFileSync(path, `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
}

/** Writes a plugin module whose name is hostile and whose `afterConvert` tap rewrites the last message. */
export function writeHostilePlugin(dir: string): string {
	const path = join(dir, "hostile-plugin.mjs");
	writeFileSync(
		path,
		`export default {
	name: ${JSON.stringify(`hostile:${PAYLOADS[0]}${PAYLOADS[8]}`)},
	apply(registry) {
		registry.hooks.afterConvert.tap(${JSON.stringify(`tap:${PAYLOADS[2]}`)}, (messages) =>
			messages.map((m, i) => (i === messages.length - 1 ? { ...m, content: [{ type: "text", text: ${JSON.stringify(`rewritten ${PAYLOADS[1]}\nsecond line`)} }] } : m)),
		);
	},
};
`,
	);
	return path;
}
