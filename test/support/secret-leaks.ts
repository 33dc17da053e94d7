/**
 * How many planted secrets reach the model through `redactSecrets`: each secret of the corpus in
 * each position of `secret-positions.ts`, and in each of the harder plantings below (a value far
 * from its name, split across two text blocks, in tool-call arguments as an object, with a
 * zero-width joiner inside, and, known to the plugin as exact values, base64- or URL-encoded), one
 * history per position or planting, converted by a fresh registry.
 *
 * Run: `$(node scripts/pi-node.mjs) node_modules/.bin/tsx test/support/secret-leaks.ts`
 */
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { Plugin } from "../../src/index.js";
import { createDefaultRegistry } from "../../src/preset.js";
import { assistant, user } from "./fixtures.js";
import { type PlantedSecret, SECRETS } from "./secret-corpus.js";
import { POSITIONS } from "./secret-positions.js";

/** The options a planting needs of the plugin (`values`: the corpus, known as exact values). */
export type Needs = "rules" | "values";

/** A harder way to plant a secret: the history it makes, and what the plugin must know. */
export interface Planting {
	readonly needs: Needs;
	/** The secrets it is planted for (default: all). */
	readonly applies?: (secret: PlantedSecret) => boolean;
	readonly plant: (secret: PlantedSecret) => AgentMessage[];
	/** Whether the secret is in what was sent (default: its value, invisible characters taken out). */
	readonly leaked?: (sent: string, secret: PlantedSecret) => boolean;
}

const around = (secret: PlantedSecret): [string, string] => {
	const at = secret.text.indexOf(secret.value);
	return [secret.text.slice(0, at), secret.text.slice(at + secret.value.length)];
};
const half = (value: string) => value.length >> 1;
const base64 = (text: string) => Buffer.from(text).toString("base64");
/** A secret written as `NAME=value` (or `name: "value"`): the name is a variable's, not part of a URL or a PEM block. */
const assigned = (secret: PlantedSecret) =>
	/^(?:export\s+)?["']?[A-Za-z_][A-Za-z0-9_.]*["']?\s*[=:]\s*["']?$/.test(around(secret)[0]);

/** The plantings beyond the positions. */
export const PLANTINGS: Readonly<Record<string, Planting>> = Object.freeze({
	"the value on the next line, far from its name": {
		needs: "rules",
		applies: assigned,
		plant: (secret) => {
			const [before, after] = around(secret);
			return [user(`${before}\n${" ".repeat(48)}${secret.value}${after}`)];
		},
	},
	"split across two text blocks, which a provider joins": {
		needs: "rules",
		plant: (secret) => {
			const at = secret.text.indexOf(secret.value) + half(secret.value);
			return [
				user([
					{ type: "text", text: secret.text.slice(0, at) },
					{ type: "text", text: secret.text.slice(at) },
				]),
			];
		},
		// Sent in two blocks: it leaked when both halves went out.
		leaked: (sent, { value }) =>
			sent.includes(value.slice(0, half(value))) && sent.includes(value.slice(half(value))),
	},
	"tool-call arguments as an object, the name a key": {
		needs: "rules",
		applies: assigned,
		plant: (secret) => {
			const name = /([A-Za-z_][A-Za-z0-9_]*)\W*$/.exec(around(secret)[0])?.[1] ?? "value";
			return [
				user("set it"),
				assistant([{ type: "toolCall", id: "c1", name: "env", arguments: { env: { [name]: secret.value } } }]),
			];
		},
	},
	"a zero-width joiner inside the value": {
		needs: "rules",
		plant: (secret) => {
			const [before, after] = around(secret);
			const { value } = secret;
			return [user(`${before}${value.slice(0, half(value))}\u200d${value.slice(half(value))}${after}`)];
		},
	},
	"base64-encoded, the value known": {
		needs: "values",
		plant: (secret) => [user(`echo ${base64(secret.text)} | base64 -d`)],
		leaked: (sent, secret) => sent.includes(base64(secret.text)),
	},
	"URL-encoded, the value known": {
		needs: "values",
		plant: (secret) => [user(`GET /callback?state=${encodeURIComponent(secret.text)}`)],
		leaked: (sent, { value }) => sent.includes(encodeURIComponent(value)) || sent.includes(value),
	},
});

/** Whether `value` is in what was sent, once invisible characters are taken out. */
function sentWhole(sent: string, value: string): boolean {
	return sent.replace(/[\p{Default_Ignorable_Code_Point}\p{Cf}]/gu, "").includes(value);
}

/** One leaked secret: its kind and where it was planted. */
export interface Leak {
	readonly kind: string;
	readonly where: string;
}

/** The planted secrets whose value reaches the model, for each history `plant` makes of each secret. */
async function leaksOf(
	where: string,
	{ plant, leaked = (sent, secret) => sentWhole(sent, secret.value) }: Pick<Planting, "plant" | "leaked">,
	plugin: () => Plugin,
	secrets: readonly PlantedSecret[],
): Promise<Leak[]> {
	const history = secrets.flatMap(plant);
	const sent = JSON.stringify(await createDefaultRegistry().use(plugin()).convertAsync(history));
	return secrets.filter((secret) => leaked(sent, secret)).map((secret) => ({ kind: secret.kind, where }));
}

/** The leaks of every position (`plugin("rules")`) and every planting (`plugin(needs)`). */
export async function leaks(
	plugin: (needs: Needs) => Plugin,
	secrets: readonly PlantedSecret[] = SECRETS,
): Promise<{ positions: Leak[]; plantings: Map<string, { planted: number; leaks: Leak[] }> }> {
	const positions: Leak[] = [];
	for (const [where, plant] of Object.entries(POSITIONS))
		positions.push(
			...(await leaksOf(where, { plant: (secret) => plant(secret.text) }, () => plugin("rules"), secrets)),
		);
	const plantings = new Map<string, { planted: number; leaks: Leak[] }>();
	for (const [where, planting] of Object.entries(PLANTINGS)) {
		const planted = secrets.filter(planting.applies ?? (() => true));
		const found = await leaksOf(where, planting, () => plugin(planting.needs), planted);
		plantings.set(where, { planted: planted.length, leaks: found });
	}
	return { positions, plantings };
}

if (import.meta.url === `file://${process.argv[1]}`) {
	const { redactSecrets } = await import("../../src/filters/redact-secrets.js");
	const values = SECRETS.map((secret) => secret.value);
	const { positions, plantings } = await leaks((needs) =>
		needs === "values" ? redactSecrets({ values } as never) : redactSecrets(),
	);
	const kinds = new Set(SECRETS.map((s) => s.kind)).size;
	const count = Object.keys(POSITIONS).length;
	console.log(`${SECRETS.length} planted secrets of ${kinds} kinds`);
	console.log(`${positions.length} of ${SECRETS.length * count} reach the model in the ${count} positions`);
	const leakedKinds = [...new Set(positions.map((leak) => leak.kind))];
	if (leakedKinds.length > 0) console.log(`  kinds: ${leakedKinds.join(", ")}`);
	for (const [where, { planted, leaks: found }] of plantings)
		console.log(`${found.length} of ${planted} reach the model: ${where}`);
}
