import { defineConfig } from "tsup";
import { BIN_ENTRIES, ENTRIES } from "./scripts/entries.mjs";

// One build for every entry point, ESM and CJS, with code splitting in both formats: the error
// classes then live in one shared chunk, so `instanceof ConvertToLlmError` holds across entry points.
// The entry list is scripts/entries.mjs, which package.json's `exports` are checked against.
export default defineConfig({
	entry: {
		...ENTRIES,
		// The `convert-to-llm` bin: its source starts with a `#!/usr/bin/env node` line, which esbuild
		// keeps (and tsup then makes the file executable). Built with the library so that it shares
		// its chunks: a plugin loaded with --plugin and the CLI then use the same error classes.
		...BIN_ENTRIES,
	},
	format: ["esm", "cjs"],
	// The bin has no API: declaration files for the entries only.
	dts: { entry: { ...ENTRIES } },
	splitting: true,
	// The CJS build has no `import.meta`: its `import.meta.url` (src/pi/copies.ts finds its own file
	// by it) becomes the file's own URL.
	shims: true,
	sourcemap: true,
	clean: true,
	target: "node22",
	platform: "node",
	// pi's packages are ESM-only and only their types are used: never bundle or require them.
	external: [
		"@mariozechner/pi-ai",
		"@mariozechner/pi-agent-core",
		"@earendil-works/pi-ai",
		"@earendil-works/pi-agent-core",
		"tapable",
		// ESM-only; loaded by redactSecrets with a dynamic import, which the CJS build keeps as one.
		"@secretlint/core",
		"@secretlint/secretlint-rule-preset-recommend",
	],
});
