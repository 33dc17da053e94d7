/**
 * The context window of the model a session uses, for the line on the report's chart: the ledger's
 * lookup in pi-ai's model table (pi-ai 1.x's catalog, else 0.73.1's `getModel`; one lookup for both
 * the prices and the window). A model it does not know, or no pi-ai at all, gives the reason instead.
 */
import { piModelTable } from "../ledger/pi-model-table.js";
import type { ModelLookup } from "../ledger/prices.js";
import type { ContextWindow } from "./report-types.js";

/** A model as a session names it. */
export interface ModelName {
	provider: string;
	modelId: string;
}

/** The context window of `model` (the session's), or why there is no line. Never throws. */
export async function contextWindowOf(
	model: ModelName | null | undefined,
	models: ModelLookup = piModelTable(),
): Promise<ContextWindow> {
	if (model === null || model === undefined) return { why: "the history does not say which model it is for" };
	const name = `${model.provider}/${model.modelId}`;
	let tokens: number | undefined;
	try {
		tokens = (await models(model.provider, model.modelId))?.contextWindow;
	} catch {
		tokens = undefined;
	}
	if (tokens !== undefined) return { tokens, model: name, source: "pi-ai's model table" };
	return {
		model: name,
		why: `${name}, the session's model, is not in pi-ai's model table (or no pi-ai is installed)`,
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
