/**
 * `blockImages`, rule by rule, against pi-coding-agent 0.73.1's `convertToLlmWithBlockImages`
 * (`dist/core/sdk.js`). pi's rule, read off its code:
 *
 * 1. only `user` and `toolResult` messages whose content is an array with at least one image change;
 * 2. each image becomes `{ type: "text", text: "Image reading is disabled." }` (the mapped array);
 * 3. a text block equal to the placeholder is removed when the block before it IN THE MAPPED ARRAY
 *    (not in the filtered one) is a text block equal to the placeholder.
 *
 * So a run of any length collapses to its first block, and text the user wrote that equals the
 * placeholder collapses with an image placeholder beside it (either side) or with itself, but only in
 * a message that holds an image.
 */
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { ImageContent, Message, TextContent, ToolResultMessage } from "@earendil-works/pi-ai";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { ConvertToLlmError } from "../../src/errors.js";
import {
	BLOCK_IMAGES_PLUGIN,
	type BlockImagesOptions,
	blockImages,
	IMAGE_PLACEHOLDER,
} from "../../src/hooks/block-images.js";
import { createDefaultRegistry } from "../../src/preset.js";
import { type Registry, Stage } from "../../src/registry/types.js";
import { arbImageHistory, deepFreeze } from "../support/arbitraries.js";
import { assistant } from "../support/fixtures.js";
import { arbThrowingUser } from "../support/hostile.js";
import { createUpstreamBlockImages } from "../support/upstream.js";

type Block = TextContent | ImageContent;

const P = "Image reading is disabled.";
const text = (value: string): TextContent => ({ type: "text", text: value });
const img = (data = "iVBORw0KGgo="): ImageContent => ({ type: "image", data, mimeType: "image/png" });
const PH = text(P);

let upstream: Awaited<ReturnType<typeof createUpstreamBlockImages>>;

beforeAll(async () => {
	upstream = await createUpstreamBlockImages(true);
});

afterAll(() => {
	upstream?.dispose();
});

const convertWith = (options: BlockImagesOptions, history: AgentMessage[]): Message[] =>
	createDefaultRegistry().use(blockImages(options)).convert(history);

/** The roles blockImages changes, each wrapping a content array. */
const wrappers: { role: string; wrap: (content: Block[]) => AgentMessage }[] = [
	{ role: "user", wrap: (content) => ({ role: "user", content, timestamp: 1 }) },
	{
		role: "toolResult",
		wrap: (content) => ({
			role: "toolResult",
			toolCallId: "call_1",
			toolName: "read",
			content,
			details: { path: "shot.png" },
			isError: false,
			timestamp: 2,
		}),
	},
	{
		role: "custom (converted to user)",
		wrap: (content) => ({ role: "custom", customType: "shots", content, display: true, timestamp: 3 }),
	},
];

/** pi 0.73.1's rule: [content, expected content]. */
const PI_RULE: { kind: string; content: Block[]; expected: Block[] }[] = [
	{ kind: "an image", content: [img()], expected: [PH] },
	{ kind: "two adjacent images", content: [img(), img("b")], expected: [PH] },
	{ kind: "three adjacent images", content: [img(), img("b"), img("c")], expected: [PH] },
	{
		kind: "images between texts",
		content: [text("a"), img(), text("b"), img()],
		expected: [text("a"), PH, text("b"), PH],
	},
	{ kind: "images separated by a text", content: [img(), text("x"), img()], expected: [PH, text("x"), PH] },
	{ kind: "user text equal to the placeholder after an image", content: [img(), PH], expected: [PH] },
	{ kind: "user text equal to the placeholder before an image", content: [PH, img()], expected: [PH] },
	{ kind: "two user placeholder texts before an image", content: [PH, PH, img()], expected: [PH] },
	{
		kind: "user placeholder text around an image",
		content: [PH, img(), PH, text("z")],
		expected: [PH, text("z")],
	},
	{
		kind: "a signed placeholder-equal text after an image",
		content: [img(), { type: "text", text: P, textSignature: "sig" }],
		expected: [PH],
	},
	{
		kind: "a signed placeholder-equal text before an image (kept: it comes first)",
		content: [{ type: "text", text: P, textSignature: "sig" }, img()],
		expected: [{ type: "text", text: P, textSignature: "sig" }],
	},
	{
		kind: "text that only starts with the placeholder",
		content: [text(`${P} `), img(), text(`${P}\n`)],
		expected: [text(`${P} `), PH, text(`${P}\n`)],
	},
	{ kind: "an image after text", content: [text("look:"), img()], expected: [text("look:"), PH] },
];

describe.each(wrappers)("blockImages on a $role message", ({ wrap }) => {
	it.each(PI_RULE)("should turn $kind into what pi 0.73.1 sends", ({ content, expected }) => {
		const message = deepFreeze(wrap(content));
		const ours = convertWith({ enabled: true }, [message]);
		const theirs = upstream.convert([message]);
		expect(ours).toHaveLength(1);
		expect(ours[0]?.content).toStrictEqual(expected);
		expect(theirs[0]?.content).toStrictEqual(expected);
		expect(ours).toStrictEqual(theirs);
		expect(JSON.stringify(ours)).toBe(JSON.stringify(theirs));
	});
});

describe("blockImages on content with holes", () => {
	/** A content array with holes where `holes` says (a sparse array, as a hand-made history may hold). */
	const sparse = (blocks: readonly unknown[], holes: readonly number[]) => {
		const content = [...blocks];
		for (const at of holes) delete content[at];
		return content;
	};
	it.each([
		{ kind: "an image, a hole, then text", blocks: [img(), text("x"), text("y")], holes: [1] },
		{ kind: "placeholders around a hole", blocks: [text(P), text("x"), text(P)], holes: [1] },
	])("should send what pi 0.73.1 sends for $kind", ({ blocks, holes }) => {
		const message = { role: "user", content: sparse(blocks, holes), timestamp: 1 } as AgentMessage;
		expect(JSON.stringify(convertWith({ enabled: true }, [message]))).toBe(
			JSON.stringify(upstream.convert([message])),
		);
	});

	it("should drop a hole as pi's map and filter do, where pi itself throws on the block after it", () => {
		const message = { role: "user", content: sparse([img(), text("x"), img()], [1]), timestamp: 1 } as AgentMessage;
		expect(() => upstream.convert([message])).toThrow(TypeError);
		expect(convertWith({ enabled: true }, [message])[0]?.content).toStrictEqual([PH, PH]);
		// strictImages counts a hole as a block that is not text: it is blocked, and then dropped as a hole.
		const holeOnly = { role: "user", content: sparse([text("x")], [0]), timestamp: 1 } as AgentMessage;
		expect(convertWith({ enabled: true, strictImages: true }, [holeOnly])[0]?.content).toStrictEqual([]);
	});
});

describe("blockImages: what it leaves alone", () => {
	const reply = assistant([text(P), text(P), { type: "thinking", thinking: "an image?" }], {
		stopReason: "stop",
		timestamp: 4,
	});
	const cases: { kind: string; message: AgentMessage }[] = [
		{
			kind: "a user message with string content equal to the placeholder",
			message: { role: "user", content: P, timestamp: 1 },
		},
		{
			kind: "a user message without images (even with two placeholder texts)",
			message: { role: "user", content: [PH, PH], timestamp: 1 },
		},
		{ kind: "a user message with empty array content", message: { role: "user", content: [], timestamp: 1 } },
		{
			kind: "a tool result without images",
			message: {
				role: "toolResult",
				toolCallId: "c",
				toolName: "bash",
				content: [text("ok"), PH, PH],
				isError: true,
				timestamp: 2,
			},
		},
		{ kind: "an assistant message", message: reply },
		{
			kind: "an assistant message holding an image block (ill-typed, pi leaves it too)",
			message: { ...reply, content: [img(), text("x")] } as unknown as AgentMessage,
		},
	];

	it.each(cases)("should pass $kind through as the same object", ({ message }) => {
		deepFreeze(message);
		const [ours] = convertWith({ enabled: true }, [message]);
		const [theirs] = upstream.convert([message]);
		expect(ours).toBe(message);
		expect(theirs).toBe(message);
	});

	it("should not touch bash runs, summaries or custom string content", () => {
		const history: AgentMessage[] = [
			{
				role: "bashExecution",
				command: P,
				output: P,
				exitCode: 0,
				cancelled: false,
				truncated: false,
				timestamp: 5,
			},
			{ role: "branchSummary", summary: P, fromId: "f", timestamp: 6 },
			{ role: "compactionSummary", summary: P, tokensBefore: 1, timestamp: 7 },
			{ role: "custom", customType: "c", content: P, display: true, timestamp: 8 },
		];
		const ours = convertWith({ enabled: true }, history);
		expect(ours).toStrictEqual(upstream.convert(history));
		expect(ours).toStrictEqual(createDefaultRegistry().convert(history));
	});
});

describe("blockImages: the messages it changes", () => {
	it("should build a new message with every other field kept, in the same key order", () => {
		const details = { path: "shot.png" };
		const message = deepFreeze<ToolResultMessage>({
			role: "toolResult",
			toolCallId: "call_1",
			toolName: "read",
			content: [text("see"), img()],
			details,
			isError: false,
			timestamp: 2,
		});
		const [blocked] = convertWith({}, [message]) as [ToolResultMessage];
		expect(blocked).not.toBe(message);
		expect(Object.keys(blocked)).toEqual(Object.keys(message));
		expect(blocked.details).toBe(details);
		expect(blocked.content).toStrictEqual([text("see"), PH]);
		expect(blocked.content[0]).toBe(message.content[0]);
		expect(message.content).toStrictEqual([text("see"), img()]);
	});

	it("should leave the custom message's own content array unchanged (it is passed by reference)", () => {
		const content = [img(), text("x")];
		const message: AgentMessage = { role: "custom", customType: "shots", content, display: true, timestamp: 3 };
		const [blocked] = convertWith({}, [message]);
		expect(blocked?.content).toStrictEqual([PH, text("x")]);
		expect(blocked?.content).not.toBe(content);
		expect(content).toStrictEqual([img(), text("x")]);
	});

	it("should keep messages around a changed one as the same objects and in order", () => {
		const before: AgentMessage = { role: "user", content: "first", timestamp: 1 };
		const changed: AgentMessage = { role: "user", content: [img()], timestamp: 2 };
		const after: AgentMessage = { role: "user", content: [text("last")], timestamp: 3 };
		const history = deepFreeze([before, changed, after, changed]);
		const output = convertWith({}, history);
		expect(output).toHaveLength(4);
		expect(output[0]).toBe(before);
		expect(output[2]).toBe(after);
		expect(output[1]?.content).toStrictEqual([PH]);
		expect(output[3]?.content).toStrictEqual([PH]);
		expect(output).toStrictEqual(upstream.convert(history));
	});

	it("should pass the array on as is when nothing changes", () => {
		const registry = createDefaultRegistry().use(blockImages());
		const seen: Message[][] = [];
		const spy = (messages: Message[]) => {
			seen.push(messages);
			return messages;
		};
		registry.hooks.afterConvert.tap({ name: "spy-before", stage: Stage.DEFAULT }, spy);
		registry.hooks.afterConvert.tap({ name: "spy-after", stage: Stage.VERIFY }, spy);
		registry.convert([{ role: "user", content: [text("no images")], timestamp: 1 }]);
		expect(seen).toHaveLength(2);
		expect(seen[1]).toBe(seen[0]);
	});

	it("should run at Stage.SANITIZE: after default-stage taps, before Stage.VERIFY taps", () => {
		const registry = createDefaultRegistry().use(blockImages());
		const late: Message = { role: "user", content: [img()], timestamp: 9 };
		let verified: Message[] = [];
		registry.hooks.afterConvert.tap({ name: "adds-an-image", stage: Stage.DEFAULT }, (messages) => [
			...messages,
			late,
		]);
		registry.hooks.afterConvert.tap({ name: "verify", stage: Stage.VERIFY }, (messages) => {
			verified = messages;
			return messages;
		});
		const output = registry.convert([]);
		expect(output).toStrictEqual([{ role: "user", content: [PH], timestamp: 9 }]);
		expect(verified).toBe(output);
	});

	it("should block in convertAsync too", async () => {
		const history: AgentMessage[] = [{ role: "user", content: [img(), img()], timestamp: 1 }];
		const registry = createDefaultRegistry().use(blockImages());
		expect(await registry.convertAsync(history)).toStrictEqual(upstream.convert(history));
	});

	it("should name its plugin and default to pi's placeholder", () => {
		expect(blockImages().name).toBe(BLOCK_IMAGES_PLUGIN);
		expect(BLOCK_IMAGES_PLUGIN).toBe("convert-to-llm:block-images");
		expect(IMAGE_PLACEHOLDER).toBe(P);
	});
});

describe("blockImages({ placeholder })", () => {
	const R = "[image removed]";
	it.each<{ kind: string; content: Block[]; expected: Block[] }>([
		{ kind: "an image", content: [img()], expected: [text(R)] },
		{ kind: "adjacent images", content: [img(), img(), img()], expected: [text(R)] },
		{
			kind: "user text equal to the custom placeholder next to an image",
			content: [text(R), img()],
			expected: [text(R)],
		},
		{
			kind: "pi's default placeholder text next to an image (not collapsed: it is not the placeholder here)",
			content: [PH, img(), PH],
			expected: [PH, text(R), PH],
		},
		{ kind: "images separated by text", content: [img(), text("x"), img()], expected: [text(R), text("x"), text(R)] },
	])("should apply pi's rule with the custom placeholder to $kind", ({ content, expected }) => {
		const [output] = convertWith({ placeholder: R }, [{ role: "user", content, timestamp: 1 }]);
		expect(output?.content).toStrictEqual(expected);
	});
});

describe("blockImages({ keepUserText: true })", () => {
	it.each<{ kind: string; content: Block[]; expected: Block[] }>([
		{ kind: "an image", content: [img()], expected: [PH] },
		{ kind: "adjacent images", content: [img(), img(), img()], expected: [PH] },
		{ kind: "user placeholder text after an image", content: [img(), PH], expected: [PH, PH] },
		{ kind: "user placeholder text before an image", content: [PH, img()], expected: [PH, PH] },
		{ kind: "user placeholder texts around an image", content: [PH, PH, img(), PH], expected: [PH, PH, PH, PH] },
		{ kind: "an image, user placeholder text, an image", content: [img(), PH, img()], expected: [PH, PH, PH] },
		{
			kind: "runs of images separated by text",
			content: [img(), img(), text("x"), img(), img()],
			expected: [PH, text("x"), PH],
		},
	])("should collapse only image placeholders and keep user text for $kind", ({ content, expected }) => {
		const [output] = convertWith({ keepUserText: true }, [{ role: "user", content, timestamp: 1 }]);
		expect(output?.content).toStrictEqual(expected);
	});

	it("should combine with a custom placeholder", () => {
		const [output] = convertWith({ keepUserText: true, placeholder: "[img]" }, [
			{ role: "user", content: [text("[img]"), img(), img()], timestamp: 1 },
		]);
		expect(output?.content).toStrictEqual([text("[img]"), text("[img]")]);
	});
});

describe("blockImages({ enabled })", () => {
	const history: AgentMessage[] = deepFreeze([
		{ role: "user", content: [text("look"), img()], timestamp: 1 },
		{
			role: "toolResult",
			toolCallId: "c",
			toolName: "read",
			content: [img()],
			isError: false,
			timestamp: 2,
		},
	]);

	it("should change nothing when enabled is false, as pi with blockImages off", () => {
		upstream.setBlockImages(false);
		try {
			const output = convertWith({ enabled: false }, history);
			expect(output).toStrictEqual(upstream.convert(history));
			expect(output[0]).toBe(history[0]);
			expect(output[1]).toBe(history[1]);
		} finally {
			upstream.setBlockImages(true);
		}
	});

	it("should block by default (enabled omitted)", () => {
		expect(convertWith({}, history)).toStrictEqual(upstream.convert(history));
		expect(convertWith({}, history)[1]?.content).toStrictEqual([PH]);
	});

	it("should read an enabled function on every conversion", () => {
		let blocked = true;
		const enabled = vi.fn(() => blocked);
		const registry = createDefaultRegistry().use(blockImages({ enabled }));
		const sequence = [true, false, false, true, false];
		for (const [i, value] of sequence.entries()) {
			blocked = value;
			upstream.setBlockImages(value);
			const output = registry.convert(history);
			expect(output).toStrictEqual(upstream.convert(history));
			expect(output[1]?.content).toStrictEqual(value ? [PH] : [img()]);
			expect(enabled.mock.calls.length).toBeGreaterThanOrEqual(i + 1);
		}
		upstream.setBlockImages(true);
	});
});

describe("blockImages on malformed content", () => {
	it.each([
		["a null block", null],
		["a string block", "text"],
		["a number block", 7],
	])("should still block every image when the content holds %s", (_name, junk) => {
		const registry = createDefaultRegistry().use(blockImages());
		const errors: unknown[] = [];
		registry.hooks.error.tap("collect", (error) => {
			errors.push(error);
		});
		const image = { type: "image", data: "aGk=", mimeType: "image/png" };
		const history = [{ role: "user", content: [junk, image, image], timestamp: 1 }] as unknown as AgentMessage[];
		for (const keepUserText of [false, true]) {
			const output = createDefaultRegistry().use(blockImages({ keepUserText })).convert(history);
			expect(output[0]?.content).toEqual([junk, { type: "text", text: "Image reading is disabled." }]);
		}
		expect(registry.convert(history)[0]?.content).toEqual([
			junk,
			{ type: "text", text: "Image reading is disabled." },
		]);
		expect(errors).toEqual([]);
	});
});

describe("blockImages when its setting throws", () => {
	it("should block images all the same and report the fault", () => {
		const registry = createDefaultRegistry().use(
			blockImages({
				enabled: () => {
					throw new Error("settings not loaded");
				},
			}),
		);
		const errors: { message: string; plugin?: string }[] = [];
		registry.hooks.error.tap("collect", (error) => {
			errors.push(error);
		});
		const image = { type: "image" as const, data: "aGk=", mimeType: "image/png" };
		const [output] = registry.convert([{ role: "user", content: [image], timestamp: 1 }]);
		expect(output?.content).toEqual([{ type: "text", text: "Image reading is disabled." }]);
		expect(errors).toHaveLength(1);
		expect(errors[0]?.message).toContain("settings not loaded");
		expect(errors[0]?.plugin).toBe("convert-to-llm:block-images");
	});
});

describe("blockImages fused into the conversion loop", () => {
	/** The same registry, with an interceptor that does nothing: the registry then runs blockImages as a tap. */
	const pair = (options: BlockImagesOptions, strict: boolean, extra: readonly ((r: Registry) => void)[]) =>
		[false, true].map((unfused) => {
			const registry = createDefaultRegistry({ strict }).use(blockImages(options));
			for (const add of extra) add(registry);
			if (unfused) registry.hooks.afterConvert.intercept({});
			const errors: unknown[] = [];
			registry.hooks.error.tap("collect", (error) => {
				errors.push([error.code, error.index, error.plugin, error.message]);
			});
			return { registry, errors };
		});
	const EXTRA: Record<string, (r: Registry) => void> = {
		lateTap: (r) => r.hooks.afterConvert.tap({ name: "late", stage: Stage.VERIFY }, (messages) => messages.slice(1)),
		earlyTap: (r) =>
			r.hooks.afterConvert.tap({ name: "early", stage: Stage.DEFAULT }, (messages) => [
				...messages,
				messages[0] as Message,
			]),
		lateOverride: (r) => r.register("custom", () => undefined, { name: "not-mine", customType: "shots" }),
	};

	it("should give what the tap gives: the same output, objects, reports and thrown errors", () => {
		fc.assert(
			fc.property(
				arbImageHistory,
				fc.array(fc.tuple(arbThrowingUser, fc.nat()), { maxLength: 2 }),
				fc.record({
					keepUserText: fc.boolean(),
					strictImages: fc.boolean(),
					enabled: fc.constantFrom(true, false, () => true),
				}),
				fc.boolean(),
				fc.subarray(Object.keys(EXTRA)),
				(history, hostile, options, strict, extras) => {
					const mixed: unknown[] = [...history];
					for (const [{ message }, at] of hostile) mixed.splice(at % (mixed.length + 1), 0, message);
					const [fused, unfused] = pair(
						options,
						strict,
						extras.map((name) => EXTRA[name] as (r: Registry) => void),
					) as [{ registry: Registry; errors: unknown[] }, { registry: Registry; errors: unknown[] }];
					const attempt = (registry: Registry) => {
						try {
							return { output: registry.convert(mixed as AgentMessage[]) };
						} catch (error) {
							return { thrown: [(error as ConvertToLlmError).code, (error as Error).message] };
						}
					};
					const a = attempt(fused.registry);
					const b = attempt(unfused.registry);
					expect(a).toStrictEqual(b);
					expect(fused.errors).toEqual(unfused.errors);
					// The same objects where blockImages keeps a message as is.
					const kept = (output?: Message[]) => output?.map((m) => mixed.includes(m));
					expect(kept(a.output)).toEqual(kept(b.output));
				},
			),
			{ numRuns: 300 },
		);
	});

	it("should sanitize once in the loop and not call the afterConvert hook when it is the only tap", () => {
		const registry = createDefaultRegistry().use(blockImages());
		const history: AgentMessage[] = [{ role: "user", content: [img()], timestamp: 1 }];
		expect(registry.convert(history)).toStrictEqual(upstream.convert(history));
		const calls: string[] = [];
		registry.hooks.afterConvert.intercept({ call: () => calls.push("call") });
		expect(registry.convert(history)).toStrictEqual(upstream.convert(history));
		expect(calls).toEqual(["call"]);
	});
});
