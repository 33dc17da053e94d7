/** A test extension: /trigger starts a turn with pi.sendMessage(triggerTurn), /tools-trigger first changes the active tools. */
export default function trigger(pi) {
	pi.registerCommand("trigger", {
		description: "trigger a turn (test)",
		handler: async () => {
			await pi.sendMessage(
				{ customType: "note", content: "Continue please.", display: true },
				{ triggerTurn: true },
			);
		},
	});
	pi.registerCommand("tools-trigger", {
		description: "set tools, then trigger a turn (test)",
		handler: async () => {
			pi.setActiveTools(["read", "bash"]);
			await pi.sendMessage({ customType: "note", content: "Go on.", display: true }, { triggerTurn: true });
		},
	});
}
