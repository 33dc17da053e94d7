/**
 * Maps that cannot drift: every folder of `src/` opens its `index.ts` (or, where it has none, a
 * `README.md`) with a map that names each of its files, and every source file opens with a header
 * comment that says what it is for.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SRC = fileURLToPath(new URL("../../src", import.meta.url));

function folders(dir: string): string[] {
	const found = [dir];
	for (const name of readdirSync(dir)) {
		const path = join(dir, name);
		if (statSync(path).isDirectory()) found.push(...folders(path));
	}
	return found;
}

const sources = (dir: string) =>
	readdirSync(dir).filter((name) => /\.(ts|mts|mjs|js|css)$/.test(name) && !statSync(join(dir, name)).isDirectory());

/** The map of a folder: the opening comment of its index.ts, or its README.md. */
function mapOf(dir: string): string | undefined {
	const readme = join(dir, "README.md");
	if (existsSync(readme)) return readFileSync(readme, "utf8");
	const index = join(dir, "index.ts");
	if (!existsSync(index)) return undefined;
	const text = readFileSync(index, "utf8");
	const end = text.indexOf("*/");
	return text.startsWith("/**") && end > 0 ? text.slice(0, end) : undefined;
}

describe("the folder maps of src/", () => {
	it.each(
		folders(SRC)
			.filter((dir) => dir !== SRC)
			.map((dir) => relative(SRC, dir)),
	)("should name every file of src/%s in the folder's map", (folder) => {
		const dir = join(SRC, folder);
		const map = mapOf(dir);
		expect(map, `src/${folder} has no map (an opening comment in index.ts, or a README.md)`).toBeDefined();
		const missing = sources(dir).filter((name) => name !== "index.ts" && !map?.includes(name));
		expect(missing, `src/${folder}'s map does not name these files`).toEqual([]);
		for (const name of readdirSync(dir).filter((n) => statSync(join(dir, n)).isDirectory()))
			expect(map?.includes(`${name}/`), `src/${folder}'s map does not name its folder ${name}/`).toBe(true);
	});

	it.each(
		folders(SRC).flatMap((dir) =>
			sources(dir)
				.filter((n) => n.endsWith(".ts"))
				.map((name) => relative(SRC, join(dir, name))),
		),
	)("should open src/%s with a header comment", (file) => {
		const text = readFileSync(join(SRC, file), "utf8").replace(/^#!.*\n/, "");
		expect(text.startsWith("/**") || text.startsWith("//"), `src/${file}`).toBe(true);
	});
});
