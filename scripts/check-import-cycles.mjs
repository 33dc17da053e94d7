#!/usr/bin/env node
/**
 * Finds import circles in src/, type-only imports and re-exports included (STYLE rule 11), with the
 * TypeScript compiler's own import scanner: no extra dependency. Prints each circle and exits 1 when
 * there is one. `madge --circular --extensions ts src` or `dpdm --no-tree -T src/index.ts` say the
 * same with a third-party tool.
 *
 * Usage: node scripts/check-import-cycles.mjs [dir]   (default: src)
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

/** Every .ts file under `dir`. */
function sourceFiles(dir) {
	const files = [];
	for (const name of readdirSync(dir)) {
		const path = join(dir, name);
		if (statSync(path).isDirectory()) files.push(...sourceFiles(path));
		else if (name.endsWith(".ts") && !name.endsWith(".d.ts")) files.push(path);
	}
	return files;
}

/** file → the files of `dir` it imports or re-exports from (relative specifiers only). */
export function importGraph(dir) {
	const graph = new Map();
	for (const file of sourceFiles(dir)) {
		const { importedFiles } = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
		const targets = [];
		for (const { fileName } of importedFiles) {
			if (!fileName.startsWith(".")) continue;
			const target = resolve(dirname(file), fileName.replace(/\.js$/, ".ts"));
			if (target.startsWith(resolve(dir))) targets.push(target);
		}
		graph.set(file, targets);
	}
	return graph;
}

/** The circles of `graph`, each as the list of files around it (Tarjan's strongly connected components). */
export function importCycles(graph) {
	let next = 0;
	const index = new Map();
	const low = new Map();
	const stack = [];
	const onStack = new Set();
	const cycles = [];
	const visit = (file) => {
		index.set(file, next);
		low.set(file, next);
		next++;
		stack.push(file);
		onStack.add(file);
		for (const target of graph.get(file) ?? []) {
			if (!graph.has(target)) continue;
			if (!index.has(target)) {
				visit(target);
				low.set(file, Math.min(low.get(file), low.get(target)));
			} else if (onStack.has(target)) low.set(file, Math.min(low.get(file), index.get(target)));
		}
		if (low.get(file) !== index.get(file)) return;
		const component = [];
		let member;
		do {
			member = stack.pop();
			onStack.delete(member);
			component.push(member);
		} while (member !== file);
		if (component.length > 1 || (graph.get(file) ?? []).includes(file)) cycles.push(component.reverse());
	};
	for (const file of graph.keys()) if (!index.has(file)) visit(file);
	return cycles;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
	const dir = resolve(process.argv[2] ?? "src");
	const cycles = importCycles(importGraph(dir));
	for (const cycle of cycles)
		console.error(`import circle: ${cycle.map((f) => relative(process.cwd(), f)).join(" → ")}`);
	if (cycles.length > 0) process.exit(1);
	console.log(`no import circle in ${relative(process.cwd(), dir) || "."}`);
}
