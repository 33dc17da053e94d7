/** The first lines of the CLI's view: what was read, and what converted it. */
import { format, plural } from "../view/render.js";
import { type Style, shown } from "../view/style.js";
import type { CliOptions } from "./args.js";
import { filterNames } from "./filter-options.js";
import type { LoadedInput } from "./input.js";
import type { LoadedPlugins } from "./plugins.js";

/**
 * The view's two header lines: the input (its name, and for a session its version, leaf, path
 * length, model and thinking level) and the plugins that converted it, in the order they apply.
 */
export function header(
	input: LoadedInput,
	loaded: readonly LoadedPlugins[],
	options: CliOptions,
	style: Style,
): string[] {
	const parts = [style.bold(shown(input.name, 1000))];
	const session = input.session;
	if (session !== undefined) {
		parts.push(`pi session v${shown(session.version)}`);
		const leaf = session.leafId === null ? "no leaf" : `leaf ${shown(session.leafId)}`;
		parts.push(`${leaf} (${format(session.pathLength)} of ${format(session.entries)} entries on its path)`);
		if (session.model !== null) parts.push(`${shown(session.model.provider)}/${shown(session.model.modelId)}`);
		if (session.thinkingLevel !== "off") parts.push(`thinking ${shown(session.thinkingLevel)}`);
	} else {
		parts.push(`${input.kind === "json" ? "JSON" : "JSONL"} of ${plural(input.messages.length, "AgentMessage")}`);
	}
	const plugins = ["pi's default preset"];
	for (const { spec, plugins: list } of loaded) {
		plugins.push(`${list.map((p) => shown(p.name)).join(", ")} (${shown(spec, 1000)})`);
	}
	if (options.blockImages) plugins.push("block-images");
	for (const name of filterNames(options)) plugins.push(shown(name, 200));
	return [parts.join(style.dim(" · ")), style.dim(`converted with ${plugins.join(" + ")}`)];
}
