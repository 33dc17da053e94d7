/**
 * A test extension with `/test-reload`: reloads pi's extensions (`ctx.reload()`, as `/reload` does),
 * then says so with an info notice, which the test waits for.
 */
export default function reloadExtension(pi) {
	pi.registerCommand("test-reload", {
		description: "reload pi's extensions (test)",
		handler: async (_args, ctx) => {
			await ctx.reload();
		},
	});
	pi.on("session_start", (event, ctx) => {
		if (event?.reason === "reload" && ctx.hasUI) ctx.ui.notify("test-reload: reloaded", "info");
	});
}
