/**
 * The package's entry points, listed once: tsup.config.ts builds them, scripts/scope-types.mjs writes
 * the pi 0.73.1 declarations of each, and test/package/exports.test.ts checks that package.json's
 * `exports` and `typesVersions` name exactly these (`exportsOf(ENTRIES)` is what they must equal).
 */

/** Entry name → its source. The name is the file name in dist/ and the subpath (`index` is `.`). */
export const ENTRIES = Object.freeze({
	index: "src/index.ts",
	preset: "src/preset.ts",
	hooks: "src/hooks/index.ts",
	filters: "src/filters/index.ts",
	session: "src/session/index.ts",
	// The pi extension (package.json `pi.extensions`) and its API for other extensions.
	pi: "src/pi/index.ts",
});

/** Built beside the entries, with no declarations: the `convert-to-llm` bin. */
export const BIN_ENTRIES = Object.freeze({ cli: "src/cli/bin.ts" });

/**
 * The subpath prefixes and the declarations each serves: the bare paths declare pi 1.x
 * (`@earendil-works`), `pi-0.73/` declares pi 0.73.1 (`@mariozechner`), and `earendil/` is the 0.2
 * name of the bare paths, kept one minor release as a deprecated alias.
 */
export const TYPE_LINES = Object.freeze([
	{ prefix: "", dts: "" },
	{ prefix: "pi-0.73", dts: "pi-0.73/" },
	{ prefix: "earendil", dts: "" },
]);

/** The `exports` map and `typesVersions` that package.json must hold for `entries`. */
export function exportsOf(entries = ENTRIES) {
	const exports = {};
	const typesVersions = {};
	for (const { prefix, dts } of TYPE_LINES) {
		for (const name of Object.keys(entries)) {
			const sub = [prefix, name === "index" ? "" : name].filter(Boolean).join("/");
			const key = sub === "" ? "." : `./${sub}`;
			exports[key] = {
				import: { types: `./dist/${dts}${name}.d.ts`, default: `./dist/${name}.js` },
				require: { types: `./dist/${dts}${name}.d.cts`, default: `./dist/${name}.cjs` },
			};
			if (sub !== "") typesVersions[sub] = [`./dist/${dts}${name}.d.cts`];
		}
	}
	exports["./package.json"] = "./package.json";
	return { exports, typesVersions: { "*": typesVersions } };
}
