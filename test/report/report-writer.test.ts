/**
 * The report is written in pieces, never as one string: data blocks of a few MiB, each item made and
 * dropped in turn, a bash run's text once; a message too long for a page is refused in one line that
 * names the limit, and nothing is written.
 */
import { existsSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { describe, expect, it } from "vitest";
import { createDefaultRegistry } from "../../src/preset.js";
import { reportData, reportSource } from "../../src/report/report-data.js";
import { writeReportFile } from "../../src/report/report-file.js";
import { ReportTooLargeError, writePage } from "../../src/report/report-writer.js";
import { dataBlocks, reportDataOf } from "../support/report-page.js";

function inputOf(messages: AgentMessage[]) {
	return { title: "t", facts: [], messages, explanation: createDefaultRegistry().explain(messages) };
}

/** `count` user messages of `size` characters each. */
const many = (count: number, size: number): AgentMessage[] =>
	Array.from({ length: count }, (_, i) => ({ role: "user", content: `${i} ${"x".repeat(size)}`, timestamp: i }));

describe("writePage", () => {
	it("should write the page in pieces of about a MiB, the lists in blocks of a few MiB, and read back the same data", () => {
		const input = inputOf(many(3_000, 3_000));
		const writes: string[] = [];
		writePage({ write: (text) => writes.push(text) }, reportSource(input));
		const page = writes.join("");
		expect(writes.length).toBeGreaterThan(8);
		expect(Math.max(...writes.map((w) => w.length))).toBeLessThan(1.1 * 1024 * 1024);
		const blocks = dataBlocks(page);
		expect(blocks.filter((block) => block.part === "output").length).toBeGreaterThan(1);
		for (const block of blocks) expect(block.text.length).toBeLessThan(4.1 * 1024 * 1024);
		expect(reportDataOf(page)).toEqual(JSON.parse(JSON.stringify(reportData(input))));
	});

	it("should hold a bash run's text once: its history message points at the model message beside it", () => {
		const output = "UNIQUE-OUTPUT-7f3a\n".repeat(50);
		const input = inputOf([
			{
				role: "bashExecution",
				command: "ls -la",
				output,
				exitCode: 0,
				cancelled: false,
				truncated: false,
				timestamp: 1,
			} as AgentMessage,
		]);
		const writes: string[] = [];
		writePage({ write: (text) => writes.push(text) }, reportSource(input));
		const page = writes.join("");
		expect(page.split("UNIQUE-OUTPUT-7f3a").length - 1).toBe(50);
		expect(reportDataOf(page).history[0]).toMatchObject({ within: 0 });
		expect(reportDataOf(page).history[0]?.parts).toBeUndefined();
	});

	it("should refuse a message too long for a page, in one line that names the limit", () => {
		const input = inputOf(many(2, 20_000));
		expect(() => writePage({ write() {} }, reportSource(input), undefined, 10_000)).toThrow(ReportTooLargeError);
		expect(() => writePage({ write() {} }, reportSource(input), undefined, 10_000)).toThrow(
			/^the report is too large to build: model message #0 takes more than 0\.01 MiB of page text, the most one message may take \(a browser holds about 512 MiB in one string\)\. [^\n]+$/,
		);
	});
});

describe("a report written to a file", () => {
	it("should leave no file behind when a message is too long for a page", () => {
		const dir = mkdtempSync(join(tmpdir(), "report-writer-"));
		const path = join(dir, "r.html");
		const input = inputOf(many(2, 20_000));
		expect(() => writeReportFile(path, [], (out) => writePage(out, reportSource(input), undefined, 10_000))).toThrow(
			ReportTooLargeError,
		);
		expect(existsSync(path)).toBe(false);
		expect(readdirSync(dir)).toEqual([]);
	});
});
