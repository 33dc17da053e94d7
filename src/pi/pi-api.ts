/**
 * The parts of pi's extension API this extension uses, typed by shape. pi 0.73.1 (`@mariozechner`)
 * and pi 1.x (`@earendil-works`) each declare their own `ExtensionAPI`; both are assignable to these
 * interfaces, so one declaration serves both lines and the package needs nothing from
 * pi-coding-agent, at run time or in its declarations (its `Plugin` types name pi-ai and
 * pi-agent-core, the optional peers, as every entry does). Messages are `unknown` here: each line has its own `AgentMessage`;
 * the registry checks every message it is given.
 */
/**
 * pi's inter-extension event bus (`pi.events`).
 *
 * Contract: `emit` calls every handler on the channel synchronously, in subscription order; a handler
 * may be async. Shared by every extension of one pi runtime, and replaced with it on `/reload`.
 *
 * @example
 * pi.events.on("convert-to-llm:ready", () => offer());
 */
export interface PiEventBus {
	on(channel: string, handler: (data: unknown) => unknown): unknown;
	emit(channel: string, data: unknown): void;
}

/** `ctx.ui`: only the methods used here; `custom` exists in the TUI, and returns `undefined` in RPC mode. */
export interface PiUi {
	notify(message: string, type?: "info" | "warning" | "error"): void;
	// biome-ignore lint/suspicious/noExplicitAny: pi's component factory types differ per line; only `custom`'s presence is relied on.
	custom?: (...args: any[]) => Promise<unknown>;
}

/** pi's message history as a session manager gives it (`AgentMessage[]` of the pi line). */
export interface PiSessionContext {
	messages: unknown[];
}

/**
 * `ctx.sessionManager`: pi's `ReadonlySessionManager` plus the context builders its runtime object
 * has on both lines (`buildSessionContext`; pi 1.x also `buildSessionProjection`).
 */
export interface PiSessionManager {
	getSessionFile(): string | undefined;
	getLeafId?(): string | null;
	buildSessionContext?(): PiSessionContext;
	buildSessionProjection?(): { entries: { sourceEntry: { id: string }; messages: unknown[] }[] };
	/** The session's entries (the header excluded), as both lines' managers hold them. */
	getEntries?(): unknown[];
	getHeader?(): unknown;
}

/**
 * The `ctx` of event and command handlers (`ExtensionContext`), as this extension uses it.
 *
 * Contract: pi's own context on either line is assignable to it; `mode` exists from pi 0.75 on (on
 * 0.73.1 the extension reads `hasUI` instead); `ui.notify` is called only when `hasUI` is true;
 * `abort()` is how a withheld request ends pi's run.
 *
 * @example
 * pi.registerCommand("hello", { handler: async (_args, ctx: PiContext) => ctx.ui.notify("hi", "info") });
 */
export interface PiContext {
	ui: PiUi;
	hasUI: boolean;
	mode?: "tui" | "rpc" | "json" | "print";
	cwd: string;
	sessionManager: PiSessionManager;
	/** pi's current model (`Model`: `provider`, `id`, `contextWindow`, …; both lines), `undefined` when none is set. */
	model?: { provider?: unknown; id?: unknown; contextWindow?: unknown } | undefined;
	abort(): void;
	/** The system prompt pi's agent holds, the one the next request sends (both lines' `ExtensionContext`). */
	getSystemPrompt?(): string;
	/** How pi builds its system prompt (a command's ctx; pi 1.x's `hiddenTools` are left out of every request). */
	getSystemPromptOptions?(): unknown;
}

/** The result of a `context` / `context_with_system` handler: the messages to use instead. */
export interface PiContextResult {
	messages: unknown[];
}

/** A flag, as `pi.registerFlag` takes it. */
export interface PiFlag {
	description?: string;
	type: "boolean" | "string";
	default?: boolean | string;
}

/**
 * The extension API (`pi`) as this extension uses it.
 *
 * Contract: `getSettings` (pi's merged settings) and `registerVirtualModel` exist on pi 1.x only; the
 * extension reads their presence, never calls the latter.
 *
 * @example
 * export default function (pi: PiExtensionApi) { usePlugins(pi, "my-ext", myPlugin); }
 */
export interface PiExtensionApi {
	// biome-ignore lint/suspicious/noExplicitAny: pi's handler types are per event and per line; each handler here narrows its own event.
	on(event: string, handler: (event: any, ctx: any) => unknown): unknown;
	registerFlag(name: string, options: PiFlag): void;
	getFlag(name: string): unknown;
	registerCommand(
		name: string,
		options: { description?: string; handler: (args: string, ctx: PiContext) => Promise<void> },
	): void;
	getSettings?(): unknown;
	/** The names of the tools pi declares to the model, in its order (both lines). */
	getActiveTools?(): unknown;
	/** Every tool pi has, each with `name`, `description` and `parameters` (both lines). */
	getAllTools?(): unknown;
	registerVirtualModel?: unknown;
	events: PiEventBus;
}
