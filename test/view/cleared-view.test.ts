import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { describe, expect, it } from "vitest";
import { terminalColumns } from "../../src/cli/terminal-columns.js";
import { clearToolResults } from "../../src/filters/index.js";
import { createDefaultRegistry } from "../../src/preset.js";
import { type ClearedResult, clearedResults, clearedText } from "../../src/view/cleared-view.js";
import { createStyle } from "../../src/view/style.js";
import { renderConversion } from "../../src/view/view.js";
import { toolHistory } from "../support/tool-history.js";

const style = createStyle(false);
const history = toolHistory("x".repeat(12_400)) as AgentMessage[];
const clearing = () =>
	createDefaultRegistry().use(clearToolResults({ trigger: { tokens: 1 }, keep: { messages: 0 }, clearAtLeast: 0 }));

function view(explain: boolean, registry = clearing()): string[] {
	const explanation = registry.explain(history);
	return renderConversion({ explanation, messages: history, explain, style, width: 200, columns: terminalColumns() });
}

describe("clearedResults", () => {
	it("should name the plugin and the size in the history of each cleared tool result, and nothing else", () => {
		const cleared = clearedResults(clearing().explain(history), history);
		expect(cleared?.[2]).toEqual({ plugin: "convert-to-llm:clear-tool-results", chars: 12_400, images: 0 });
		expect(cleared?.filter((item) => item !== undefined)).toHaveLength(1);
		expect(clearedText(cleared?.[2] as ClearedResult)).toBe(
			"cleared by convert-to-llm:clear-tool-results (was 12,400 characters)",
		);
	});

	it("should find nothing without the clearing plugin", () => {
		expect(clearedResults(createDefaultRegistry().explain(history), history)).toBeUndefined();
	});
});

describe("renderConversion with a cleared tool result", () => {
	it("should mark the cleared result with its plugin and size, and show the placeholder as its body", () => {
		const lines = view(false);
		const at = lines.findIndex((line) => line.startsWith("#2 toolResult"));
		expect(lines[at]).toContain("· cleared by convert-to-llm:clear-tool-results (was 12,400 characters)");
		expect(lines[at + 1]).toBe("   [cleared: read src/parse.ts, 12,400 characters]");
		expect(lines.filter((line) => line.includes("cleared by"))).toHaveLength(1);
	});

	it("should say in --explain which history message was cleared, by which plugin, beside what the tap replaced", () => {
		const lines = view(true);
		expect(lines.find((line) => line.includes("[2] toolResult"))).toContain(
			"→ #2 by convert-to-llm:model-roles · #2 cleared by convert-to-llm:clear-tool-results (was 12,400 characters)",
		);
		expect(lines).toContain("   afterConvert convert-to-llm:clear-tool-results: replaced #2");
	});

	it("should mark nothing when nothing was cleared", () => {
		expect(view(true, createDefaultRegistry()).some((line) => line.includes("cleared by"))).toBe(false);
	});
});
