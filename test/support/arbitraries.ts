/**
 * fast-check generators of pi histories (`AgentMessage[]`), rich in the edge cases the conversion
 * rules care about: every role, string and array content, images next to placeholder-equal text,
 * every exit-code shape of a bash run, optional keys present, `undefined` or absent, and text full
 * of backticks, fences, `</summary>`, unicode and lone surrogates.
 *
 * Every generated value is well-typed for pi-coding-agent 0.73.1 (the parity promise covers those),
 * except where a field's runtime shape in pi's stored sessions is wider than its type (`exitCode:
 * null`), which is documented on the arbitrary.
 */

import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type {
	AssistantMessage,
	ImageContent,
	SystemMessage as Pi1SystemMessage,
	Tool as Pi1Tool,
	TextContent,
	ThinkingContent,
	ToolCall,
	ToolResultMessage,
	Usage,
	UserMessage,
} from "@earendil-works/pi-ai";
import fc from "fast-check";
import type {
	BashExecutionMessage,
	BranchSummaryMessage,
	CompactionSummaryMessage,
	CustomMessage,
} from "../../src/messages.js";

/** pi histories come from JSON, so their objects have `Object.prototype` (fast-check would make some null-prototype). */
const PLAIN = { noNullPrototype: true } as const;

/** pi 0.73.1's image placeholder, written out here so the tests do not depend on the library's constant. */
export const UPSTREAM_IMAGE_PLACEHOLDER = "Image reading is disabled.";

/** Strings that hit the text rules: empty, backticks, fences, summary tags, unicode, the placeholder. */
export const EDGE_STRINGS: readonly string[] = Object.freeze([
	"",
	" ",
	"\n",
	"`",
	"```",
	"```\ncode\n```",
	"``` ts\nconst a = `b`;\n```",
	"</summary>",
	"<summary>\nnested\n</summary>",
	"\n</summary>\n",
	"héllo wörld",
	"日本語のテキスト",
	"👩‍👩‍👧 🎉",
	"\u0000\u001f\u007f",
	"\ud800",
	"\u2028\u2029",
	'"quoted" \\ backslash',
	"$(rm -rf /) && echo `id`",
	"(no output)",
	"(command cancelled)",
	UPSTREAM_IMAGE_PLACEHOLDER,
	`${UPSTREAM_IMAGE_PLACEHOLDER} `,
	"__proto__",
	"constructor",
]);

/** One of {@link EDGE_STRINGS}. */
export const arbEdgeString: fc.Arbitrary<string> = fc.constantFrom(...EDGE_STRINGS);

/** Any text: edge cases, concatenations of them, and random strings (UTF-16 units, graphemes, binary). */
export const arbText: fc.Arbitrary<string> = fc.oneof(
	{ weight: 4, arbitrary: arbEdgeString },
	{ weight: 2, arbitrary: fc.array(arbEdgeString, { minLength: 2, maxLength: 4 }).map((parts) => parts.join("")) },
	{ weight: 3, arbitrary: fc.string({ maxLength: 40 }) },
	{ weight: 1, arbitrary: fc.string({ unit: "grapheme", maxLength: 20 }) },
	{ weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 20 }) },
);

/** Text that is never empty, for fields where pi always writes something (ids, names). */
export const arbName: fc.Arbitrary<string> = fc.oneof(
	fc.constantFrom("bash", "read", "edit", "my-ext", "__proto__", "constructor", "toString"),
	fc.string({ minLength: 1, maxLength: 12 }),
);

/** A timestamp: mostly epoch milliseconds, sometimes any double (`-0`, `NaN`, infinities are numbers too). */
export const arbTimestamp: fc.Arbitrary<number> = fc.oneof(
	{ weight: 6, arbitrary: fc.integer({ min: 0, max: 4_102_444_800_000 }) },
	{ weight: 1, arbitrary: fc.constantFrom(0, 1_738_324_800_000) },
	{ weight: 1, arbitrary: fc.double() },
);

/** A `text` block; sometimes exactly the image placeholder, sometimes with a `textSignature`. */
export const arbTextContent: fc.Arbitrary<TextContent> = fc.oneof(
	{ weight: 3, arbitrary: fc.record({ type: fc.constant("text"), text: arbText }, PLAIN) },
	{
		weight: 2,
		arbitrary: fc.constant(null).map((): TextContent => ({ type: "text", text: UPSTREAM_IMAGE_PLACEHOLDER })),
	},
	{
		weight: 1,
		arbitrary: fc.record(
			{ type: fc.constant("text"), text: arbText, textSignature: fc.string({ maxLength: 8 }) },
			PLAIN,
		),
	},
) as fc.Arbitrary<TextContent>;

/** An `image` block. */
export const arbImageContent: fc.Arbitrary<ImageContent> = fc.record(
	{
		type: fc.constant("image"),
		data: fc.oneof(fc.constantFrom("", "iVBORw0KGgo="), fc.base64String({ maxLength: 24 })),
		mimeType: fc.constantFrom("image/png", "image/jpeg", "image/webp", "image/gif"),
	},
	PLAIN,
) as fc.Arbitrary<ImageContent>;

/** A block of `user` / `toolResult` / `custom` content: images are frequent, so runs of them occur. */
export const arbUserBlock: fc.Arbitrary<TextContent | ImageContent> = fc.oneof(
	{ weight: 3, arbitrary: arbTextContent },
	{ weight: 3, arbitrary: arbImageContent },
);

/** Array content of `user` / `toolResult` / `custom` messages, possibly empty. */
export const arbBlocks: fc.Arbitrary<(TextContent | ImageContent)[]> = fc.array(arbUserBlock, { maxLength: 7 });

/** A `thinking` block, sometimes redacted or signed. */
export const arbThinkingContent: fc.Arbitrary<ThinkingContent> = fc.record(
	{
		type: fc.constant("thinking"),
		thinking: arbText,
		thinkingSignature: fc.string({ maxLength: 8 }),
		redacted: fc.boolean(),
	},
	{ noNullPrototype: true, requiredKeys: ["type", "thinking"] },
) as fc.Arbitrary<ThinkingContent>;

/** A `toolCall` block with JSON arguments. */
export const arbToolCall: fc.Arbitrary<ToolCall> = fc.record(
	{
		type: fc.constant("toolCall"),
		id: arbName,
		name: arbName,
		arguments: fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), {
			maxKeys: 4,
			noNullPrototype: true,
		}),
		thoughtSignature: fc.string({ maxLength: 8 }),
	},
	{ noNullPrototype: true, requiredKeys: ["type", "id", "name", "arguments"] },
) as fc.Arbitrary<ToolCall>;

const arbCount = fc.nat({ max: 1_000_000 });
const arbCost = fc.double({ min: 0, max: 10, noNaN: true });

/** Token usage of an assistant message. */
export const arbUsage: fc.Arbitrary<Usage> = fc.record(
	{
		input: arbCount,
		output: arbCount,
		cacheRead: arbCount,
		cacheWrite: arbCount,
		totalTokens: arbCount,
		cost: fc.record(
			{
				input: arbCost,
				output: arbCost,
				cacheRead: arbCost,
				cacheWrite: arbCost,
				total: arbCost,
			},
			PLAIN,
		),
	},
	PLAIN,
);

/** A `user` message with string content or array content (text, images, placeholder-equal text). */
export const arbUserMessage: fc.Arbitrary<UserMessage> = fc.record(
	{
		role: fc.constant("user"),
		content: fc.oneof(arbText, arbBlocks),
		timestamp: arbTimestamp,
	},
	PLAIN,
) as fc.Arbitrary<UserMessage>;

/** An `assistant` message with text, thinking and tool-call blocks. */
export const arbAssistantMessage: fc.Arbitrary<AssistantMessage> = fc.record(
	{
		role: fc.constant("assistant"),
		content: fc.array(fc.oneof(arbTextContent, arbThinkingContent, arbToolCall), { maxLength: 5 }),
		api: fc.constantFrom("anthropic-messages", "openai-completions", "openai-responses", "faux"),
		provider: fc.constantFrom("anthropic", "openai", "google", "faux"),
		model: arbName,
		responseId: fc.string({ maxLength: 10 }),
		usage: arbUsage,
		stopReason: fc.constantFrom("stop", "length", "toolUse", "error", "aborted"),
		errorMessage: arbText,
		timestamp: arbTimestamp,
	},
	{
		noNullPrototype: true,
		requiredKeys: ["role", "content", "api", "provider", "model", "usage", "stopReason", "timestamp"],
	},
) as fc.Arbitrary<AssistantMessage>;

/** A `toolResult` message with text and image blocks and optional JSON `details`. */
export const arbToolResultMessage: fc.Arbitrary<ToolResultMessage> = fc.record(
	{
		role: fc.constant("toolResult"),
		toolCallId: arbName,
		toolName: arbName,
		content: arbBlocks,
		details: fc.jsonValue({ maxDepth: 2 }),
		isError: fc.boolean(),
		timestamp: arbTimestamp,
	},
	{ noNullPrototype: true, requiredKeys: ["role", "toolCallId", "toolName", "content", "isError", "timestamp"] },
) as fc.Arbitrary<ToolResultMessage>;

/**
 * Every shape an `exitCode` takes: `0`, positive, negative, `undefined`, `null` (what a killed
 * process leaves in pi's stored sessions, although the type says `number | undefined`), and the odd
 * numbers (`-0`, fractions, `NaN`, `Infinity`).
 */
export const arbExitCode: fc.Arbitrary<number | undefined> = fc.oneof(
	fc.constant(0),
	fc.integer({ min: 1, max: 255 }),
	fc.integer({ min: -2_147_483_648, max: -1 }),
	fc.constant(null as unknown as number),
	fc.constant(undefined),
	fc.constantFrom(-0, 1.5, Number.NaN, Number.POSITIVE_INFINITY),
);

/**
 * A `bashExecution` message: every exit-code shape, cancelled or not, truncated with or without
 * `fullOutputPath` (also `""` or `undefined`), output empty or full of backticks and fences,
 * `excludeFromContext` `true`, `false`, `undefined` or absent. `exitCode`, a required key, is
 * sometimes absent too.
 */
export const arbBashExecution: fc.Arbitrary<BashExecutionMessage> = fc
	.record(
		{
			role: fc.constant("bashExecution"),
			command: arbText,
			output: fc.oneof(fc.constant(""), arbText),
			exitCode: arbExitCode,
			cancelled: fc.boolean(),
			truncated: fc.boolean(),
			fullOutputPath: fc.oneof(fc.constantFrom("", "/tmp/pi-bash-1234.log", undefined), arbText),
			timestamp: arbTimestamp,
			excludeFromContext: fc.constantFrom(true, false, undefined),
		},
		{ noNullPrototype: true, requiredKeys: ["role", "command", "output", "cancelled", "truncated", "timestamp"] },
	)
	.map((message) => message as BashExecutionMessage);

/** A `custom` message with string or array content (the array may hold images) and optional `details`. */
export const arbCustomMessage: fc.Arbitrary<CustomMessage> = fc
	.record(
		{
			role: fc.constant("custom"),
			customType: arbName,
			content: fc.oneof(arbText, arbBlocks),
			display: fc.boolean(),
			details: fc.jsonValue({ maxDepth: 2 }),
			timestamp: arbTimestamp,
		},
		{ noNullPrototype: true, requiredKeys: ["role", "customType", "content", "display", "timestamp"] },
	)
	.map((message) => message as CustomMessage);

/** A `branchSummary` message; the summary may hold `</summary>`, backticks, unicode or be empty. */
export const arbBranchSummary: fc.Arbitrary<BranchSummaryMessage> = fc.record(
	{
		role: fc.constant("branchSummary"),
		summary: arbText,
		fromId: fc.oneof(fc.stringMatching(/^[0-9a-f]{8}$/), arbName),
		timestamp: arbTimestamp,
	},
	PLAIN,
) as fc.Arbitrary<BranchSummaryMessage>;

/** A `compactionSummary` message; the summary may hold `</summary>`, backticks, unicode or be empty. */
export const arbCompactionSummary: fc.Arbitrary<CompactionSummaryMessage> = fc.record(
	{
		role: fc.constant("compactionSummary"),
		summary: arbText,
		tokensBefore: fc.nat({ max: 2_000_000 }),
		timestamp: arbTimestamp,
	},
	PLAIN,
) as fc.Arbitrary<CompactionSummaryMessage>;

/** Any message of a pi-coding-agent 0.73.1 history, all seven roles. */
export const arbAgentMessage: fc.Arbitrary<AgentMessage> = fc.oneof(
	{ weight: 3, arbitrary: arbUserMessage },
	{ weight: 3, arbitrary: arbAssistantMessage },
	{ weight: 3, arbitrary: arbToolResultMessage },
	{ weight: 3, arbitrary: arbBashExecution },
	{ weight: 2, arbitrary: arbCustomMessage },
	{ weight: 1, arbitrary: arbBranchSummary },
	{ weight: 1, arbitrary: arbCompactionSummary },
);

/** Options of {@link arbHistoryOf}. */
export interface HistoryOptions {
	/** Most messages in a history (before repeats). Default 30. */
	maxLength?: number;
}

/**
 * A history of `message`s in which some message objects appear more than once (pi never does this,
 * but nothing forbids it, and it catches code that keys state on object identity).
 */
export function arbHistoryOf(
	message: fc.Arbitrary<AgentMessage>,
	options: HistoryOptions = {},
): fc.Arbitrary<AgentMessage[]> {
	return fc
		.tuple(
			fc.array(message, { maxLength: options.maxLength ?? 30, size: "max" }),
			fc.array(fc.nat(), { maxLength: 3 }),
		)
		.map(([messages, repeats]) => {
			const history = [...messages];
			if (messages.length > 0) {
				for (const at of repeats) history.push(messages[at % messages.length] as AgentMessage);
			}
			return history;
		});
}

/** A history of any messages, up to about 30 of them. */
export const arbHistory: fc.Arbitrary<AgentMessage[]> = arbHistoryOf(arbAgentMessage);

/** A history of only `user` and `toolResult` messages with array content: where `blockImages` does its work. */
export const arbImageHistory: fc.Arbitrary<AgentMessage[]> = arbHistoryOf(
	fc.oneof(
		fc.record(
			{
				role: fc.constant("user"),
				content: arbBlocks,
				timestamp: arbTimestamp,
			},
			PLAIN,
		) as fc.Arbitrary<UserMessage>,
		arbToolResultMessage,
		arbCustomMessage,
	),
	{ maxLength: 12 },
);

/**
 * Freezes `value` and everything reachable from it, so a conversion that writes to its input throws
 * (ES modules are strict mode). Returns `value`.
 */
export function deepFreeze<T>(value: T): T {
	if (value === null || typeof value !== "object" || Object.isFrozen(value)) return value;
	Object.freeze(value);
	for (const key of Reflect.ownKeys(value)) deepFreeze((value as Record<PropertyKey, unknown>)[key]);
	return value;
}

// pi 1.x (`@earendil-works/*` 1.6.0): system messages and `fromId: null`. The generators above are
// unchanged; these add what a 1.x history holds beside them.

/** A prompt section's name: pi's own kinds, names that are keys of `Object.prototype`, and random ones. */
export const arbSectionName: fc.Arbitrary<string> = fc.oneof(
	fc.constantFrom("identity", "tools", "skills", "agents-md", "<environment>", "__proto__", "constructor", "toString"),
	fc.string({ minLength: 1, maxLength: 10 }),
);

/** `SystemMessage.sections`: named prompt sections; `null` removes one. */
export const arbSections: fc.Arbitrary<Record<string, string | null>> = fc.dictionary(
	arbSectionName,
	fc.oneof({ weight: 3, arbitrary: arbText }, { weight: 1, arbitrary: fc.constant(null) }),
	{ minKeys: 1, maxKeys: 4, noNullPrototype: true },
);

/** A tool declaration (`toolsAdded[i]`): a JSON schema as `parameters`, sometimes `constrainedSampling: false`. */
export const arbToolDeclaration: fc.Arbitrary<Pi1Tool> = fc.record(
	{
		name: arbName,
		description: arbText,
		parameters: fc.oneof(
			fc.constant(null).map(() => ({ type: "object", properties: {} })),
			fc
				.dictionary(fc.string({ minLength: 1, maxLength: 8 }), fc.constantFrom("string", "number", "boolean"), {
					maxKeys: 3,
					noNullPrototype: true,
				})
				.map((fields) => ({
					type: "object",
					properties: Object.fromEntries(Object.entries(fields).map(([key, type]) => [key, { type }])),
					required: Object.keys(fields).slice(0, 1),
				})),
			fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), {
				maxKeys: 3,
				noNullPrototype: true,
			}),
		),
		constrainedSampling: fc.constant(false as const),
	},
	{ noNullPrototype: true, requiredKeys: ["name", "description", "parameters"] },
) as fc.Arbitrary<Pi1Tool>;

/**
 * A pi 1.x `system` message: string or text-block content (empty often, as pi's patches are), with
 * or without `sections` (`null` values included), `toolsAdded` (with `parameters`) and `toolsRemoved`.
 */
export const arbSystemMessage: fc.Arbitrary<Pi1SystemMessage> = fc.record(
	{
		role: fc.constant("system"),
		content: fc.oneof(
			{ weight: 2, arbitrary: fc.constant("") },
			{ weight: 3, arbitrary: arbText },
			{ weight: 2, arbitrary: fc.array(arbTextContent, { maxLength: 3 }) },
		),
		sections: arbSections,
		toolsAdded: fc.array(arbToolDeclaration, { maxLength: 3 }),
		toolsRemoved: fc.array(fc.record({ name: arbName }, PLAIN), { minLength: 1, maxLength: 2 }),
		timestamp: arbTimestamp,
	},
	{ noNullPrototype: true, requiredKeys: ["role", "content", "timestamp"] },
) as fc.Arbitrary<Pi1SystemMessage>;

/** A leading system message as pi 1.x writes one: the prompt, usually its sections and its tools. */
export const arbLeadingSystemMessage: fc.Arbitrary<Pi1SystemMessage> = fc.record(
	{
		role: fc.constant("system"),
		content: fc.oneof(arbText, fc.array(arbTextContent, { minLength: 1, maxLength: 3 })),
		sections: arbSections,
		toolsAdded: fc.array(arbToolDeclaration, { minLength: 1, maxLength: 4 }),
		timestamp: arbTimestamp,
	},
	{ noNullPrototype: true, requiredKeys: ["role", "content", "timestamp"] },
) as fc.Arbitrary<Pi1SystemMessage>;

/** A `branchSummary` message as pi 1.x types it (0.85.0): `fromId` may be `null`, and pi writes `"root"`. */
export const arbBranchSummary16: fc.Arbitrary<BranchSummaryMessage> = fc.record(
	{
		role: fc.constant("branchSummary"),
		summary: arbText,
		fromId: fc.oneof(
			fc.constant(null),
			fc.constant("root"),
			fc.stringMatching(/^[0-9a-f]{8}$/),
			arbName,
		) as fc.Arbitrary<string>,
		timestamp: arbTimestamp,
	},
	PLAIN,
) as fc.Arbitrary<BranchSummaryMessage>;

/** A `toolCall` block with pi 1.x's optional `namespace` (0.85) and `argumentsError` (1.3). */
export const arbToolCall16: fc.Arbitrary<ToolCall> = fc
	.tuple(
		arbToolCall,
		fc.record({ namespace: arbName, argumentsError: arbText }, { noNullPrototype: true, requiredKeys: [] }),
	)
	.map(([call, extra]) => ({ ...call, ...extra }) as ToolCall);

/**
 * An `assistant` message with pi 1.x's fields: `stopReason` `"pending"` / `"deferred"` (0.84) with a
 * `deferred` handle, `responseModel`, `providerThinkingLevel`, `thinkingLevel`, `rawStopReason`,
 * `endTurn`, `durationMs`, and tool calls with `namespace` / `argumentsError`.
 */
export const arbAssistantMessage16: fc.Arbitrary<AssistantMessage> = fc
	.tuple(
		arbAssistantMessage,
		fc.array(fc.oneof(arbTextContent, arbThinkingContent, arbToolCall16), { maxLength: 4 }),
		fc.record(
			{
				stopReason: fc.constantFrom("stop", "toolUse", "pending", "deferred"),
				responseModel: arbName,
				providerThinkingLevel: fc.constantFrom("low", "high", "xhigh"),
				thinkingLevel: fc.constantFrom("off", "minimal", "medium", "high"),
				deferred: fc.record(
					{ provider: arbName, modelId: arbName, api: arbName, id: arbName, pollAfterMs: fc.nat() },
					{ noNullPrototype: true, requiredKeys: ["provider", "modelId", "api", "id"] },
				),
				rawStopReason: arbName,
				endTurn: fc.boolean(),
				durationMs: fc.nat(),
			},
			{ noNullPrototype: true, requiredKeys: [] },
		),
	)
	.map(([message, content, extra]) => ({ ...message, content, ...extra }) as AssistantMessage);

/** A `toolResult` message with pi 1.x's `usage`, `nestedCalls` and `durationMs`. */
export const arbToolResultMessage16: fc.Arbitrary<ToolResultMessage> = fc
	.tuple(
		arbToolResultMessage,
		fc.record(
			{
				usage: arbUsage,
				nestedCalls: fc.record(
					{
						calls: fc.array(
							fc.record(
								{
									id: arbName,
									name: arbName,
									arguments: fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 1 }), {
										maxKeys: 2,
										noNullPrototype: true,
									}),
									status: fc.constantFrom("ok", "error", "unfinished"),
									durationMs: fc.nat(),
								},
								{ noNullPrototype: true, requiredKeys: ["id", "name", "status"] },
							),
							{ maxLength: 2 },
						),
						complete: fc.boolean(),
					},
					PLAIN,
				),
				durationMs: fc.nat(),
			},
			{ noNullPrototype: true, requiredKeys: [] },
		),
	)
	.map(([message, extra]) => ({ ...message, ...extra }) as ToolResultMessage);

/**
 * A `custom` message with an `excludeFromContext` key (`true`, `false` or `undefined`): no pi version
 * declares it on custom messages (0.73.1 through 1.6.0 send such a message), extensions set it anyway.
 */
export const arbCustomMessageWithExclude: fc.Arbitrary<CustomMessage> = fc
	.tuple(arbCustomMessage, fc.constantFrom(true, false, undefined))
	.map(([message, excludeFromContext]) => ({ ...message, excludeFromContext }) as CustomMessage);

/** A message of a pi 1.x history: every role of {@link arbAgentMessage}, plus `system`, and `fromId: null`. */
export type Pi1HistoryMessage = AgentMessage | Pi1SystemMessage;

/** Any message of a pi 1.6.0 history, the 1.x fields of assistant and tool-result messages included. */
export const arbAgentMessage16: fc.Arbitrary<Pi1HistoryMessage> = fc.oneof(
	{ weight: 3, arbitrary: arbUserMessage },
	{ weight: 2, arbitrary: arbAssistantMessage },
	{ weight: 1, arbitrary: arbAssistantMessage16 },
	{ weight: 2, arbitrary: arbToolResultMessage },
	{ weight: 1, arbitrary: arbToolResultMessage16 },
	{ weight: 3, arbitrary: arbBashExecution },
	{ weight: 1, arbitrary: arbCustomMessage },
	{ weight: 1, arbitrary: arbCustomMessageWithExclude },
	{ weight: 2, arbitrary: arbBranchSummary16 },
	{ weight: 1, arbitrary: arbCompactionSummary },
	{ weight: 3, arbitrary: arbSystemMessage },
);

/** A pi 1.6.0 history with system messages anywhere (or none), repeats included. */
export const arbHistory16: fc.Arbitrary<Pi1HistoryMessage[]> = arbHistoryOf(
	arbAgentMessage16 as fc.Arbitrary<AgentMessage>,
) as fc.Arbitrary<Pi1HistoryMessage[]>;

/** A pi 1.6.0 history as the `Agent` and `AgentSession` build one: a leading system message, then anything. */
export const arbLeadingSystemHistory16: fc.Arbitrary<Pi1HistoryMessage[]> = fc
	.tuple(arbLeadingSystemMessage, arbHistory16)
	.map(([head, rest]): Pi1HistoryMessage[] => [head, ...rest]);

/** {@link arbImageHistory} with system messages among the image-bearing messages, and often one leading. */
export const arbImageHistory16: fc.Arbitrary<Pi1HistoryMessage[]> = fc
	.tuple(
		fc.option(arbLeadingSystemMessage, { nil: undefined }),
		arbHistoryOf(
			fc.oneof(
				fc.record(
					{ role: fc.constant("user"), content: arbBlocks, timestamp: arbTimestamp },
					PLAIN,
				) as fc.Arbitrary<UserMessage>,
				arbToolResultMessage,
				arbToolResultMessage16,
				arbCustomMessage,
				arbSystemMessage as fc.Arbitrary<unknown> as fc.Arbitrary<AgentMessage>,
			),
			{ maxLength: 12 },
		),
	)
	.map(([head, rest]): Pi1HistoryMessage[] => (head === undefined ? rest : [head, ...rest]));

/**
 * Pieces of text whose terminal width is not their length: CJK (2 columns each), emoji with and
 * without presentation selectors, ZWJ sequences, skin tones, flags and keycaps (2), combining marks
 * (0), tabs, invisible characters, variation-selector payloads after an emoji, and plain ASCII.
 */
const WIDE_PIECES: readonly string[] = Object.freeze([
	"中文提示：请修复失败的测试",
	"東京タワー",
	"한국어 텍스트",
	"✅",
	"✅ done ✅",
	"❤️",
	"❤️‍🔥",
	"👨‍👩‍👧‍👦",
	"👩🏽‍💻",
	"🏳️‍🌈",
	"🇯🇵",
	"1️⃣",
	"😀\u{e0100}\u{e0101}\u{e0102}\u{e0103}\u{e0104}",
	"e\u0301\u0302\u0303",
	"Z\u0351\u0352\u0353\u0354\u0355\u0356\u0357\u0358",
	"\t",
	"a\tb\t\tc",
	"\u200b\u200d\u2060",
	"\ufe0f",
	"ｆｕｌｌｗｉｄｔｈ",
	"ﾊﾝｶｸ",
	"…",
	"⟨U+FE0F⟩",
	" ",
	"ascii words ",
]);

/** Text for terminal-width properties: pieces of {@link WIDE_PIECES} and arbitrary code points, joined. */
export const arbTerminalText: fc.Arbitrary<string> = fc
	.array(
		fc.oneof(
			{ weight: 4, arbitrary: fc.constantFrom(...WIDE_PIECES) },
			fc.string({ unit: "grapheme", maxLength: 6 }),
		),
		{
			minLength: 1,
			maxLength: 60,
		},
	)
	.map((pieces) => pieces.join(""));
