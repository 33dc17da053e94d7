import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
	test: {
		include: ["test/**/*.test.ts"],
		// Builds dist/ once per run, before any test file, when it is missing or older than the sources.
		globalSetup: ["./test/support/build.ts"],
		// Type tests (`expectTypeOf`, `@ts-expect-error`) run beside the runtime tests.
		// TypeScript 5.9 by path: `tsc` in node_modules/.bin is TypeScript 7's (the package tests check consumers with both).
		typecheck: {
			enabled: true,
			include: ["test/**/*.test-d.ts"],
			tsconfig: "./tsconfig.json",
			checker: fileURLToPath(new URL("./node_modules/typescript/bin/tsc", import.meta.url)),
		},
		// `vitest run --coverage` (needs @vitest/coverage-v8): the registry core and the built-ins keep
		// at least 95% of their lines covered; type-only files have no lines to cover.
		coverage: {
			provider: "v8",
			include: ["src/registry/**/*.ts", "src/builtin-converters/**/*.ts"],
			reporter: ["text-summary", "text"],
			thresholds: { lines: 95 },
		},
		// Most of the slow files wait on child processes (tsc, the pi CLIs, chromium): run one more file
		// than there are cores (vitest's default is one fewer, which is one file at a time on two cores).
		maxWorkers: availableParallelism() + 1,
		testTimeout: 60_000,
		hookTimeout: 60_000,
	},
});
