/**
 * Demonstrates a pi extension that brings its own message role to convert-to-llm's pi extension: the
 * `ticket` messages it keeps in the session reach the model as one line of user text each, where pi
 * alone drops them (pi's `convertToLlm` knows no `ticket` role).
 *
 * The plugin is the module `convert-to-llm --plugin` takes (examples/plugins/ticket-role.mjs), so the
 * CLI and `/llm-context` show the same conversion. `usePlugins` offers it on `pi.events`, which works
 * whether pi loads this extension before convert-to-llm or after it:
 *
 *   pi -e npm:convert-to-llm -e ./examples/pi-ticket-role
 *
 * In a package of your own: depend on convert-to-llm, and name this file in `pi.extensions`.
 * test/pi/extension-e2e.test.ts runs it in the real pi CLI, in both load orders.
 */
import { usePlugins } from "convert-to-llm/pi";
import ticketRole from "../plugins/ticket-role.mjs";

/** @param {import("@earendil-works/pi-coding-agent").ExtensionAPI} pi */
export default function ticketRoleExtension(pi) {
	usePlugins(pi, "example:pi-ticket-role", ticketRole);
}
