import { defineConfig } from "vitest/config";

// `npm run test:install`: installing the packed package as users do (a loopback npm registry, the real
// pi CLIs of both lines, npm beside each line's packages). Online and slow, so not part of `npm test`;
// `.ci/run` runs it as a step of its own.
export default defineConfig({
	test: {
		include: ["test/install/*.spec.ts"],
		globalSetup: ["./test/support/build.ts"],
		fileParallelism: false,
		testTimeout: 300_000,
		hookTimeout: 300_000,
	},
});
