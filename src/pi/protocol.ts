/**
 * How other pi extensions put plugins on convert-to-llm's registry: a two-message protocol on
 * `pi.events`, so that it works whichever extension pi loads first and whatever copy of this package
 * each one resolves (pi loads every package from its own module root, so no module state is shared).
 */
import type { Plugin } from "../index.js";
import type { PiEventBus } from "./pi-api.js";

/** The channel plugins are offered on: data is a {@link PluginOffer}. */
export const USE_CHANNEL = "convert-to-llm:use";

/** The channel the convert-to-llm extension announces itself on, each time it loads: data is `{ version: 1 }`. */
export const READY_CHANNEL = "convert-to-llm:ready";

/**
 * What an extension sends on {@link USE_CHANNEL}.
 *
 * Contract: `plugins` replace, by plugin name, any the same extension or another offered before (an
 * extension that reloads offers them again); each is `use()`d on the shared registry after pi's
 * default preset and before the hardening plugins the user turned on, in offer order. `from` names the
 * offering extension in warnings.
 *
 * @example
 * pi.events.emit(USE_CHANNEL, { from: "my-ext", plugins: [ticketRole] } satisfies PluginOffer);
 */
export interface PluginOffer {
	from: string;
	plugins: readonly Plugin[];
}

/**
 * Puts `plugins` on the registry of the convert-to-llm pi extension, whether it has loaded yet or
 * not: offers them now, and again each time the extension announces itself (it loaded later, or
 * `/reload` made a new one). Call it from your extension's factory.
 *
 * Contract: the plugins are ordinary convert-to-llm plugins (`{ name, apply(registry) }`, the same as
 * `registry.use()` takes); they apply to every request pi sends and to the `/llm-context` view.
 * Nothing happens if convert-to-llm is not loaded. A plugin that fails to apply, or a converter that
 * fails, is shown as a warning and fails closed as the registry does (the message is dropped).
 *
 * @example
 * import { usePlugins } from "convert-to-llm/pi";
 * export default function (pi: ExtensionAPI) {
 *   usePlugins(pi, "my-ext", { name: "my-ext:ticket", apply: (r) => r.register("ticket", toUser, { name: "my-ext:ticket" }) });
 * }
 */
export function usePlugins(pi: { events: PiEventBus }, from: string, ...plugins: Plugin[]): void {
	const offer: PluginOffer = { from, plugins };
	pi.events.on(READY_CHANNEL, () => pi.events.emit(USE_CHANNEL, offer));
	pi.events.emit(USE_CHANNEL, offer);
}
