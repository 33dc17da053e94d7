/**
 * Demonstrates a plugin module for `convert-to-llm --plugin`: an extension that declares its own
 * message role, `ticket`, and decides what the model sees of it.
 *
 * The extension stores `{ role: "ticket", ticket, title, status, timestamp }` messages in the
 * session. Without this plugin the default preset does not know the role and drops them (with a
 * warning); with it, each becomes one short user message.
 *
 *   npx convert-to-llm --plugin examples/plugins/ticket-role.mjs --explain examples/sessions/demo.jsonl
 *
 * In TypeScript, the extension declares the role by merging it into pi's message table, so that
 * `registry.register("ticket", …)` types its argument:
 *
 *   declare module "@earendil-works/pi-agent-core" {
 *     interface CustomAgentMessages {
 *       ticket: { role: "ticket"; ticket: string; title: string; status: string; timestamp: number };
 *     }
 *   }
 *
 * A plugin module needs nothing from convert-to-llm at run time: a plugin is `{ name, apply(registry) }`.
 */

/** The plugin name, used for its converter and in every error and `--explain` line. */
export const TICKET_PLUGIN = "example:ticket-role";

/**
 * @typedef {{ role: "ticket", ticket: string, title: string, status: string, timestamp: number }} TicketMessage
 */

/**
 * The model sees a ticket as one line of user text.
 * @param {TicketMessage} message
 */
export function convertTicket(message) {
	return {
		role: "user",
		content: [{ type: "text", text: `[ticket ${message.ticket}, ${message.status}] ${message.title}` }],
		timestamp: message.timestamp,
	};
}

/** @type {import("../../src/index.js").Plugin} */
const ticketRole = {
	name: TICKET_PLUGIN,
	apply(registry) {
		registry.register("ticket", convertTicket, { name: TICKET_PLUGIN });
	},
};

export default ticketRole;
