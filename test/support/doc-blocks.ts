/**
 * The fenced code blocks of README.md and docs/*.md, and what their info strings ask of them: the
 * reader behind test/docs/code-blocks.test.ts.
 *
 * A block opens with three or more backticks (indented by up to three spaces), then an info string:
 * `ts pi=1.x run`, `ts pi=0.73.1 check`, `sh`, `json`, `text`. It closes with a line of at least as
 * many backticks and nothing else, as in CommonMark; a longer fence can hold shorter ones.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

/** The pi lines a TypeScript block can name. */
export const PI_LINES = ["1.x", "0.73.1"] as const;
export type PiLine = (typeof PI_LINES)[number];

/** One fenced block: where it is, its info string, its text. */
export interface DocBlock {
	/** `docs/cli.md`, relative to the root. */
	readonly file: string;
	/** The line of its opening fence, from 1. */
	readonly line: number;
	readonly info: string;
	readonly code: string;
}

/** What the doc test does with a block, from its info string; a string says why the info string is wrong. */
export type BlockKind =
	| { readonly kind: "ts"; readonly pi: PiLine; readonly run: boolean }
	| { readonly kind: "json" | "sh" | "text" }
	| string;

const OPENING = /^ {0,3}(`{3,})(.*)$/;

/** Every fenced block of a markdown text, in order. */
export function fencedBlocks(file: string, text: string): DocBlock[] {
	const blocks: DocBlock[] = [];
	const lines = text.split("\n");
	for (let i = 0; i < lines.length; i++) {
		const open = OPENING.exec(lines[i] as string);
		if (open === null) continue;
		const fence = open[1] as string;
		const body: string[] = [];
		let j = i + 1;
		for (; j < lines.length; j++) {
			const line = (lines[j] as string).trim();
			if (line.startsWith(fence) && /^`+$/.test(line)) break;
			body.push(lines[j] as string);
		}
		if (j === lines.length) throw new Error(`${file}:${i + 1}: the fence opened here is never closed`);
		blocks.push({ file, line: i + 1, info: (open[2] as string).trim(), code: `${body.join("\n")}\n` });
		i = j;
	}
	return blocks;
}

/** The kind of a block, or why its info string is not one the doc test knows. */
export function blockKind(block: DocBlock): BlockKind {
	const [language = "", ...flags] = block.info.split(/\s+/).filter((word) => word !== "");
	if (language === "json" || language === "sh" || language === "text") {
		return flags.length === 0 ? { kind: language } : `"${language}" takes no flags, got "${flags.join(" ")}"`;
	}
	if (language !== "ts") return `an info string "${block.info}": use ts, json, sh or text`;
	const pi = flags.find((flag) => flag.startsWith("pi="))?.slice(3);
	const mode = flags.find((flag) => flag === "run" || flag === "check");
	if (pi === undefined || !(PI_LINES as readonly string[]).includes(pi)) {
		return `a ts block names its pi line: pi=${PI_LINES.join(" or pi=")}`;
	}
	if (mode === undefined) return "a ts block says run (type-check and run it) or check (type-check only)";
	if (flags.length !== 2) return `unknown flags in "${block.info}"`;
	return { kind: "ts", pi: pi as PiLine, run: mode === "run" };
}

/** The module specifiers a block imports (`import … from "x"`, `import "x"`, `declare module "x"` excluded). */
export function importedModules(code: string): string[] {
	const found: string[] = [];
	for (const match of code.matchAll(/^\s*(?:import|export)\b[^"'\n]*?(?:from\s+)?["']([^"']+)["']/gm)) {
		found.push(match[1] as string);
	}
	return found;
}

/**
 * Why a block of `pi` imports a module that a user of that line does not import, or `undefined`: a
 * pi 1.x user has `@earendil-works/*` and the bare paths (`convert-to-llm`, `convert-to-llm/preset`,
 * …); a 0.73.1 user has `@mariozechner/*` and `convert-to-llm/pi-0.73/…`. `convert-to-llm/earendil/…`,
 * the deprecated alias of the bare paths, is in no sample.
 */
export function wrongLineImport(pi: PiLine, specifier: string): string | undefined {
	const ours = /^convert-to-llm(\/|$)/.test(specifier);
	if (ours && /^convert-to-llm\/earendil(\/|$)/.test(specifier)) {
		return `"${specifier}" is the deprecated alias of the bare paths: use ${specifier.replace("/earendil", "")}`;
	}
	const old = specifier.startsWith("@mariozechner/") || /^convert-to-llm\/pi-0\.73(\/|$)/.test(specifier);
	const current = specifier.startsWith("@earendil-works/") || (ours && !old);
	if (pi === "1.x" && old) return `"${specifier}" is the pi 0.73.1 line's: use @earendil-works/* and the bare paths`;
	if (pi === "0.73.1" && current) {
		return `"${specifier}" is the pi 1.x line's: use @mariozechner/* and convert-to-llm/pi-0.73/…`;
	}
	return undefined;
}

/**
 * What a `run` block says it prints: the comment after each `console.log(…);` (on its last line, or
 * alone on the next line), one printed line each, in order; `…` stands for any text.
 */
export function documentedOutput(code: string): string[] {
	const lines = code.split("\n");
	const said: string[] = [];
	for (let i = 0; i < lines.length; i++) {
		if (!/^\s*console\.log\(/.test(lines[i] as string)) continue;
		let depth = 0;
		let end = i;
		for (; end < lines.length; end++) {
			depth += parenDepthChange(lines[end] as string);
			if (depth <= 0) break;
		}
		const after = /\);\s*\/\/\s?(.*)$/.exec(lines[end] ?? "")?.[1];
		const next = /^\s*\/\/\s?(.*)$/.exec(lines[end + 1] ?? "")?.[1];
		const text = after ?? next;
		if (text !== undefined) said.push(text.trim());
		i = end;
	}
	return said;
}

/** Opened minus closed parentheses of a line, outside strings and after which a `//` comment starts. */
function parenDepthChange(line: string): number {
	let depth = 0;
	let quote: string | undefined;
	for (let i = 0; i < line.length; i++) {
		const char = line[i] as string;
		if (quote !== undefined) {
			if (char === "\\") i++;
			else if (char === quote) quote = undefined;
		} else if (char === '"' || char === "'" || char === "`") quote = char;
		else if (char === "/" && line[i + 1] === "/") break;
		else if (char === "(") depth++;
		else if (char === ")") depth--;
	}
	return depth;
}

/**
 * Whether `printed` (a run's stdout) holds the lines `said` promises, in that order, each one whole
 * line (other lines may come between); the first promise that is not kept, or `undefined`.
 */
export function brokenPromise(said: readonly string[], printed: string): string | undefined {
	const lines = printed.split("\n").map((line) => line.trimEnd());
	let at = 0;
	for (const promise of said) {
		const pattern = new RegExp(
			`^${promise
				.split("…")
				.map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
				.join(".*")}$`,
		);
		while (at < lines.length && !pattern.test(lines[at] as string)) at++;
		if (at === lines.length) return promise;
		at++;
	}
	return undefined;
}

/**
 * The packages of an `sh` block made of `npm install …` lines only (`npm i` too; flags such as
 * `--save-dev` change package.json, not what is installed), or `undefined` for any other block.
 */
export function installedPackages(sh: string): string[] | undefined {
	const lines = sh
		.split("\n")
		.map((line) => line.replace(/\s#.*$/, "").trim())
		.filter((line) => line !== "");
	if (lines.length === 0) return undefined;
	const packages: string[] = [];
	for (const line of lines) {
		const [npm, command, ...words] = line.split(/\s+/);
		if (npm !== "npm" || (command !== "install" && command !== "i")) return undefined;
		if (words.some((word) => /[&|;<>]/.test(word))) return undefined;
		const named = words.filter((word) => !word.startsWith("-"));
		if (named.length === 0) return undefined;
		packages.push(...named);
	}
	return packages;
}

const blockKindOf = (block: DocBlock): string | undefined => {
	const kind = blockKind(block);
	return typeof kind === "string" ? undefined : kind.kind;
};

/**
 * The README's install line of each pi line: its `npm install` blocks that add convert-to-llm,
 * told apart by the pi scope they add; a string says why they are not one per line.
 */
export function readmeInstallLines(readme: readonly DocBlock[]): Record<PiLine, string[]> | string {
	const found: Partial<Record<PiLine, string[]>> = {};
	for (const block of readme) {
		const packages = blockKindOf(block) === "sh" ? installedPackages(block.code) : undefined;
		if (packages === undefined || !packages.includes("convert-to-llm")) continue;
		const pi: PiLine | undefined = packages.some((name) => name.startsWith("@earendil-works/"))
			? "1.x"
			: packages.some((name) => name.startsWith("@mariozechner/"))
				? "0.73.1"
				: undefined;
		if (pi === undefined) return `${block.file}:${block.line}: an install line of convert-to-llm without a pi scope`;
		if (found[pi] !== undefined) return `${block.file}:${block.line}: a second install line for pi ${pi}`;
		found[pi] = packages;
	}
	const missing = PI_LINES.filter((pi) => found[pi] === undefined);
	if (missing.length > 0) return `no install line for pi ${missing.join(", ")}`;
	return found as Record<PiLine, string[]>;
}

/** README.md and every docs/*.md under `root`, with their blocks. */
export function docBlocks(root: string, files: readonly string[]): DocBlock[] {
	return files.flatMap((file) => fencedBlocks(file, readFileSync(join(root, file), "utf8")));
}
