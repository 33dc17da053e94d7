/**
 * The CLI option table of docs/cli.md against the CLI itself: it lists exactly the options `--help`
 * prints, each with the argument `--help` gives it, and each of them is one the parser accepts.
 */
import { describe, expect, it } from "vitest";
import { parseCliArgs } from "../../src/cli/args.js";
import { cli, read } from "../fixtures/sessions/run-cli.js";

/** The long options in a text, with their `<argument>` when there is one: `--leaf <entryId>`. */
function optionsIn(text: string): string[] {
	const found: string[] = [];
	for (const word of text.split(/[\s`,|]+/)) {
		if (word.startsWith("--") && word.length > 2) found.push(word);
		else if (word.startsWith("<") && word.endsWith(">") && found.length > 0) found.push(`${found.pop()} ${word}`);
	}
	return found;
}

/** The first cell of each row of the docs/cli.md table under "| option", up to the blank line after it. */
function readmeOptions(): string[] {
	const lines = read("docs/cli.md").split("\n");
	const start = lines.findIndex((line) => /^\|\s*option\s*\|/.test(line));
	expect(start, "docs/cli.md has a CLI option table").toBeGreaterThan(-1);
	const cells: string[] = [];
	for (let i = start + 2; i < lines.length && lines[i]?.startsWith("|"); i++) {
		cells.push((lines[i] as string).split("|")[1] ?? "");
	}
	return optionsIn(cells.join(" "));
}

/** The options block of `--help`: the lines between "Options:" and the next blank line, first column only. */
async function helpOptions(): Promise<string[]> {
	const { code, stdout } = await cli(["--help"]);
	expect(code).toBe(0);
	const lines = stdout.split("\n");
	const start = lines.indexOf("Options:");
	expect(start, "--help has an Options: block").toBeGreaterThan(-1);
	const firsts: string[] = [];
	for (let i = start + 1; i < lines.length && lines[i] !== ""; i++) {
		// An option line starts with two spaces and a dash; a continuation line is indented further.
		const line = lines[i] as string;
		if (line.startsWith("  -")) firsts.push(line.trim().split("  ")[0] ?? "");
	}
	return optionsIn(firsts.join(" "));
}

describe("the CLI option table of docs/cli.md", () => {
	it("should list exactly the options of --help, with their arguments", async () => {
		const help = await helpOptions();
		expect(help).toContain("--json");
		expect(help).toContain("--max-input <size>");
		expect([...readmeOptions()].sort()).toEqual([...help].sort());
	});

	it("should document only options the parser accepts", async () => {
		for (const option of await helpOptions()) {
			const [name, argument] = option.split(" ");
			const argv = argument === undefined ? [name as string, "in.json"] : [name as string, "1", "in.json"];
			expect(() => parseCliArgs(argv), option).not.toThrow();
		}
	});
});
