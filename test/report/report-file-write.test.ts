/**
 * `writeReportFile`: the page goes to a new file beside the target, which replaces the target only
 * once complete; a symlink keeps pointing where it did.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readFile, writeReportFile } from "../../src/report/report-file.js";

describe("writeReportFile", () => {
	it("should leave the file it would replace as it was, and no other file, when the writing fails", () => {
		const dir = mkdtempSync(join(tmpdir(), "report-file-"));
		const target = join(dir, "r.html");
		writeFileSync(target, "the report before");
		expect(() =>
			writeReportFile(target, [], (out) => {
				out.write("<!doctype html>");
				throw new Error("disk full");
			}),
		).toThrow("disk full");
		expect(readFileSync(target, "utf8")).toBe("the report before");
		expect(readdirSync(dir)).toEqual(["r.html"]);
	});

	it("should replace the target of a symlink, keeping the link", () => {
		const dir = mkdtempSync(join(tmpdir(), "report-file-"));
		const real = join(dir, "real.html");
		writeFileSync(real, "old");
		symlinkSync(real, join(dir, "link.html"));
		const session = join(dir, "s.jsonl");
		writeFileSync(session, "{}\n");
		const { bytes } = writeReportFile(
			join(dir, "link.html"),
			[readFile(session) as NonNullable<ReturnType<typeof readFile>>],
			(out) => out.write("new"),
		);
		expect(bytes).toBe(3);
		expect(readFileSync(real, "utf8")).toBe("new");
		expect(existsSync(join(dir, "link.html"))).toBe(true);
	});
});
