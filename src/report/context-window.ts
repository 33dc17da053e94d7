/**
 * The context window of the model a session uses, from pi-ai's model table, for the line on the
 * report's chart: pi-ai 1.x's built-in catalog (`getBuiltinModel`), else pi-ai 0.73.1's (`getModel`),
 * whichever is installed. A model neither knows, or no pi-ai at all, gives the reason instead.
 */
import type { ContextWindow } from "./report-types.js";

/** A model as a session names it. */
export interface ModelName {
	provider: string;
	modelId: string;
}

/** A lookup of a model in a table: `undefined` when the table does not have it. */
type Lookup = (provider: string, modelId: string) => { contextWindow?: unknown } | undefined;

/** The model tables tried in turn: pi-ai 1.x, then pi-ai 0.73.1. */
const TABLES: readonly { name: string; load: () => Promise<Lookup | undefined> }[] = [
	{
		name: "pi-ai 1.x's model table",
		load: async () => {
			const table = (await import("@earendil-works/pi-ai/providers/all")) as { getBuiltinModel?: unknown };
			return typeof table.getBuiltinModel === "function" ? (table.getBuiltinModel as Lookup) : undefined;
		},
	},
	{
		name: "pi-ai 0.73.1's model table",
		load: async () => {
			const table = (await import("@earendil-works/pi-ai")) as { getModel?: unknown };
			return typeof table.getModel === "function" ? (table.getModel as Lookup) : undefined;
		},
	},
];

/** The context window of `model` (the session's), or why there is no line. Never throws. */
export async function contextWindowOf(model: ModelName | null | undefined): Promise<ContextWindow> {
	if (model === null || model === undefined) return { why: "the history does not say which model it is for" };
	const name = `${model.provider}/${model.modelId}`;
	let loaded = false;
	for (const table of TABLES) {
		let lookup: Lookup | undefined;
		try {
			lookup = await table.load();
		} catch {
			continue;
		}
		if (lookup === undefined) continue;
		loaded = true;
		let tokens: unknown;
		try {
			tokens = lookup(model.provider, model.modelId)?.contextWindow;
		} catch {
			tokens = undefined;
		}
		if (typeof tokens === "number" && Number.isFinite(tokens) && tokens > 0) {
			return { tokens, model: name, source: table.name };
		}
	}
	return {
		model: name,
		why: loaded
			? `${name}, the session's model, is not in pi-ai's model table`
			: `pi-ai is not installed, so the context window of ${name} is not known`,
	};
}

/** The model of the last assistant message of `messages`, for a history that is not a session. */
export function lastModel(messages: readonly unknown[]): ModelName | undefined {
	for (let i = messages.length - 1; i >= 0; i--) {
		const message = messages[i] as { role?: unknown; provider?: unknown; model?: unknown } | null;
		if (message === null || typeof message !== "object" || message.role !== "assistant") continue;
		if (typeof message.provider === "string" && typeof message.model === "string") {
			return { provider: message.provider, modelId: message.model };
		}
	}
	return undefined;
}
