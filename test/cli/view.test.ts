/**
 * The CLI view's renderers on hand-made inputs: system messages (pi 1.x's prompt and tool loadout)
 * in the blocks and the footer, and what a session's `context_edit` entries did, in the view and in
 * `--explain`. `test/cli/cli.test.ts` runs the same through `main()` on session files.
 */
import type { Message } from "@earendil-works/pi-ai";
import { describe, expect, it } from "vitest";
import { terminalColumns } from "../../src/cli/terminal-columns.js";
import type { Explanation, MessageExplanation } from "../../src/registry/types.js";
import type { ContextEditEffect } from "../../src/session/index.js";
import { editNotes, renderHidden } from "../../src/view/context-edit-view.js";
import { renderExplanation } from "../../src/view/explain-view.js";
import { renderFooter, renderMessages, totals } from "../../src/view/render.js";
import { createStyle } from "../../src/view/style.js";
import { cli } from "../fixtures/sessions/run-cli.js";

const style = createStyle(false);
const columns = terminalColumns();
const tool = (name: string) => ({
	name,
	description: `${name} a file`,
	parameters: { type: "object", properties: {} },
});
const PROMPT = Array.from({ length: 62 }, () => "You are pi, a careful coding agent.").join("\n");
const leading = {
	role: "system",
	content: PROMPT,
	toolsAdded: ["read", "bash", "edit", "write"].map(tool),
	timestamp: 0,
};
const patch = {
	role: "system",
	content: "",
	sections: { skills: "<skills>\nreview\n</skills>", cwd: null },
	toolsAdded: [tool("grep")],
	toolsRemoved: [{ name: "write" }],
	timestamp: 3,
};
/** The terminal controls (C0, C1) and bidi overrides left in a line. */
const controls = (text = ""): string[] =>
	[...text].filter((c) => c < " " || (c >= "\u007f" && c <= "\u009f") || c === "\u202e");
const hi = { role: "user", content: "hi", timestamp: 1 };
const view = (messages: readonly unknown[], notes?: (string | undefined)[]): string[] => {
	const list = messages as Message[];
	return renderMessages(list, totals(list), { style, width: 120, columns, notes });
};

describe("the view of system messages", () => {
	it("should show the leading one as the system prompt, with its characters and tools, folded", () => {
		const lines = view([leading, hi]);
		expect(lines[0]).toBe(
			`#0 system · system prompt · ${PROMPT.length.toLocaleString("en-US")} chars · tools: read, bash, edit, write`,
		);
		expect(lines[0]).toContain("2,231 chars");
		expect(lines.slice(1, 3)).toEqual([
			"   You are pi, a careful coding agent.",
			"   You are pi, a careful coding agent.",
		]);
		expect(lines).toContain("   ⋯ 54 more lines (1,890 chars) ⋯");
		expect(lines.at(-2)).toBe("#1 user · 2 chars");
	});

	it("should show a later one as an update: the sections it changes or removes and the tools it adds or removes", () => {
		const lines = view([leading, hi, patch]);
		const at = lines.indexOf(
			"#2 system · system update · 25 chars · tools added: grep · tools removed: write · sections changed: skills · sections removed: cwd",
		);
		expect(at).toBeGreaterThan(0);
		expect(lines.slice(at + 1)).toEqual([
			"   § skills",
			"   <skills>",
			"   review",
			"   </skills>",
			"   § cwd (removed)",
		]);
	});

	it("should read text-block content, and say when there is no text at all", () => {
		const blocks = {
			role: "system",
			content: [{ type: "text", text: "one" }, { type: "image" }, { type: "text", text: "two" }],
			timestamp: 0,
		};
		expect(view([blocks])).toEqual(["#0 system · system prompt · 6 chars", "   one", "   two"]);
		expect(view([{ role: "system", content: "", toolsAdded: [tool("read")], timestamp: 0 }])).toEqual([
			"#0 system · system prompt · 0 chars · tools: read",
			"   (no content)",
		]);
	});

	it("should count the prompt in the characters and the tool schemas in the token estimate, as pi estimates them", () => {
		const counts = totals([leading, hi, patch] as unknown as Message[]);
		const schemas = JSON.stringify(leading.toolsAdded).length + JSON.stringify(patch.toolsAdded).length;
		expect(counts.chars).toBe(PROMPT.length + 2 + 25);
		expect(counts.tools).toBe(5);
		expect(counts.toolChars).toBe(schemas);
		const estimate =
			Math.ceil((PROMPT.length + JSON.stringify(leading.toolsAdded).length) / 4) +
			1 +
			Math.ceil((25 + JSON.stringify(patch.toolsAdded).length) / 4);
		expect(counts.tokens).toBe(estimate);
		expect(renderFooter(counts, 3, style)).toEqual([
			"── 3 model messages from 3 history messages: 2 system · 1 user",
			`   2,258 characters · 5 tools declared (${schemas.toLocaleString("en-US")} schema characters) · ~${estimate.toLocaleString("en-US")} tokens (chars/4 as pi estimates, 1,200 per image, tool schemas as JSON)`,
		]);
	});

	it("should keep the footer as it was when no system message declares a tool", () => {
		const counts = totals([hi] as Message[]);
		expect(renderFooter(counts, 1, style)[1]).toBe(
			"   2 characters · ~1 token (chars/4 as pi estimates, 1,200 per image)",
		);
	});

	it("should show, not send, control and bidi characters in tool and section names, and cut long lists and names", () => {
		const hostile = {
			role: "system",
			content: "\u001b[2Jx",
			sections: { "s\u009b2K": "v" },
			toolsAdded: [
				tool("re\u202Ead"),
				tool("x".repeat(100_000)),
				...Array.from({ length: 14 }, (_, i) => tool(`t${i}`)),
			],
			timestamp: 0,
		};
		const [header, ...body] = view([hostile]);
		expect(controls(header)).toEqual([]);
		expect(header).toContain(`${"x".repeat(39)}…`);
		expect(header).toContain("+4 more");
		expect(header?.length).toBeLessThan(400);
		expect(body.flatMap((line) => controls(line))).toEqual([]);
	});

	it("should not throw on system messages a plugin filled with junk", () => {
		const big = {
			role: "system",
			content: 7,
			sections: [1, 2],
			toolsAdded: [null, { name: 5 }, { parameters: 10n }],
			toolsRemoved: "all",
			timestamp: 0,
		};
		const throwing = {
			role: "system",
			content: "",
			timestamp: 0,
			sections: new Proxy(
				{},
				{
					ownKeys() {
						throw new Error("no");
					},
				},
			),
		};
		expect(view([big, throwing])[0]).toBe("#0 system · system prompt · 0 chars · tools: ?, 5, ?");
		expect(totals([big] as unknown as Message[]).toolChars).toBe(0);
	});
});

const item = (index: number, outputs: number[], role = "user"): MessageExplanation => ({
	index,
	role,
	customType: undefined,
	plugin: "convert-to-llm:model-roles",
	outputs,
	dropped: undefined,
	droppedBy: undefined,
	errors: [],
});
/** History [a1 assistant (replaced), u2 user] from the session [u1 (hidden), a1, u2]. */
const output = [
	{
		role: "assistant",
		content: [{ type: "text", text: "[elided]" }],
		provider: "p",
		model: "m",
		stopReason: "stop",
		timestamp: 2,
	},
	{ role: "user", content: "continue", timestamp: 3 },
] as unknown as Message[];
const explanation: Explanation = { output, messages: [item(0, [0], "assistant"), item(1, [1])], taps: [], errors: [] };
const edits: ContextEditEffect[] = [
	{ editId: "e0000001", targetId: "u0000001", effect: "hidden", index: 0, roles: ["user"] },
	{ editId: "e0000002", targetId: "a0000001", effect: "replaced", index: 0, roles: ["assistant"] },
];

describe("the view of context_edit entries", () => {
	it("should say on a message whose content an edit replaced which edit it was", () => {
		const notes = editNotes(edits, 2, explanation);
		expect(notes).toEqual(["content replaced by context_edit e0000002", undefined]);
		expect(view(output, notes)[0]).toBe(
			"#0 assistant · p/m · stop · 8 chars · content replaced by context_edit e0000002",
		);
	});

	it("should list the stored entries an edit hid, which no block shows", () => {
		expect(renderHidden(edits, style)).toEqual([
			"── Not sent: 1 stored entry hidden by context_edit (the file keeps them)",
			"   entry u0000001 (user) hidden by context_edit e0000001",
		]);
		expect(renderHidden([], style)).toEqual([]);
		expect(renderHidden(undefined, style)).toEqual([]);
	});

	it("should list a hidden entry in --explain where it would have been, and a replaced one on its line", () => {
		const lines = renderExplanation(explanation, output as never, ["a0000001", "u0000002"], style, edits);
		expect(lines).toEqual([
			"── Why: each history message, and what it became",
			"   [-] user       entry u0000001  hidden by context_edit e0000001, not sent",
			"   [0] assistant  entry a0000001  → #0 by convert-to-llm:model-roles · content replaced by context_edit e0000002",
			"   [1] user       entry u0000002  → #1 by convert-to-llm:model-roles",
		]);
	});

	it("should list a hidden last entry after the history, and say nothing when the history no longer lines up", () => {
		const last: ContextEditEffect[] = [{ editId: "e9", targetId: "u9", effect: "hidden", index: 2, roles: ["user"] }];
		expect(renderExplanation(explanation, output as never, ["a", "b"], style, last).at(-1)).toBe(
			"   [-] user       entry u9  hidden by context_edit e9, not sent",
		);
		// A beforeConvert tap changed the history: its indices no longer name the session's messages.
		expect(editNotes(edits, 5, explanation)).toBeUndefined();
		expect(renderExplanation(explanation, output as never, ["a"], style, edits).join("\n")).not.toContain(
			"context_edit",
		);
	});

	it("should sanitize and cut ids from the file", () => {
		const hostile: ContextEditEffect[] = [
			{
				editId: "\u001b]52;c;x\u0007",
				targetId: "y".repeat(10_000),
				effect: "hidden",
				index: 0,
				roles: ["\u202Euser"],
			},
		];
		const [, line] = renderHidden(hostile, style);
		expect(controls(line)).toEqual([]);
		expect(line?.length).toBeLessThan(160);
	});
});

describe("the view of long and hostile labels", () => {
	const long = (c: string) => `\u001b]52;c;${c.repeat(100_000)}\u0007`;
	const hostile = [
		{
			role: "assistant",
			content: [{ type: "text", text: "ok" }],
			provider: long("p"),
			model: long("m"),
			stopReason: long("s"),
			timestamp: 0,
		},
		{ role: "toolResult", toolCallId: "c", toolName: long("t"), content: [], isError: false, timestamp: 0 },
		{ role: long("r"), content: "x", timestamp: 0 },
	] as unknown as Message[];
	const hostileItem = (index: number): MessageExplanation => ({
		...item(index, [index], long("r")),
		customType: long("c"),
		plugin: long("n"),
	});
	const hostileExplanation: Explanation = {
		output: hostile,
		messages: [hostileItem(0), hostileItem(1), { ...hostileItem(2), outputs: [], dropped: long("d") as never }],
		taps: [{ hook: "afterConvert", plugin: long("n"), changed: [0], removed: 0, added: 0 }] as never,
		errors: [],
	};
	const ids = [long("i"), long("i"), long("i")];

	it("should sanitize and cut provider, model, stopReason, toolName and roles in the headers and the footer", () => {
		const counts = totals(hostile);
		const lines = [
			...renderMessages(hostile, counts, { style, width: 120, columns }),
			...renderFooter(counts, 3, style),
		];
		for (const line of lines) {
			expect(controls(line)).toEqual([]);
			expect(line.length).toBeLessThan(300);
		}
		expect(lines[0]).toContain(`${"p".repeat(30)}…/`);
	});

	it("should sanitize and cut roles, customTypes, entry ids, plugin names and drop reasons in --explain", () => {
		const lines = renderExplanation(hostileExplanation, hostile as never, ids, style);
		expect(lines.length).toBeGreaterThan(4);
		for (const line of lines) {
			expect(controls(line)).toEqual([]);
			expect(line.length).toBeLessThan(400);
		}
	});
});

describe('the view of image blocks not typed "image"', () => {
	const odd = [
		{
			role: "user",
			content: [
				{ type: "Image", mimeType: "image/png", data: "AAAA" },
				{ mimeType: "image/png", data: "AAAA" },
				{ type: "text", text: "hi" },
			],
			timestamp: 0,
		},
		{ role: "assistant", content: [{ type: "weird" }], provider: "p", model: "m", stopReason: "stop", timestamp: 1 },
	] as unknown as Message[];

	it("should count and show every non-text block of a user or toolResult message as the image pi-ai sends", () => {
		const counts = totals(odd);
		expect(counts.images).toBe(2);
		expect(counts.chars).toBe(2);
		expect(view(odd).slice(1, 3)).toEqual([
			"   [image (type Image) image/png · 3 B]",
			"   [image (type missing) image/png · 3 B]",
		]);
	});

	it("should keep an assistant's unknown block a block, not an image", () => {
		expect(view(odd).at(-1)).toBe("   [weird block]");
	});
});

describe("--explain on a history whose getters throw", () => {
	it("should say why an excluded message was dropped without reading it twice into a throw", () => {
		const throwing = Object.defineProperty({ role: "bashExecution" }, "excludeFromContext", {
			get() {
				throw new Error("no");
			},
		});
		const flipping = {
			excludeFromContext: true,
			get role(): string {
				throw new Error("no");
			},
		};
		const dropped = (index: number, why: "converter" | "excluded"): MessageExplanation => ({
			...item(index, []),
			dropped: why,
		});
		const explained: Explanation = {
			output: [],
			messages: [dropped(0, "converter"), dropped(1, "excluded"), dropped(2, "converter")],
			taps: [],
			errors: [],
		};
		const lines = renderExplanation(explained, [throwing, flipping, flipping] as never, undefined, style);
		expect(lines.slice(1)).toEqual([
			"   [0] user  dropped by convert-to-llm:model-roles (its converter returned null)",
			"   [1] user  dropped, excluded from context by convert-to-llm:model-roles",
			"   [2] user  dropped, excluded from context by convert-to-llm:model-roles",
		]);
	});
});

describe("the view of values that have no primitive", () => {
	/** JSON can hold it: `String()` throws on it ("Cannot convert object to primitive value"). */
	const NO_PRIMITIVE = { valueOf: 0, toString: 0 };
	const assistant = (content: unknown[], extra: object = {}) => ({
		role: "assistant",
		content,
		provider: "p",
		model: "m",
		stopReason: "stop",
		timestamp: 0,
		...extra,
	});
	const fields: { field: string; message: object }[] = [
		{ field: "a text block's text", message: { role: "user", content: [{ type: "text", text: NO_PRIMITIVE }] } },
		{ field: "a thinking block's thinking", message: assistant([{ type: "thinking", thinking: NO_PRIMITIVE }]) },
		{ field: "a tool call's name", message: assistant([{ type: "toolCall", id: "c", name: NO_PRIMITIVE }]) },
		{
			field: "an image's mimeType",
			message: { role: "user", content: [{ type: "image", data: "AAAA", mimeType: NO_PRIMITIVE }] },
		},
		{ field: "a block's type", message: assistant([{ type: NO_PRIMITIVE }]) },
		{ field: "an assistant's errorMessage", message: assistant([], { errorMessage: NO_PRIMITIVE }) },
		{
			field: "a system message's text block",
			message: { role: "system", content: [{ type: "text", text: NO_PRIMITIVE }] },
		},
		{ field: "a system message's section", message: { role: "system", content: "", sections: { s: NO_PRIMITIVE } } },
	];

	it.each(fields)("should show $field as [object Object] in the view and in --explain", async ({ message }) => {
		const stdin = JSON.stringify([{ timestamp: 0, ...message }]);
		for (const argv of [["-"], ["--explain", "-"]]) {
			const run = await cli(argv, { stdin });
			expect(run.stderr).not.toContain("unexpected error");
			expect(run.code).toBe(0);
			expect(run.stdout).toContain("[object Object]");
		}
	});

	it("should show a revoked proxy and a throwing getter without ending the view", () => {
		const { proxy, revoke } = Proxy.revocable({}, {});
		revoke();
		const throwing = {
			get toString(): never {
				throw new Error("no");
			},
		};
		const list = [
			{ role: "user", content: [{ type: "text", text: proxy }], timestamp: 0 },
			assistant([{ type: "toolCall", id: "c", name: throwing, arguments: { big: 1n } }]),
		] as unknown as Message[];
		const lines = renderMessages(list, totals(list), { style, width: 120, columns });
		expect(lines[1]).toBe("   [a value that cannot be shown]");
		expect(lines[3]).toBe("   → [object Object] [object Object]");
	});
});

describe("the view's counts", () => {
	it("should say 1 AgentMessage, 1 char and 1 more warning in the singular", async () => {
		const one = await cli(["-"], { stdin: JSON.stringify([{ role: "user", content: "x", timestamp: 0 }]) });
		expect(one.stdout.split("\n")[0]).toBe("stdin · JSON of 1 AgentMessage");
		expect(one.stdout).toContain("#0 user ← user [0] · 1 char\n");
		const two = await cli(["-"], {
			stdin: JSON.stringify([
				{ role: "user", content: "xy", timestamp: 0 },
				{ role: "user", content: "z", timestamp: 0 },
			]),
		});
		expect(two.stdout.split("\n")[0]).toBe("stdin · JSON of 2 AgentMessages");
		const unknown = (n: number) => Array.from({ length: n }, (_, i) => ({ role: `ticket${i}`, timestamp: 0 }));
		const eleven = await cli(["-"], { stdin: JSON.stringify(unknown(11)) });
		expect(eleven.stderr.trim().split("\n").at(-1)).toBe(
			"convert-to-llm: … and 1 more warning (run with --explain to see each message's fate)",
		);
		const twelve = await cli(["-"], { stdin: JSON.stringify(unknown(12)) });
		expect(twelve.stderr).toContain("… and 2 more warnings");
	});
});
