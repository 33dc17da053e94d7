/**
 * How many planted secrets reach the model through a plugin: each secret of the corpus in each
 * position of `secret-positions.ts`, one history per position, converted by a fresh registry.
 *
 * Run: `$(node scripts/pi-node.mjs) node_modules/.bin/tsx test/support/secret-leaks.ts`
 */
import type { Plugin } from "../../src/index.js";
import { createDefaultRegistry } from "../../src/preset.js";
import { type PlantedSecret, SECRETS } from "./secret-corpus.js";
import { POSITIONS } from "./secret-positions.js";

/** One leaked secret: its kind and the position it was planted in. */
export interface Leak {
	readonly kind: string;
	readonly position: string;
}

/** The planted secrets whose value is in what the model receives, for every position. */
export async function leaks(plugin: () => Plugin, secrets: readonly PlantedSecret[] = SECRETS): Promise<Leak[]> {
	const found: Leak[] = [];
	for (const [position, plant] of Object.entries(POSITIONS)) {
		const history = secrets.flatMap((secret) => plant(secret.text));
		const sent = JSON.stringify(await createDefaultRegistry().use(plugin()).convertAsync(history));
		for (const secret of secrets) if (sent.includes(secret.value)) found.push({ kind: secret.kind, position });
	}
	return found;
}

if (import.meta.url === `file://${process.argv[1]}`) {
	const { redactSecrets } = await import("../../src/filters/redact-secrets.js");
	const found = await leaks(() => redactSecrets());
	const planted = SECRETS.length * Object.keys(POSITIONS).length;
	const kinds = [...new Set(found.map((leak) => leak.kind))];
	console.log(
		`${found.length} of ${planted} planted secrets reach the model (${SECRETS.length} secrets of ${new Set(SECRETS.map((s) => s.kind)).size} kinds in ${Object.keys(POSITIONS).length} positions)`,
	);
	console.log(`kinds that leak: ${kinds.join(", ") || "none"}`);
}
