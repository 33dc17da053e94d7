/**
 * With `redactSecrets` on, nothing any plugin adds reaches the provider unscanned: every
 * `afterConvertAsync` tap that may run after the redaction (a later stage, the same stage tapped
 * later, `before`), tapped before or after the plugin, in any of tapable's three styles, has its
 * output redacted too; a tap it cannot make do so makes the conversion send nothing, and says why.
 */
import type { Message } from "@earendil-works/pi-ai";
import { describe, expect, it } from "vitest";
import { REDACT_SECRETS_PLUGIN, REDACT_STAGE, redactSecrets } from "../../src/filters/redact-secrets.js";
import { InvalidPluginError, type Registry, type RegistryOptions, Stage } from "../../src/index.js";
import { createDefaultRegistry } from "../../src/preset.js";
import { user } from "../support/fixtures.js";
import { SECRETS } from "../support/secret-corpus.js";

const planted = SECRETS.find((s) => s.kind === "gitlab-token") as (typeof SECRETS)[number];
const added = (messages: Message[]): Message[] => [...messages, user(`debug: ${planted.text}`)];

type Tapping = (registry: Registry) => void;
const TAPPINGS: [string, Tapping][] = [
	["tap at Stage.VERIFY", (r) => r.hooks.afterConvertAsync.tap({ name: "audit", stage: Stage.VERIFY }, added)],
	[
		"tapAsync at Stage.VERIFY + 1",
		(r) =>
			r.hooks.afterConvertAsync.tapAsync({ name: "audit", stage: Stage.VERIFY + 1 }, (messages, _ctx, done) =>
				done(null, added(messages)),
			),
	],
	[
		"tapPromise at Infinity",
		(r) =>
			r.hooks.afterConvertAsync.tapPromise({ name: "audit", stage: Number.POSITIVE_INFINITY }, async (m) =>
				added(m),
			),
	],
	[
		"tapPromise at REDACT_STAGE, after the plugin",
		(r) => r.hooks.afterConvertAsync.tapPromise({ name: "audit", stage: REDACT_STAGE }, async (m) => added(m)),
	],
	[
		"tapPromise before the plugin by name",
		(r) =>
			r.hooks.afterConvertAsync.tapPromise(
				{ name: "audit", stage: Stage.VERIFY, before: REDACT_SECRETS_PLUGIN },
				async (m) => added(m),
			),
	],
	[
		"afterConvert at Stage.VERIFY + 1e6",
		(r) => r.hooks.afterConvert.tap({ name: "audit", stage: Stage.VERIFY + 1e6 }, added),
	],
];

describe("redactSecrets", () => {
	describe.each([
		["after the plugin", false, false],
		["before the plugin", true, false],
		// A host that refuses code generation: the hooks are called without tapable's generated code.
		["after the plugin, on a registry that generates no code", false, true],
	])("with a tap made %s", (_when, tapFirst, interpreted) => {
		it.each(TAPPINGS)("should redact what a %s adds", async (_how, tapping) => {
			const registry = createDefaultRegistry({ interpreted } as RegistryOptions);
			if (tapFirst) tapping(registry);
			registry.use(redactSecrets());
			if (!tapFirst) tapping(registry);
			const { output, problems } = await registry.runAsync([user("hello")]);
			const sent = JSON.stringify(output);
			expect(sent).not.toContain(planted.value);
			expect(sent).toContain("debug: GITLAB_TOKEN=[REDACTED:gitlab-personal-access-token#1]");
			expect(problems).toEqual([]);
		});
	});

	it.each([
		["after", false],
		["before", true],
	])("should refuse a later tap that asks for tapable's context, tapped %s the plugin", (_when, tapFirst) => {
		const registry = createDefaultRegistry();
		const tapping = () =>
			(registry.hooks.afterConvertAsync as unknown as { tapPromise(o: object, f: unknown): void }).tapPromise(
				{ name: "audit", stage: Stage.VERIFY, context: true },
				async (_context: unknown, messages: Message[]) => added(messages),
			);
		if (tapFirst) {
			tapping();
			expect(() => registry.use(redactSecrets())).toThrow(InvalidPluginError);
		} else {
			registry.use(redactSecrets());
			expect(tapping).toThrow(/tap "audit" asks for tapable's deprecated context/);
		}
	});

	it.each<[string, Tapping]>([
		[
			"a later interceptor that rewrites taps",
			(r) => {
				r.hooks.afterConvertAsync.tapPromise({ name: "audit", stage: Stage.VERIFY }, async (m) => m);
				r.hooks.afterConvertAsync.intercept({
					register: (tap) => ({ ...tap, type: "promise", fn: async (m: Message[]) => added(m) }),
				});
			},
		],
		[
			"a later interceptor that replaces the redaction's own tap",
			(r) =>
				r.hooks.afterConvertAsync.intercept({
					register: (tap) =>
						tap.name === REDACT_SECRETS_PLUGIN ? { ...tap, type: "promise", fn: async (m: Message[]) => m } : tap,
				}),
		],
		[
			"a tap put into the hook's list by hand",
			(r) => {
				(r.hooks.afterConvertAsync.taps as unknown[]).push({ name: "audit", type: "sync", fn: added, stage: 2000 });
			},
		],
	])("should send nothing, and say why, with %s", async (_case, tapping) => {
		const registry = createDefaultRegistry().use(redactSecrets());
		tapping(registry);
		const { output, problems } = await registry.runAsync([user(planted.text)]);
		expect(JSON.stringify(output)).not.toContain(planted.value);
		expect(output).toEqual([]);
		expect(problems.map((p) => [p.plugin, p.message])).toContainEqual([
			REDACT_SECRETS_PLUGIN,
			expect.stringMatching(/tap "audit" runs after it|its own afterConvertAsync tap was removed or replaced/),
		]);
	});
});
