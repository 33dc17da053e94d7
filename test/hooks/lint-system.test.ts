/**
 * `lint` and `blockImages` on pi 1.x histories, which hold `role: "system"` messages
 * (pi-ai 1.6 `SystemMessage`). 0.73.1's pi-ai types have no such role, so the messages here are
 * hand-made against a local structural type. Read off `@earendil-works/pi-ai` 1.6.0:
 *
 * - `api/transform-messages.js` holds a system message back while a tool call is unanswered
 *   (`heldSystemMessages`) and emits it after the results: it is neutral for tool-call pairing.
 * - `utils/transcript.js` / `utils/text.js` call `content.filter`, iterate `toolsAdded` /
 *   `toolsRemoved` with `for … of` and read each tool's `name`, and join `sections` as text: a system
 *   message of the wrong shape throws there (the request fails) or loses part of the prompt.
 * - A history whose system messages do not lead is no problem: pi's own loop writes one, and pi-ai
 *   folds it into a leading one or sends it in place.
 */
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { describe, expect, it } from "vitest";
import { blockImages, type LintError, type LintRule, lint } from "../../src/hooks/index.js";
import { createDefaultRegistry } from "../../src/preset.js";
import { assistant, collectErrors, T0, user } from "../support/fixtures.js";

/** pi-ai 1.6's `SystemMessage`, structurally. */
interface SystemMessage {
	role: "system";
	content: string | { type: "text"; text: string }[];
	sections?: Record<string, string | null>;
	toolsAdded?: { name: string; description: string; parameters: unknown }[];
	toolsRemoved?: { name: string }[];
	timestamp: number;
}

const system = (fields: Partial<SystemMessage> = {}): AgentMessage =>
	({ role: "system", content: "", timestamp: T0, ...fields }) as unknown as AgentMessage;

const read = { name: "read", description: "Read a file", parameters: { type: "object", properties: {} } };
const call = assistant([{ type: "toolCall", id: "call_1", name: "read", arguments: {} }]);
const result: AgentMessage = {
	role: "toolResult",
	toolCallId: "call_1",
	toolName: "read",
	content: [{ type: "text", text: "file" }],
	isError: false,
	timestamp: T0,
};
const reply = assistant([{ type: "text", text: "done" }], { stopReason: "stop" });

/** The rules lint reports for `history`, in order. */
function rulesOf(history: AgentMessage[], mode: "report" | "repair" = "report"): LintRule[] {
	const registry = createDefaultRegistry().use(lint({ mode }));
	const errors = collectErrors(registry);
	registry.convert(history);
	return errors.map((e) => (e as LintError).rule);
}

describe("lint on system messages", () => {
	it("should pass system messages through to the output (the registry treats system as a model role)", () => {
		const history = [system({ content: "You are pi.", toolsAdded: [read] }), user("hi")];
		expect(createDefaultRegistry().use(lint()).convert(history)).toEqual(history);
	});

	it.each([
		{
			kind: "between a tool call and its result",
			history: [user("go"), call, system({ toolsAdded: [read] }), result, reply],
		},
		{ kind: "after the result", history: [user("go"), call, result, system({ content: "patch" }), reply] },
		{ kind: "several, around the result", history: [user("go"), call, system(), result, system(), reply] },
	])("should treat a system message $kind as neutral: no orphan finding", ({ history }) => {
		expect(rulesOf(history)).toEqual([]);
	});

	it("should still find a call left unanswered when a system message stands where its result should be", () => {
		expect(rulesOf([user("go"), call, system(), user("next")])).toEqual(["orphan-tool-call"]);
	});

	it('should not find empty content in a system message (pi writes content: "" ones that only declare tools)', () => {
		expect(rulesOf([system({ content: "", toolsAdded: [read] }), user("hi")])).toEqual([]);
		expect(rulesOf([system({ content: [] }), user("hi")])).toEqual([]);
	});

	it("should never drop a system message in repair mode", () => {
		const history = [system({ content: "" }), user("hi")];
		expect(
			createDefaultRegistry()
				.use(lint({ mode: "repair" }))
				.convert(history),
		).toEqual(history);
	});

	it("should accept a history whose only system message is not the first (pi's loop writes one)", () => {
		expect(rulesOf([user("hi"), reply, system({ toolsAdded: [read] }), user("now read")])).toEqual([]);
	});

	it.each([
		{ kind: "content null", fields: { content: null } },
		{ kind: "content a number", fields: { content: 7 } },
		{ kind: "a null content block", fields: { content: [null] } },
		{ kind: "an image content block", fields: { content: [{ type: "image", data: "AAAA", mimeType: "image/png" }] } },
		{ kind: "sections a string", fields: { sections: "identity" } },
		{ kind: "a section that is a number", fields: { sections: { identity: 5 } } },
		{ kind: "toolsAdded an object", fields: { toolsAdded: { name: "read" } } },
		{ kind: "a tool without a name", fields: { toolsAdded: [{ description: "x" }] } },
		{ kind: "toolsRemoved a string", fields: { toolsRemoved: "read" } },
		{ kind: "a null in toolsRemoved", fields: { toolsRemoved: [null] } },
	])("should report invalid-system-message for $kind, which pi-ai cannot read", ({ fields }) => {
		const registry = createDefaultRegistry().use(lint());
		const errors = collectErrors(registry);
		registry.convert([system(fields as Partial<SystemMessage>), user("hi")]);
		expect(errors.map((e) => (e as LintError).rule)).toEqual(["invalid-system-message"]);
		expect(errors[0]?.message).toContain("system message pi-ai cannot read");
		expect((errors[0] as LintError).outputIndex).toBe(0);
	});

	it.each([
		{ kind: "sections with null values", fields: { sections: { identity: "You are pi.", skills: null } } },
		{ kind: "toolsAdded and toolsRemoved", fields: { toolsAdded: [read], toolsRemoved: [{ name: "bash" }] } },
		{ kind: "null tool lists (pi-ai reads them with ?? [])", fields: { toolsAdded: null, toolsRemoved: null } },
		{ kind: "text-block content", fields: { content: [{ type: "text", text: "You are pi." }] } },
	])("should accept a system message with $kind", ({ fields }) => {
		expect(rulesOf([system(fields as Partial<SystemMessage>), user("hi")])).toEqual([]);
	});

	it("should still check a system message's timestamp", () => {
		expect(rulesOf([system({ timestamp: Number.NaN }), user("hi")])).toEqual(["invalid-timestamp"]);
	});
});

describe("blockImages on system messages", () => {
	it.each([false, true])(
		"should leave a system message alone as the same object (strictImages %s)",
		(strictImages) => {
			const prompt = system({ content: [{ type: "text", text: "You are pi." }], toolsAdded: [read] });
			const odd = system({ content: [{ type: "image", data: "AAAA", mimeType: "image/png" }] as never });
			const output = createDefaultRegistry()
				.use(blockImages({ strictImages }))
				.convert([prompt, odd, user("hi")]);
			expect(output[0]).toBe(prompt);
			expect(output[1]).toBe(odd);
		},
	);
});
