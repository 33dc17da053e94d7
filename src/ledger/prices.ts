/**
 * What a request's tokens cost and how long its cache lives: from the session's own recorded prices
 * first (what the provider billed), then from a model table (pi-ai's, by default, in the CLI), and
 * named as unknown where neither says.
 */
import type { CacheTokens } from "./cache-model.js";
import { PRICE_FIELDS, type PriceField, type RecordedUsage } from "./recorded-usage.js";

/**
 * What a model table says of one model: pi-ai's `Model.cost` (USD per million tokens), the lifetime
 * of a prompt cache entry (pi-ai 1.x `promptCache.short`, in seconds), and whether it takes `system`
 * messages mid-conversation (pi-ai 1.x `compat.supportsMidConvoSystemMessages`; without it pi-ai
 * folds them into the system prompt, which then changes).
 *
 * Contract: every field is optional; a field that is not a finite number `>= 0` (or a boolean) is
 * ignored, as if absent.
 *
 * @example
 * const sonnet: ModelFacts = { cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 }, cacheLifetimeSeconds: 300 };
 */
export interface ModelFacts {
	cost?: { input: number; output: number; cacheRead: number; cacheWrite: number };
	cacheLifetimeSeconds?: number;
	midConversationSystem?: boolean;
	/** The model's context window in tokens (the report's chart draws it). */
	contextWindow?: number;
}

/**
 * Looks a model up in a model table: `undefined` when the table does not list it.
 *
 * Contract: asked once per distinct `provider`/`modelId` of a session; may be async; a lookup that
 * throws or rejects counts as `undefined` and the ledger says so.
 *
 * @example
 * const models: ModelLookup = (provider, id) => (provider === "anthropic" && id === "claude-sonnet-4-5" ? sonnet : undefined);
 */
export type ModelLookup = (
	provider: string,
	modelId: string,
) => ModelFacts | undefined | Promise<ModelFacts | undefined>;

/** pi-ai 1.x's lifetime of a prompt cache entry when a model declares none: 5 minutes. */
export const DEFAULT_CACHE_LIFETIME_MS = 5 * 60_000;

/** Where a price came from. */
export type PriceSource = "request" | "session" | "table";

/**
 * What the ledger knows of one model of the session, and where it came from.
 *
 * Contract: `cacheLifetimeMs` is the model table's `cacheLifetimeSeconds`, else 5 minutes
 * (`cacheLifetimeFrom` says which); `foldsSystem` unless the table says the model takes `system`
 * messages mid-conversation; `perToken` holds, per field, the first price the session recorded for
 * the model (`"session"`), else the table's (`"table"`), in USD per token; a field with neither is
 * absent, and a request that needs it is not priced.
 *
 * @example
 * for (const model of ledger.models) console.log(model.model, model.cacheLifetimeMs, model.perToken.cacheWrite?.from);
 */
export interface ModelPrices {
	/** `provider/model`. */
	model: string;
	/** The cache lifetime used, in ms. */
	cacheLifetimeMs: number;
	/** Where it came from: the model table, or pi-ai's default. */
	cacheLifetimeFrom: "table" | "default";
	/** Whether the model table lists it. */
	listed: boolean;
	/** pi-ai folds a `system` message into the system prompt for this model (it takes none mid-conversation). */
	foldsSystem: boolean;
	/** USD per token of each field: the first the session recorded for this model, else the table's. */
	perToken: Partial<Record<PriceField, { usd: number; from: "session" | "table" }>>;
}

/** The models of a session, their prices and cache lifetimes. */
export class PriceBook {
	private readonly models = new Map<string, ModelPrices>();

	/** Adds a model as the table describes it (`undefined`: not listed). */
	add(model: string, facts: ModelFacts | undefined): void {
		const lifetime = facts?.cacheLifetimeSeconds;
		const listed = facts !== undefined;
		const perToken: ModelPrices["perToken"] = {};
		for (const field of PRICE_FIELDS) {
			const perMillion = facts?.cost?.[field];
			if (typeof perMillion === "number" && Number.isFinite(perMillion) && perMillion >= 0)
				perToken[field] = { usd: perMillion / 1e6, from: "table" };
		}
		this.models.set(model, {
			model,
			cacheLifetimeMs:
				typeof lifetime === "number" && Number.isFinite(lifetime) && lifetime > 0
					? lifetime * 1000
					: DEFAULT_CACHE_LIFETIME_MS,
			cacheLifetimeFrom:
				typeof lifetime === "number" && Number.isFinite(lifetime) && lifetime > 0 ? "table" : "default",
			listed,
			foldsSystem: facts?.midConversationSystem !== true,
			perToken,
		});
	}

	/** Learns the prices one request of `model` was billed at: the first recorded price of each field wins over the table's. */
	learn(model: string, unitPrices: Partial<Record<PriceField, number>>): void {
		const known = this.models.get(model);
		if (known === undefined) return;
		for (const field of PRICE_FIELDS) {
			const usd = unitPrices[field];
			if (usd !== undefined && known.perToken[field]?.from !== "session")
				known.perToken[field] = { usd, from: "session" };
		}
	}

	get(model: string | undefined): ModelPrices | undefined {
		return model === undefined ? undefined : this.models.get(model);
	}

	all(): ModelPrices[] {
		return [...this.models.values()];
	}

	/** USD per token of `field` for a request of `model` that was billed at `own` (its own prices first). */
	price(
		model: string | undefined,
		field: PriceField,
		own: Partial<Record<PriceField, number>>,
	): { usd: number; from: PriceSource } | undefined {
		const usd = own[field];
		if (usd !== undefined) return { usd, from: "request" };
		return this.get(model)?.perToken[field];
	}
}

/** A request's modeled cost, or why it has none. */
export type ModeledCost = { cost: number; reason?: undefined } | { cost: null; reason: string };

/**
 * The cost of `modeled`: the recorded cost moved by each changed field's tokens at that field's
 * price (so that what is not changed costs exactly what was billed); without a recorded cost, every
 * field at its price. Names the first price it lacks.
 */
export function modeledCost(
	book: PriceBook,
	model: string | undefined,
	recorded: RecordedUsage,
	modeled: CacheTokens,
	own: Partial<Record<PriceField, number>>,
): ModeledCost {
	const name = model ?? "a request without a model name";
	const missing = (field: PriceField): ModeledCost => ({
		cost: null,
		reason: `no ${field} price for ${name}: ${book.get(model)?.listed ? "the model table lists no such price" : "the model table does not list it"}, and no request of the session recorded one`,
	});
	const fields: readonly ("input" | "cacheRead" | "cacheWrite")[] = ["input", "cacheRead", "cacheWrite"];
	if (recorded.cost !== null) {
		let cost = recorded.cost;
		for (const field of fields) {
			const moved = modeled[field] - recorded[field];
			if (moved === 0) continue;
			const price = book.price(model, field, own);
			if (price === undefined) return missing(field);
			cost += moved * price.usd;
		}
		return { cost: Math.max(0, cost) };
	}
	if (recorded.output === null)
		return { cost: null, reason: "no cost and no output tokens were recorded, so the output cannot be priced" };
	let cost = 0;
	for (const field of PRICE_FIELDS) {
		const price = book.price(model, field, own);
		if (price === undefined) return missing(field);
		cost += (field === "output" ? recorded.output : modeled[field]) * price.usd;
	}
	return { cost };
}
