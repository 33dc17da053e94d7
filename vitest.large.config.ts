import { defineConfig } from "vitest/config";

// `npm run test:large`: the tests that write files larger than Node's longest string (about 512 MiB)
// to a temporary directory. Apart from `npm test`, for the time and disk they take; run by .ci/run.
export default defineConfig({
	test: {
		include: ["test/**/*.large-test.ts"],
		globalSetup: ["./test/support/build.ts"],
		testTimeout: 900_000,
		hookTimeout: 900_000,
	},
});
