/**
 * The `convert-to-llm/pi` entry point: the pi extension (default export) and the names a sibling extension
 * needs to talk to it (the command, the settings key, the plugin-offer channels).
 */
export { COMMAND } from "./command.js";
export { default } from "./extension.js";
export type { PiContext, PiEventBus, PiExtensionApi } from "./pi-api.js";
export { type PluginOffer, READY_CHANNEL, USE_CHANNEL, usePlugins } from "./protocol.js";
export { WITHHELD_TEXT } from "./request.js";
export { DEFAULT_HARDENING, FLAG, type PiHardening, type PiLintMode, SETTINGS_KEY } from "./settings.js";
