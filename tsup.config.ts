import { defineConfig } from "tsup";

// One build for every entry point, ESM and CJS, with code splitting in both formats: the error
// classes then live in one shared chunk, so `instanceof ConvertToLlmError` holds across entry points.
export default defineConfig({
	entry: {
		index: "src/index.ts",
		preset: "src/preset.ts",
		hooks: "src/hooks/index.ts",
	},
	format: ["esm", "cjs"],
	dts: true,
	splitting: true,
	sourcemap: true,
	clean: true,
	target: "node20",
	platform: "node",
	// pi's packages are ESM-only and only their types are used: never bundle or require them.
	external: ["@mariozechner/pi-ai", "@mariozechner/pi-agent-core", "tapable"],
});
