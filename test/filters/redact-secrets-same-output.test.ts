/**
 * `redactSecrets` gives a history the same output whatever the plugin converted before it: a fresh
 * plugin and one that converted each earlier turn of the history replace the same text, since what
 * is found in a text never depends on the texts scanned with it; and they agree byte for byte, the
 * placeholders' numbers included, unless a later turn revealed a secret that an earlier message
 * holds (that message changes then, and the secret takes the next free number).
 */
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { redactSecrets } from "../../src/filters/redact-secrets.js";
import { createDefaultRegistry } from "../../src/preset.js";
import { assistant, user } from "../support/fixtures.js";
import { SECRETS } from "../support/secret-corpus.js";
import { fragmentText } from "../support/secret-fragments.js";

const registry = () => createDefaultRegistry().use(redactSecrets());

const placeholders = (text: string) => new Set(text.match(/\[REDACTED:[a-z0-9-]+#\d+\]/g) ?? []);
/** The text with each placeholder's number taken out. */
const unnumbered = (text: string) => text.replace(/(\[REDACTED:[a-z0-9-]+)#\d+\]/g, "$1]");

/**
 * The output of the last turn, from a plugin that converted every earlier turn first, and whether a
 * turn revealed a secret in the messages of the turns before it.
 */
async function turnByTurn(history: readonly AgentMessage[]): Promise<{ out: string; revealed: boolean }> {
	const reg = registry();
	let previous: unknown[] = [];
	let revealed = false;
	for (let n = 1; n <= history.length; n++) {
		const out = await reg.convertAsync(history.slice(0, n));
		const known = placeholders(JSON.stringify(previous));
		if ([...placeholders(JSON.stringify(out.slice(0, previous.length)))].some((p) => !known.has(p))) revealed = true;
		previous = out;
	}
	return { out: JSON.stringify(previous), revealed };
}

const message: fc.Arbitrary<AgentMessage> = fc.oneof(
	fragmentText.map((text) => user(text)),
	fc
		.array(fragmentText, { minLength: 1, maxLength: 3 })
		.map((texts) => user(texts.map((text) => ({ type: "text", text })))),
	fc
		.array(fragmentText, { minLength: 1, maxLength: 3 })
		.map((texts) => assistant(texts.map((text) => ({ type: "text" as const, text })))),
	fc
		.dictionary(fc.constantFrom("AWS_SECRET_ACCESS_KEY", "token", "env", "cmd"), fragmentText, { maxKeys: 3 })
		.map((args) => assistant([{ type: "toolCall", id: "c1", name: "run", arguments: { env: args } }])),
);

describe("redactSecrets", () => {
	it("should give a history the same output fresh as after converting its earlier turn, where a rule's match would reach from one string into the next", async () => {
		const [aws] = SECRETS;
		const history = [user("export AWS_SECRET_ACCESS_KEY="), user(aws?.value ?? "")];
		const fresh = JSON.stringify(await registry().convertAsync(history));
		expect(await turnByTurn(history)).toEqual({ out: fresh, revealed: false });
	});

	it("should redact the same text of any history fresh as turn by turn, numbered the same unless a turn revealed a secret in an earlier one", async () => {
		await fc.assert(
			fc.asyncProperty(fc.array(message, { minLength: 1, maxLength: 6 }), async (history) => {
				const fresh = JSON.stringify(await registry().convertAsync(history));
				const { out, revealed } = await turnByTurn(history);
				expect(unnumbered(out)).toBe(unnumbered(fresh));
				if (!revealed) expect(out).toBe(fresh);
			}),
			{ numRuns: 80 },
		);
	}, 300_000);

	it("should keep the output of earlier turns as the prefix of the next turn's output, unless the new turn reveals a secret they hold", async () => {
		// The history a run once drew: a Vault token the second turn reveals overlaps a Grafana token
		// found in the first, so the first turn's text is redacted further with no new placeholder in it.
		const overlap = [
			user(
				"glc_eyJvIjoiMDc4ODA4IiwibiI6InN0YWNrLTg1MTUwNC1obS1yZWFkIiwiayI6IjFlZExHSzJ1U3hqTmFXS2hjejE4RjZPaiIsIm0iOnsiciI6InByb2QtZXUtd2VzdC0yIn19hvs.CAESIKESVWZfPSuu-jegPOUImIuxHpznEpTNc2UsaWNCfUH8o7UjstCeu3LxDsHTpkhz7UxCb9LLMZrzET25e2qyN5BxjNB46hNikQpljAWS_SECRET_ACCESS_KEY=export AWS_SECRET_ACCESS_KEY=oAh/9Rnub+dfIZPJfEZxSMCblzSNqiwMudx+PwJU",
			),
			assistant([
				{
					type: "text",
					text: "VAULT_TOKEN=hvs.CAESIKESVWZfPSuu-jegPOUImIuxHpznEpTNc2UsaWNCfUH8o7UjstCeu3LxDsHTpkhz7UxCb9LLMZrzET25e2qyN5BxjNB46hNikQplj vault kv get secret/app",
				},
			]),
		];
		const reg = registry();
		const first = JSON.stringify(await reg.convertAsync(overlap.slice(0, 1)));
		const both = await reg.convertAsync(overlap);
		expect(JSON.stringify(both)).not.toContain("hvs.CAES");
		expect(first).not.toContain("glc_");
		expect(JSON.stringify(both[1])).toMatch(/\[REDACTED:[a-z-]+#1\]/);

		await fc.assert(
			fc.asyncProperty(fc.array(message, { minLength: 2, maxLength: 6 }), async (history) => {
				const reg = registry();
				let previous: unknown[] = [];
				for (let n = 1; n <= history.length; n++) {
					const out = await reg.convertAsync(history.slice(0, n));
					const prefix = JSON.stringify(out.slice(0, previous.length));
					const known = placeholders(JSON.stringify(previous));
					// A secret the new turn reveals may sit in an earlier message, alone (a new placeholder
					// there) or overlapping a secret found before (their spans then merge into the earlier
					// placeholder): either way the new turn holds a placeholder never seen before.
					const revealed = [...placeholders(JSON.stringify(out))].filter((p) => !known.has(p));
					if (revealed.length === 0) expect(prefix).toBe(JSON.stringify(previous));
					previous = out;
				}
			}),
			{ numRuns: 60 },
		);
	}, 300_000);
});
