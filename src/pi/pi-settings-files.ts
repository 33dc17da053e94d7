/**
 * pi 0.73.1's own settings, read from its files: that line gives extensions no `pi.getSettings()`,
 * so a setting the extension must honour (`images.blockImages`) is read where pi reads it, and merged
 * as pi's `SettingsManager` merges it. pi 1.x is asked instead (see settings.ts).
 */
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { isJsonObject } from "../values.js";

/**
 * Where pi 0.73.1 reads its settings: `<agentDir>/settings.json` (global) and
 * `<cwd>/.pi/settings.json` (the project's, which wins).
 */
export interface PiSettingsPlaces {
	/** pi's working directory (`ctx.cwd`). */
	readonly cwd: string;
	/** pi's agent directory: `$PI_CODING_AGENT_DIR` (`~` expanded), or `~/.pi/agent`. */
	readonly agentDir: string;
}

/**
 * The places of pi 0.73.1's settings for a pi running in `cwd`, as its `getAgentDir()` finds the
 * agent directory.
 *
 * Contract: `PI_CODING_AGENT_DIR` when set and not empty (a leading `~` or `~/` is the home
 * directory, as pi expands it), `~/.pi/agent` otherwise; never reads a file.
 *
 * @example
 * piSettingsPlaces(ctx.cwd); // { cwd, agentDir: "/home/me/.pi/agent" }
 */
export function piSettingsPlaces(cwd: string, env: NodeJS.ProcessEnv = process.env): PiSettingsPlaces {
	const dir = env.PI_CODING_AGENT_DIR;
	if (dir) return { cwd, agentDir: expandTilde(dir) };
	return { cwd, agentDir: join(homedir(), ".pi", "agent") };
}

/** pi's `expandTildePath`: `~` and `~/…` only. */
function expandTilde(path: string): string {
	if (path === "~") return homedir();
	if (path.startsWith("~/")) return homedir() + path.slice(1);
	return path;
}

/**
 * pi 0.73.1's effective settings: the global file's, with the project's merged over them one level
 * deep (pi's `deepMergeSettings`: an object under a key merges with the global object under it; any
 * other value replaces it).
 *
 * Contract: read on every call (the user may change a setting in `/settings` while pi runs; pi writes
 * it to the global file); a file that is missing, unreadable or not a JSON object counts as no
 * settings, as pi counts it (pi reports such a file itself); never throws.
 *
 * @example
 * readPiSettingsFiles(piSettingsPlaces(ctx.cwd)).images; // { blockImages: true }
 */
export function readPiSettingsFiles(places: PiSettingsPlaces): Record<string, unknown> {
	const global = readSettingsFile(join(places.agentDir, "settings.json"));
	const project = readSettingsFile(join(places.cwd, ".pi", "settings.json"));
	const merged: Record<string, unknown> = { ...global };
	for (const key of Object.keys(project)) {
		const value = project[key];
		if (value === undefined) continue;
		const base = global[key];
		merged[key] = isJsonObject(value) && isJsonObject(base) ? { ...base, ...value } : value;
	}
	return merged;
}

function readSettingsFile(path: string): Record<string, unknown> {
	let text: string;
	try {
		text = readFileSync(path, "utf8");
	} catch {
		return {};
	}
	// pi reads an empty file as no settings, and a file that does not parse as none either.
	if (text === "") return {};
	try {
		const value: unknown = JSON.parse(text);
		return isJsonObject(value) ? value : {};
	} catch {
		return {};
	}
}
