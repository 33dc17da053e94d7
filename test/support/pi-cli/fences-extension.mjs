/**
 * A pi extension for the end-to-end tests: it offers convert-to-llm the same `safeFences()` plugin a
 * user may also turn on with `--convert-to-llm safeFences` (a harmless duplicate).
 */
import { safeFences } from "convert-to-llm/hooks";
import { usePlugins } from "convert-to-llm/pi";

/** @param {import("@earendil-works/pi-coding-agent").ExtensionAPI} pi */
export default function fencesExtension(pi) {
	usePlugins(pi, "test:fences", safeFences());
}
