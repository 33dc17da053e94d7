/**
 * `redactSecrets` with secretlint's recommended rules: every planted secret (108 of 36 kinds, each
 * one that secretlint itself reports) in every position of a history, none in what the model
 * receives; a clean corpus of ordinary tool output, unchanged; secretlint's own escape hatches
 * (a `secretlint-disable` comment in the text) closed; and the failure modes, closed.
 */
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { Message } from "@earendil-works/pi-ai";
import { describe, expect, it } from "vitest";
import { REDACT_SECRETS_PLUGIN, redactSecrets } from "../../src/filters/redact-secrets.js";
import { SEPARATOR, WINDOW } from "../../src/filters/scan-batch.js";
import { loadSecretlint } from "../../src/filters/secret-detector.js";
import { AsyncHookInSyncConvertError } from "../../src/index.js";
import { createDefaultRegistry } from "../../src/preset.js";
import { assistant, bashExecution, collectErrors, user } from "../support/fixtures.js";
import { cleanCorpus, imageData, SECRETS } from "../support/secret-corpus.js";
import { leaks, PLANTINGS } from "../support/secret-leaks.js";
import { POSITIONS } from "../support/secret-positions.js";

const T = 1_700_000_000_000;

const registry = () => createDefaultRegistry({ strict: true }).use(redactSecrets());

/** secretlint's scanner, recording the length of each text it is given into `texts`. */
const recordingSecretlint = (texts: number[]) => async () => {
	const real = await loadSecretlint();
	return (text: string) => {
		texts.push(text.length);
		return real(text);
	};
};

describe("redactSecrets", () => {
	it(`should find ${SECRETS.length} secrets of ${new Set(SECRETS.map((s) => s.kind)).size} kinds`, () => {
		expect(SECRETS.length).toBeGreaterThanOrEqual(40);
		expect(new Set(SECRETS.map((s) => s.kind)).size).toBeGreaterThanOrEqual(12);
	});

	it.each(Object.keys(POSITIONS))("should let no planted secret through in the %s", async (position) => {
		const plant = POSITIONS[position] as (text: string) => AgentMessage[];
		const history = SECRETS.flatMap((secret) => plant(secret.text));
		const output = await registry().convertAsync(history);
		const sent = JSON.stringify(output);
		const leaked = SECRETS.filter((secret) => sent.includes(secret.value)).map((secret) => secret.kind);
		expect(leaked).toEqual([]);
		expect(sent).toContain("[REDACTED:");
	});

	it("should let no planted secret through when it is planted harder, in any position", async () => {
		const values = SECRETS.map((secret) => secret.value);
		const { positions, plantings } = await leaks((needs) =>
			needs === "values" ? redactSecrets({ values }) : redactSecrets(),
		);
		expect(positions).toEqual([]);
		expect(Object.fromEntries([...plantings].map(([where, { leaks: found }]) => [where, found]))).toEqual(
			Object.fromEntries(Object.keys(PLANTINGS).map((where) => [where, []])),
		);
	}, 120_000);

	it("should replace exactly the secret value, keeping the text around it", async () => {
		const [aws] = SECRETS;
		const [message] = await registry().convertAsync([user(`before ${aws?.text} after`)]);
		expect(message?.content).toBe("before export AWS_SECRET_ACCESS_KEY=[REDACTED:aws-secret-access-key#1] after");
	});

	it("should redact a found secret wherever it occurs, also where no rule would flag it", async () => {
		const npm = SECRETS.find((s) => s.kind === "npm-auth-token");
		const output = await registry().convertAsync([user(npm?.text ?? ""), user(`the token is ${npm?.value}`)]);
		expect(output[1]?.content).toBe("the token is [REDACTED:npm-auth-token#1]");
	});

	it("should change nothing in a clean corpus of tool output", async () => {
		const texts = cleanCorpus();
		const history: AgentMessage[] = texts.flatMap((text, i) => [
			bashExecution({ command: `cmd ${i}`, output: text }),
			{
				role: "toolResult",
				toolCallId: `c${i}`,
				toolName: "read",
				content: [
					{ type: "text", text },
					{ type: "image", data: imageData(i, 2000), mimeType: "image/png" },
				],
				isError: false,
				timestamp: T,
			},
		]);
		const plain = createDefaultRegistry().convert(history);
		const output = await registry().convertAsync(history);
		expect(output).toEqual(plain);
		const { taps } = await registry().explainAsync(history);
		expect(taps.filter((tap) => tap.plugin === REDACT_SECRETS_PLUGIN)).toEqual([
			expect.objectContaining({ hook: "afterConvertAsync", changed: [], removed: 0 }),
		]);
		expect(JSON.stringify(output)).not.toContain("[REDACTED:");
	});

	it("should drop the signature of a thinking block whose text changed", async () => {
		const [, answer] = await registry().convertAsync(POSITIONS.thinking?.(SECRETS[2]?.text ?? "") ?? []);
		const block = (answer as Extract<Message, { role: "assistant" }>).content[0];
		expect(block).toEqual({ type: "thinking", thinking: expect.stringContaining("[REDACTED:github-token#1]") });
	});

	it("should apply extra patterns, the allow-list and the replacement", async () => {
		const [aws, id] = SECRETS;
		const plugin = redactSecrets({
			patterns: [{ id: "acme", pattern: /acme_(?<secret>[a-z0-9]{12})/ }],
			allow: [id?.value ?? ""],
			replacement: (kind, _secret, n) => `<${kind}:${n}>`,
		});
		const output = await createDefaultRegistry()
			.use(plugin)
			.convertAsync([user(`${aws?.text}\n${id?.text}\nkey acme_abcdef123456`)]);
		expect(output[0]?.content).toBe(
			`export AWS_SECRET_ACCESS_KEY=<aws-secret-access-key:1>\n${id?.text}\nkey acme_<acme:1>`,
		);
	});

	it("should scan only the strings it has not scanned before, and still redact what it found in them", async () => {
		const scanned: string[] = [];
		const plugin = redactSecrets({
			loadScanner: async () => {
				const scan = await loadSecretlint();
				return (text) => {
					scanned.push(text);
					return scan(text);
				};
			},
		});
		const reg = createDefaultRegistry().use(plugin);
		const history = [user(SECRETS[2]?.text ?? ""), user("next")];
		await reg.convertAsync(history);
		const second = await reg.convertAsync([...history, user("another turn")]);
		expect(scanned).toHaveLength(2);
		expect(scanned[1]).toBe(`${SEPARATOR}another turn`);
		expect(second[0]?.content).toBe("GITHUB_TOKEN=[REDACTED:github-token#1]");
	});

	it("should scan a history of many secrets in pieces of at most 64 Ki characters, and find every one", async () => {
		const github = SECRETS.find((s) => s.kind === "github-classic-token") as (typeof SECRETS)[number];
		// Each tool output its own token (a different one each, so none is found only by its repetition).
		const token = (i: number) => github.value.slice(0, -6) + String(i).padStart(6, "0");
		const history = Array.from({ length: 3000 }, (_, i) =>
			user(`GET /api/${i} 200\nAuthorization: token ${token(i)}\n${"x".repeat(40)}`),
		);
		const texts: number[] = [];
		const registry = createDefaultRegistry().use(redactSecrets({ loadScanner: recordingSecretlint(texts) }));
		const sent = JSON.stringify(await registry.convertAsync(history));
		expect(texts.length).toBeGreaterThan(2);
		expect(Math.max(...texts)).toBeLessThanOrEqual(64 * 1024);
		for (let i = 0; i < 3000; i += 1) expect(sent.includes(token(i)), `token ${i}`).toBe(false);
		expect(sent.split("[REDACTED:github-token#")).toHaveLength(3001);
		expect(sent).toContain("[REDACTED:github-token#3000]");
	}, 60_000);

	it("should scan a string longer than a piece in overlapping windows, and find a secret on a window's edge", async () => {
		const github = SECRETS.find((s) => s.kind === "github-classic-token") as (typeof SECRETS)[number];
		// The token straddles the first window's end; the second window holds it whole.
		const filler = "ordinary output line\n".repeat(4000).slice(0, WINDOW - 20);
		const long = `${filler}${github.text}\n${"more output\n".repeat(10)}`;
		expect(long.length).toBeGreaterThan(64 * 1024);
		const texts: number[] = [];
		const registry = createDefaultRegistry().use(redactSecrets({ loadScanner: recordingSecretlint(texts) }));
		const sent = JSON.stringify(await registry.convertAsync([user("short"), user(long), user("after")]));
		expect(sent).not.toContain(github.value);
		expect(Math.max(...texts)).toBeLessThanOrEqual(64 * 1024);
	});

	it("should find a secret put into a message it has seen before, changed in place", async () => {
		const reg = registry();
		const block = { type: "text" as const, text: "nothing yet" };
		const message = user([block]);
		const tool = assistant([{ type: "toolCall", id: "c1", name: "deploy", arguments: { env: "staging" } }]);
		const history = [message, tool];
		expect(JSON.stringify(await reg.convertAsync(history))).not.toContain("[REDACTED:");
		block.text = `now: ${SECRETS[0]?.text}`;
		(tool.content[0] as { arguments: Record<string, unknown> }).arguments.token = SECRETS[2]?.text;
		const sent = JSON.stringify(await reg.convertAsync(history));
		expect(sent).not.toContain(SECRETS[0]?.value);
		expect(sent).not.toContain(SECRETS[2]?.value);
		expect(sent).toContain("[REDACTED:aws-secret-access-key#1]");
		expect(sent).toContain("[REDACTED:github-token#1]");
	});

	it("should find the secrets of a history whose messages moved, or were dropped, since the last conversion", async () => {
		const reg = registry();
		const secret = user(SECRETS[0]?.text ?? "");
		const history = [user("one"), secret, user("two")];
		await reg.convertAsync(history);
		for (const next of [[user("new first"), ...history], [history[0], history[2], secret], [secret]]) {
			const sent = JSON.stringify(await reg.convertAsync(next as AgentMessage[]));
			expect(sent).not.toContain(SECRETS[0]?.value);
			expect(sent).toContain("[REDACTED:aws-secret-access-key#1]");
		}
	});

	it("should throw AsyncHookInSyncConvertError in sync convert, before converting anything", () => {
		expect(() => registry().convert([user(SECRETS[0]?.text ?? "")])).toThrow(AsyncHookInSyncConvertError);
	});

	it("should send nothing and report when the scanner fails", async () => {
		const reg = createDefaultRegistry().use(
			redactSecrets({ loadScanner: () => Promise.reject(new Error("not installed")) }),
		);
		const errors = collectErrors(reg);
		expect(await reg.convertAsync([user("hello")])).toEqual([]);
		expect(errors.map((e) => [e.plugin, e.message])).toEqual([
			[REDACT_SECRETS_PLUGIN, expect.stringContaining("not installed")],
		]);
	});

	it("should drop a message it cannot read and scan the rest", async () => {
		const reg = createDefaultRegistry().use(redactSecrets());
		const errors = collectErrors(reg);
		const cyclic: Record<string, unknown> = {};
		cyclic.self = cyclic;
		const history = [
			user("fine"),
			assistant([{ type: "toolCall", id: "c1", name: "x", arguments: cyclic as never }]),
			user(SECRETS[2]?.text ?? ""),
		];
		const output = await reg.convertAsync(history);
		expect(output.map((m) => m.role)).toEqual(["user", "user"]);
		expect(output[1]?.content).toBe("GITHUB_TOKEN=[REDACTED:github-token#1]");
		expect(errors.some((e) => e.plugin === REDACT_SECRETS_PLUGIN)).toBe(true);
	});
});
