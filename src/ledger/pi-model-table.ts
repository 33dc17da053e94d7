/**
 * pi-ai's model table as a {@link ModelLookup}: pi-ai 1.x's built-in catalog (prices, the prompt
 * cache's lifetime per model, whether a model takes `system` messages mid-conversation), else pi-ai
 * 0.73.1's `getModel` (prices and the context window). Both are optional peer dependencies, loaded when first asked
 * (one catalog module per provider); without them the lookup knows no model.
 */
import { isRecord } from "../values.js";
import type { ModelFacts, ModelLookup } from "./prices.js";

/** A provider id as pi-ai names its catalog modules (`anthropic`, `amazon-bedrock`); nothing else is imported. */
const PROVIDER = /^[a-z0-9][a-z0-9-]{0,63}$/;

/** How a module is loaded: a dynamic `import()` (tests pass their own). */
export type ModuleLoader = (specifier: string) => Promise<unknown>;

const importModule: ModuleLoader = (specifier) => import(specifier);

/** pi-ai 0.73.1, whose `getModel` is the fallback table (split so that no scope rewrite can turn it into 1.x's). */
const LEGACY_PI_AI = ["@mariozechner", "pi-ai"].join("/");

/**
 * A lookup in pi-ai's model table.
 *
 * Contract: never rejects; a provider whose catalog cannot be loaded, or a model it does not list,
 * gives `undefined`. Each provider's catalog is loaded once per lookup (the lookup keeps them, not
 * the module). pi-ai 1.x's `promptCache.short` is the lifetime (pi-ai's default retention), its
 * `compat.supportsMidConvoSystemMessages` says whether `system` messages stay in place.
 *
 * @example
 * const ledger = await requestLedger({ text }, { models: piModelTable() });
 */
export function piModelTable(load: ModuleLoader = importModule): ModelLookup {
	const catalogs = new Map<string, Promise<Record<string, unknown> | undefined>>();
	let legacy: Promise<((provider: string, id: string) => unknown) | undefined> | undefined;
	const catalogOf = (provider: string) => {
		let catalog = catalogs.get(provider);
		if (catalog === undefined) {
			catalog = load(`@earendil-works/pi-ai/providers/${provider}.models`).then(chatModels, () => undefined);
			catalogs.set(provider, catalog);
		}
		return catalog;
	};
	const legacyLookup = () => {
		// pi 0.73.1's scope on purpose: the fallback is the other pi line's package.
		legacy ??= load(LEGACY_PI_AI).then(
			(module) => {
				const getModel = isRecord(module) ? module.getModel : undefined;
				return typeof getModel === "function" ? (getModel as (provider: string, id: string) => unknown) : undefined;
			},
			() => undefined,
		);
		return legacy;
	};
	return async (provider, modelId) => {
		if (!PROVIDER.test(provider)) return undefined;
		try {
			const catalog = await catalogOf(provider);
			if (catalog !== undefined) return factsOf(Object.hasOwn(catalog, modelId) ? catalog[modelId] : undefined);
			const getModel = await legacyLookup();
			return getModel === undefined ? undefined : factsOf(getModel(provider, modelId));
		} catch {
			return undefined;
		}
	};
}

/** The chat models of a provider's catalog module (its `<PROVIDER>_MODELS` export). */
function chatModels(module: unknown): Record<string, unknown> | undefined {
	if (!isRecord(module)) return undefined;
	for (const [name, value] of Object.entries(module))
		if (name.endsWith("_MODELS") && !name.endsWith("_IMAGE_MODELS") && !name.endsWith("_CLASSIFIER_MODELS"))
			return isRecord(value) ? value : undefined;
	return undefined;
}

/** What the ledger reads of a pi-ai `Model`. */
function factsOf(model: unknown): ModelFacts | undefined {
	if (!isRecord(model)) return undefined;
	const facts: ModelFacts = {};
	const cost = model.cost;
	if (isRecord(cost)) facts.cost = cost as ModelFacts["cost"];
	const cache = model.promptCache;
	if (isRecord(cache) && typeof cache.short === "number") facts.cacheLifetimeSeconds = cache.short;
	const compat = model.compat;
	if (isRecord(compat) && typeof compat.supportsMidConvoSystemMessages === "boolean")
		facts.midConversationSystem = compat.supportsMidConvoSystemMessages;
	const window = model.contextWindow;
	if (typeof window === "number" && Number.isFinite(window) && window > 0) facts.contextWindow = window;
	return facts;
}
