/**
 * Ordering of converters for a role and of post-conversion taps: lower stages run first.
 *
 * Contract: plain numbers in a frozen object; any number is a valid stage, and a tap without one is
 * at `DEFAULT`. Waterfall taps (`beforeConvert`, `afterConvert`, `afterConvertAsync`) run by
 * ascending stage, equal stages in tap order; for converters a stage orders overrides only (see
 * `RegisterOptions.override`). `blockImages` taps at `SANITIZE`, `lint` at `VERIFY`.
 *
 * @example
 * registry.hooks.afterConvert.tap({ name: "redact-keys", stage: Stage.SANITIZE - 1 }, redactKeys); // just before blockImages
 */
export const Stage = Object.freeze({
	/** Runs before everything at the default stage. */
	EARLY: -100,
	/** The stage of built-in converters and of taps that give none. */
	DEFAULT: 0,
	/** Post-conversion sanitizers such as `blockImages`: after ordinary transforms. */
	SANITIZE: 100,
	/** Checks that must see the final output, such as a lint: after everything else. */
	VERIFY: 1000,
} as const);
