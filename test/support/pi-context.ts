/** A pi `ctx` for in-process tests of the extension: it records what is shown and whether pi's run was aborted. */
import type { PiContext } from "../../src/pi/pi-api.js";

/** A ctx with a UI that records each notice (text and level) and counts `abort()` calls. */
export function recordingCtx() {
	const shown: { text: string; level: string | undefined }[] = [];
	let aborted = 0;
	const ctx = {
		hasUI: true,
		ui: { notify: (text: string, level?: string) => shown.push({ text, level }) },
		abort: () => aborted++,
	} as unknown as PiContext;
	return { ctx, shown, aborted: () => aborted };
}

/**
 * A configuration with nine problems: six in settings.json, three in the flag. The sixth
 * (`redactSecrets: "true"`, which leaves redaction off) is past the five a notice shows.
 */
export const NINE_PROBLEMS = {
	flag: "lint=x,bogus,maxTokens=-5, strict",
	settings: {
		convertToLlm: {
			lint: "on",
			maxTokens: "100",
			prune: { reasoning: "some" },
			foo: 1,
			strict: "yes",
			redactSecrets: "true",
		},
	},
} as const;
