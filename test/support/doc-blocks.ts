/**
 * The fenced code blocks of README.md and docs/*.md, and what their info strings ask of them: the
 * reader behind test/docs.test.ts.
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
 * Why a block of `pi` imports a module that a user of that line does not have, or `undefined`: a
 * pi 1.x user has `@earendil-works/*` and takes convert-to-llm's types from `convert-to-llm/earendil*`;
 * a 0.73.1 user has `@mariozechner/*` and the root entries.
 */
export function wrongLineImport(pi: PiLine, specifier: string): string | undefined {
	const earendil = specifier.startsWith("@earendil-works/") || /^convert-to-llm\/earendil(\/|$)/.test(specifier);
	const mariozechner = specifier.startsWith("@mariozechner/") || /^convert-to-llm(\/(?!earendil)|$)/.test(specifier);
	if (pi === "1.x" && mariozechner)
		return `"${specifier}" is the pi 0.73.1 line's: use @earendil-works/* and convert-to-llm/earendil*`;
	if (pi === "0.73.1" && earendil)
		return `"${specifier}" is the pi 1.x line's: use @mariozechner/* and the root entries`;
	return undefined;
}

/** README.md and every docs/*.md under `root`, with their blocks. */
export function docBlocks(root: string, files: readonly string[]): DocBlock[] {
	return files.flatMap((file) => fencedBlocks(file, readFileSync(join(root, file), "utf8")));
}
