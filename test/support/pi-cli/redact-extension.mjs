/**
 * A pi extension for the end-to-end tests: it offers convert-to-llm a plugin that hides every
 * message naming {@link SECRET} (a post-conversion filter, as a redaction extension would be), and a
 * command `/test-tree <entry id>` that navigates the session tree there with a branch summary (pi's
 * RPC mode has no command for that; extensions' command context does) and says when it is done.
 */
import { usePlugins } from "convert-to-llm/pi";

/** The text the plugin hides; test/pi/extension-e2e.test.ts checks that no request body holds it. */
export const SECRET = "sk-live-e2e-5ec7e7";

/** @param {import("@earendil-works/pi-coding-agent").ExtensionAPI} pi */
export default function redactExtension(pi) {
	usePlugins(pi, "test:redact", {
		name: "test:redact",
		apply(registry) {
			registry.hooks.afterConvert.tap("test:redact", (messages) =>
				messages.filter((message) => !JSON.stringify(message).includes(SECRET)),
			);
		},
	});
	pi.registerCommand("test-tree", {
		description: "Navigate to an entry with a branch summary",
		handler: async (args, ctx) => {
			const result = await ctx.navigateTree(args.trim(), { summarize: true });
			ctx.ui.notify(`test-tree done: ${JSON.stringify(result)}`, "info");
		},
	});
}
