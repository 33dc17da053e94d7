/**
 * How `/llm-context` tells the system prompt and tools of pi's next request: the prompt text read back
 * into pi 1.x's sections, the system message pi 1.x adds before the next prompt, and what pi's
 * extension API gives of the prompt and tools. The real pi CLIs check the result against request
 * bodies in llm-context-system-e2e.test.ts.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
	type NextSystem,
	pendingSystemMessage,
	promptSections,
	readNextSystem,
	type ToolDeclaration,
} from "../../src/pi/next-system.js";
import type { PiContext, PiExtensionApi } from "../../src/pi/pi-api.js";

/** pi 1.x's `buildSystemPrompt`: the preamble, then `<name>\n…\n</name>` per section, joined by blank lines. */
function render(sections: ReadonlyMap<string, string>): string {
	return [...sections.values()].filter((text) => text.length > 0).join("\n\n");
}

/** pi's sections: a preamble, then named ones wrapped in their tags. */
function sectionsOf(preamble: string, parts: readonly [string, string][]): Map<string, string> {
	const sections = new Map([["preamble", preamble]]);
	for (const [name, content] of parts) sections.set(name, `<${name}>\n${content}\n</${name}>`);
	return sections;
}

const read: ToolDeclaration = { name: "read", description: "Read a file", parameters: { type: "object" } };
const bash: ToolDeclaration = { name: "bash", description: "Run bash", parameters: { type: "object" } };

const PI_SECTIONS = sectionsOf("You are a coding assistant running inside pi.", [
	["tools", "- read: Read file contents\n\nAdditional tools may be available."],
	["rules", "- Be concise in your responses"],
	["cwd", "/home/me/app"],
]);
const WITH_AGENTS = sectionsOf("You are a coding assistant running inside pi.", [
	["tools", "- read: Read file contents\n\nAdditional tools may be available."],
	["rules", "- Be concise in your responses"],
	[
		"project_context",
		'Project-specific instructions:\n\n<project_instructions path="AGENTS.md">\nhi\n</project_instructions>',
	],
	["cwd", "/home/me/app"],
]);

/** A system message as pi 1.x writes the first one of a session. */
const written = (sections: ReadonlyMap<string, string>, tools: ToolDeclaration[]) => ({
	role: "system",
	content: "",
	sections: Object.fromEntries(sections),
	timestamp: 1,
	...(tools.length > 0 ? { toolsAdded: tools } : {}),
});

describe("promptSections", () => {
	it.each([
		["pi's sections", PI_SECTIONS],
		["a project context that holds tag-like lines of its own", WITH_AGENTS],
		["a preamble alone", new Map([["preamble", "You are pi."]])],
		[
			"a section whose text holds its own closing tag and a blank line",
			sectionsOf("You are pi.", [
				["project_context", "see </project_context>\n\n<cwd>\nnot a section\n</cwd>"],
				["cwd", "/app"],
			]),
		],
	])("should read %s back from the text pi renders, given the sections the transcript holds", (_name, sections) => {
		expect(promptSections(render(sections), sections)).toEqual(sections);
	});

	it("should read pi's sections back without knowing them", () => {
		expect(promptSections(render(WITH_AGENTS), new Map())).toEqual(WITH_AGENTS);
	});

	it("should say a text is not of pi's shape rather than guess", () => {
		expect(promptSections("You are pi.\n\n<cwd>\n/app", new Map())).toBeUndefined();
		expect(promptSections("You are pi.\n\n<cwd>\n/a\n</cwd>\n\n<cwd>\n/b\n</cwd>", new Map())).toBeUndefined();
	});

	it("should give back sections that render the text it read, whatever the text", () => {
		const piece = fc.oneof(
			fc.constantFrom("\n\n", "\n", "<cwd>\n", "\n</cwd>", "<tools>\n", "\n</tools>", "<", ">", "a", "x y"),
			fc.string({ maxLength: 6 }),
		);
		fc.assert(
			fc.property(fc.array(piece, { maxLength: 30 }), (pieces) => {
				const text = pieces.join("");
				const sections = promptSections(text, new Map());
				if (sections !== undefined) expect([...sections.values()].join("\n\n")).toBe(text);
			}),
		);
	});

	it("should give up on a text of many opening tags that never close, after one search to its end", () => {
		const text = `You are pi.${"\n\n<cwd>\n".repeat(50_000)}`;
		expect(promptSections(text, new Map())).toBeUndefined();
	});
});

describe("pendingSystemMessage", () => {
	const next = (sections: ReadonlyMap<string, string>, tools: ToolDeclaration[]): NextSystem => ({
		prompt: render(sections),
		tools,
	});

	it("should add the whole prompt and every tool to a history without a system message, as pi 1.x does", () => {
		expect(pendingSystemMessage([{ role: "user", content: "hi" }], next(PI_SECTIONS, [read, bash]), 7)).toEqual({
			role: "system",
			content: "",
			sections: Object.fromEntries(PI_SECTIONS),
			timestamp: 7,
			toolsAdded: [read, bash],
		});
	});

	it("should patch only the sections that changed, in pi's key order", () => {
		const pending = pendingSystemMessage([written(PI_SECTIONS, [read])], next(WITH_AGENTS, [read]), 7);
		expect(pending).toEqual({
			role: "system",
			content: "",
			sections: { project_context: WITH_AGENTS.get("project_context") },
			timestamp: 7,
		});
		expect(Object.keys(pending ?? {})).toEqual(["role", "content", "sections", "timestamp"]);
	});

	it("should remove a section pi no longer has and declare tool changes", () => {
		const changed = { ...read, description: "Read a file, now with offsets" };
		expect(pendingSystemMessage([written(WITH_AGENTS, [read, bash])], next(PI_SECTIONS, [changed]), 7)).toEqual({
			role: "system",
			content: "",
			sections: { project_context: null },
			timestamp: 7,
			toolsAdded: [changed],
			toolsRemoved: [{ name: "read" }, { name: "bash" }],
		});
	});

	it("should declare tool changes alone when the prompt is unchanged", () => {
		expect(pendingSystemMessage([written(PI_SECTIONS, [read])], next(PI_SECTIONS, [read, bash]), 7)).toEqual({
			role: "system",
			content: "",
			timestamp: 7,
			toolsAdded: [bash],
		});
	});

	it("should add nothing to a transcript that is up to date, replaying every system message in order", () => {
		const history = [
			written(PI_SECTIONS, [read, bash]),
			{ role: "user", content: "hi" },
			{
				role: "system",
				content: "",
				sections: { project_context: WITH_AGENTS.get("project_context") },
				timestamp: 2,
			},
			{ role: "system", content: "", toolsRemoved: [{ name: "bash" }], timestamp: 3 },
		];
		expect(pendingSystemMessage(history, next(WITH_AGENTS, [read]), 7)).toBeUndefined();
	});

	it("should keep a declaration the transcript holds with fields pi does not give extensions", () => {
		const sampled = { ...read, constrainedSampling: { type: "json_schema", strict: "prefer" } };
		expect(pendingSystemMessage([written(PI_SECTIONS, [sampled])], next(PI_SECTIONS, [read]), 7)).toBeUndefined();
	});

	it("should never throw on a history of anything", () => {
		const odd = [null, 5, "system", { role: "system", sections: "x", toolsAdded: [null, 3], toolsRemoved: "read" }];
		expect(pendingSystemMessage(odd, next(PI_SECTIONS, []), 7)?.sections).toEqual(Object.fromEntries(PI_SECTIONS));
	});
});

describe("readNextSystem", () => {
	const pi = (tools: unknown[], active: unknown) =>
		({ getAllTools: () => tools, getActiveTools: () => active }) as unknown as PiExtensionApi;
	const ctx = (prompt: unknown, hiddenTools?: string[]) =>
		({ getSystemPrompt: () => prompt, getSystemPromptOptions: () => ({ hiddenTools }) }) as unknown as PiContext;

	it("should give pi's prompt and its active tools in pi's order, as pi-ai declares them, less the hidden ones", () => {
		const schema = { type: "object", [Symbol.for("TypeBox.Kind")]: "Object" };
		const tools = [
			{ ...read, parameters: schema, promptGuidelines: ["x"], sourceInfo: {} },
			{ ...bash, sourceInfo: {} },
			{ name: "grep", description: "Search", parameters: {} },
		];
		expect(readNextSystem(pi(tools, ["bash", "read", "grep"]), ctx("You are pi.", ["grep"]))).toEqual({
			prompt: "You are pi.",
			tools: [bash, read],
		});
	});

	it("should say nothing where pi does not give a prompt, or throws", () => {
		expect(readNextSystem(pi([], []), {} as PiContext)).toBeUndefined();
		const throwing = {
			getSystemPrompt: () => {
				throw new Error("stale");
			},
		} as unknown as PiContext;
		expect(readNextSystem(pi([], []), throwing)).toBeUndefined();
	});
});
