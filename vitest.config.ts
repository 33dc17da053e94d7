import { defineConfig } from "vitest/config";

export default defineConfig({
	test: {
		include: ["test/**/*.test.ts"],
		// Builds dist/ once per run, before any test file, when it is missing or older than the sources.
		globalSetup: ["./test/support/build.ts"],
		// Type tests (`expectTypeOf`, `@ts-expect-error`) run beside the runtime tests.
		typecheck: { enabled: true, include: ["test/**/*.test-d.ts"], tsconfig: "./tsconfig.json" },
		testTimeout: 60_000,
		hookTimeout: 60_000,
	},
});
