/**
 * One copy of the extension per pi runtime. pi refuses to start when two extensions register the
 * same flag, and a user can load this package twice without meaning to (`pi install` and `-e` of a
 * clone, a global and a project copy): the copy loaded first does the work, and every later one
 * registers nothing, says so, and stays off. The copies meet on `pi.events`, which every extension
 * of one runtime shares (and which `/reload` replaces, so a reloaded runtime starts afresh).
 */
import { fileURLToPath } from "node:url";
import { isRecord } from "../values.js";
import type { PiExtensionApi } from "./pi-api.js";

/** The channel on which the working copy answers a later copy's probe (synchronously, as pi's bus calls handlers). */
export const COPY_CHANNEL = "convert-to-llm:copy";

/** What a later copy sends on {@link COPY_CHANNEL}; the working copy fills in `working`. */
interface CopyProbe {
	working?: string;
}

/** Where this copy was loaded from (its `dist/pi.js`), as a user would find it. */
function here(): string {
	try {
		return fileURLToPath(import.meta.url);
	} catch {
		return "an unknown path";
	}
}

/**
 * Whether this copy is the first in its runtime; if it is, it answers later copies from now on.
 * For a later copy, returns the warning it shows (at `session_start`) instead.
 *
 * Contract: never throws (an event bus that cannot be used counts this copy as the first, as it
 * was before this check existed); the first copy's answer names where it was loaded from, and it
 * answers until its session shuts down (`session_shutdown`: a reload, a new or another session),
 * so the copy pi loads next in its place works.
 *
 * @example
 * const second = claimRuntime(pi); if (second !== undefined) { …warn and return… }
 */
export function claimRuntime(pi: PiExtensionApi): string | undefined {
	const mine = here();
	try {
		const probe: CopyProbe = {};
		pi.events.emit(COPY_CHANNEL, probe);
		if (typeof probe.working === "string") {
			return `convert-to-llm is loaded twice: ${probe.working} converts this pi's requests, and the copy at ${mine} stays off (it registers nothing, so pi can start). Remove one of them (the -e option, or the package in pi's settings.json).`;
		}
		// Until this copy's session ends: a reload or a new session loads the extension again (on
		// pi 0.73.1 onto the same bus, where this handler stays), and the new copy is the working one.
		let working = true;
		pi.on("session_shutdown", () => {
			working = false;
		});
		pi.events.on(COPY_CHANNEL, (data) => {
			if (working && isRecord(data) && data.working === undefined) (data as CopyProbe).working = mine;
		});
	} catch {
		// No bus to meet on: this copy works, as every copy did before.
	}
	return undefined;
}
