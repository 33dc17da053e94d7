/**
 * The reader behind the docs test (test/support/doc-blocks.ts): install lines, which pi line an
 * import belongs to, and what a sample says it prints.
 */
import { describe, expect, it } from "vitest";
import {
	brokenPromise,
	type DocBlock,
	documentedOutput,
	fencedBlocks,
	installedPackages,
	type PiLine,
	readmeInstallLines,
	wrongLineImport,
} from "../support/doc-blocks.js";

describe("installedPackages", () => {
	it.each([
		["npm install convert-to-llm @earendil-works/pi-agent-core", ["convert-to-llm", "@earendil-works/pi-agent-core"]],
		["npm i convert-to-llm\nnpm install --save-dev typescript   # the compiler", ["convert-to-llm", "typescript"]],
		["npm install && npm start", undefined],
		["npm install", undefined],
		["pi install npm:convert-to-llm", undefined],
		["npm install convert-to-llm\nnpm test", undefined],
	])("should read %j as %j", (sh, expected) => {
		expect(installedPackages(sh)).toEqual(expected);
	});
});

describe("readmeInstallLines", () => {
	const readme = (...installs: string[]): DocBlock[] =>
		fencedBlocks("README.md", installs.map((sh) => `\`\`\`sh\n${sh}\n\`\`\`\n`).join("\n"));

	it("should find the install line of each pi line by the scope it adds", () => {
		expect(
			readmeInstallLines(
				readme(
					"npm install convert-to-llm @mariozechner/pi-ai",
					"pi install npm:convert-to-llm",
					"npm install convert-to-llm @earendil-works/pi-ai",
				),
			),
		).toEqual({
			"1.x": ["convert-to-llm", "@earendil-works/pi-ai"],
			"0.73.1": ["convert-to-llm", "@mariozechner/pi-ai"],
		});
	});

	it.each([
		[["npm install convert-to-llm @earendil-works/pi-ai"], /no install line for pi 0\.73\.1/],
		[["npm install convert-to-llm"], /without a pi scope/],
		[
			[
				"npm install convert-to-llm @earendil-works/pi-ai",
				"npm install convert-to-llm @earendil-works/pi-agent-core",
			],
			/a second install line for pi 1\.x/,
		],
	])("should say why %j is not one install line per pi line", (installs, why) => {
		expect(readmeInstallLines(readme(...installs))).toMatch(why);
	});
});

describe("wrongLineImport", () => {
	it.each<[PiLine, string, RegExp | undefined]>([
		["1.x", "convert-to-llm", undefined],
		["1.x", "convert-to-llm/preset", undefined],
		["1.x", "@earendil-works/pi-ai", undefined],
		["1.x", "node:fs", undefined],
		["1.x", "convert-to-llm/pi-0.73/preset", /pi 0\.73\.1 line's/],
		["1.x", "@mariozechner/pi-ai", /pi 0\.73\.1 line's/],
		["1.x", "convert-to-llm/earendil/filters", /deprecated alias .* use convert-to-llm\/filters/],
		["0.73.1", "convert-to-llm/pi-0.73", undefined],
		["0.73.1", "convert-to-llm/pi-0.73/session", undefined],
		["0.73.1", "@mariozechner/pi-agent-core", undefined],
		["0.73.1", "convert-to-llm/filters", /pi 1\.x line's/],
		["0.73.1", "convert-to-llm", /pi 1\.x line's/],
		["0.73.1", "@earendil-works/pi-ai", /pi 1\.x line's/],
		["0.73.1", "convert-to-llm/earendil", /deprecated alias/],
	])("should judge an import of pi=%s from %s", (pi, specifier, why) => {
		const found = wrongLineImport(pi, specifier);
		if (why === undefined) expect(found).toBeUndefined();
		else expect(found).toMatch(why);
	});
});

describe("documentedOutput", () => {
	it.each([
		["console.log(a, b); // 1 2", ["1 2"]],
		["console.log(a);\n// user assistant | user", ["user assistant | user"]],
		["console.log(\n\ta,\n\tb.map((x) => x.code),\n); // 1 [ 'X' ] false", ["1 [ 'X' ] false"]],
		['console.log(")", f(")")); // ) )', [") )"]],
		["console.log(a);\nconst b = 1; // not output", []],
		["console.warn(a); // on stderr", []],
		["console.log(a); // 1\nconsole.log(b);\nconsole.log(c); // 3", ["1", "3"]],
	])("should read what %j says it prints", (code, expected) => {
		expect(documentedOutput(code)).toEqual(expected);
	});
});

describe("brokenPromise", () => {
	it("should catch a sample that prints other counts than its comment says", () => {
		const said = documentedOutput(
			"console.log(model?.modelId, messages.length, modelInput.length, problems.length); // claude-sonnet-4-5 9 8 0",
		);
		expect(brokenPromise(said, "claude-sonnet-4-5 9 7 0\n")).toBe("claude-sonnet-4-5 9 8 0");
		expect(brokenPromise(said, "claude-sonnet-4-5 9 8 0\n")).toBeUndefined();
	});

	it.each([
		[["[ { role: 'user', content: 'x', … } ]"], "[ { role: 'user', content: 'x', timestamp: 1 } ]\n", undefined],
		[["1", "3"], "1\n2\n3\n", undefined],
		[["3", "1"], "1\n2\n3\n", "1"],
		[["1"], "10\n", "1"],
		[["a.b"], "axb\n", "a.b"],
		[[], "anything\n", undefined],
	])("should hold %j against %j", (said, printed, broken) => {
		expect(brokenPromise(said, printed)).toBe(broken);
	});
});
